#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "interp.h"
#include "proc.h"
#include "sysdirs.h"
#include "util.h"

#define QUERY_MAX_BYTES 65536
#define SYMLINK_HOPS_MAX 40


static bool path_under(const char *path, const char *dir)
{
        size_t n = strlen(dir);

        return strncmp(path, dir, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

bool path_is_system(const char *path)
{
        if (strcmp(path, "/") == 0)
                return true;
        for (const char *const *d = sbx_system_dirs; *d; d++)
                if (path_under(path, *d))
                        return true;
        return false;
}

static bool is_version(const char *s)
{
        if (!*s)
                return false;
        for (; *s; s++)
                if (!(*s >= '0' && *s <= '9') && *s != '.')
                        return false;
        return true;
}

static char *uv_find(const char *version)
{
        auto_free char *uv = proc_find_exe("uv", NULL);
        struct run_output out;
        struct sbx_err ignored;
        char *found = NULL;

        if (!uv)
                return NULL;
        char *argv[] = { uv, "python", "find", (char *)version, NULL };
        int status = proc_capture(argv, NULL, &out, QUERY_MAX_BYTES, &ignored);
        if (status >= 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0 && out.data) {
                out.data[strcspn(out.data, "\n")] = '\0';
                if (out.data[0] == '/' && access(out.data, X_OK) == 0)
                        found = strdup(out.data);
        }
        free(out.data);
        return found;
}

static char *absolute(const char *path)
{
        char cwd[PATH_MAX];
        char *abs = NULL;

        if (path[0] == '/')
                return strdup(path);
        if (!getcwd(cwd, sizeof(cwd)) || asprintf(&abs, "%s/%s", cwd, path) < 0)
                return NULL;
        return abs;
}

int interp_resolve(const char *spec, char **path, struct sbx_err *err)
{
        char name[64];

        if (!spec)
                spec = DEFAULT_PYTHON;
        if (strchr(spec, '/')) {
                if (access(spec, X_OK) < 0)
                        return sbx_fail(err, errno, "--python %s", spec);
                *path = absolute(spec);
                return *path ? 0 : sbx_fail_oom(err, "--python");
        }
        if (is_version(spec)) {
                *path = uv_find(spec);
                if (*path)
                        return 0;
                snprintf(name, sizeof(name), "python%s", spec);
                *path = proc_find_exe(name, NULL);
                if (*path)
                        return 0;
                return sbx_fail(err, 0, "--python %s: not found (tried `uv python "
                                "find %s` and %s on PATH)", spec, spec, name);
        }
        *path = proc_find_exe(spec, NULL);
        if (*path)
                return 0;
        return sbx_fail(err, 0, "--python %s: no such executable on PATH", spec);
}

static const char query_code[] =
        "import sys;print(sys.executable);print(sys.prefix);"
        "print(sys.base_prefix);print(sys.version.replace('\\n',' '))";

static char *next_line(char **cursor)
{
        char *line = *cursor;
        char *nl = line ? strchr(line, '\n') : NULL;

        if (!nl)
                return NULL;
        *nl = '\0';
        *cursor = nl + 1;
        return strdup(line);
}

static int query_interpreter(const char *path, struct interp_info *info,
                             struct sbx_err *err)
{
        char *argv[] = { (char *)path, "-I", "-c", (char *)query_code, NULL };
        struct run_output out;
        int status;

        memset(info, 0, sizeof(*info));
        status = proc_capture(argv, NULL, &out, QUERY_MAX_BYTES, err);
        if (status < 0)
                return -1;
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
                sbx_fail(err, 0, "interpreter %s does not run: %.300s", path,
                         out.tail);
                free(out.data);
                return -1;
        }
        char *cursor = out.data;
        info->exe = next_line(&cursor);
        info->prefix = next_line(&cursor);
        info->base_prefix = next_line(&cursor);
        info->version = next_line(&cursor);
        free(out.data);
        if (!info->version || info->exe[0] != '/' || info->prefix[0] != '/') {
                interp_info_free(info);
                return sbx_fail(err, 0, "interpreter %s: unexpected answer to "
                                "the sys.prefix query", path);
        }
        return 0;
}

int interp_query(const char *path, struct interp_info *info, struct sbx_err *err)
{
        struct interp_cache cache;

        if (interp_cache_open(path, &cache) < 0)
                return query_interpreter(path, info, err);
        if (interp_cache_load(&cache, info)) {
                interp_cache_close(&cache);
                return 0;
        }
        int rc = query_interpreter(path, info, err);
        if (rc == 0)
                interp_cache_store(&cache, info);
        interp_cache_close(&cache);
        return rc;
}

char *interp_install_root(const char *binary)
{
        char *copy = strdup(binary);
        char *root;

        if (!copy)
                return NULL;
        char *dir = dirname(copy);
        size_t n = strlen(dir);
        if (n >= 4 && strcmp(dir + n - 4, "/bin") == 0)
                dir[n - 4] = '\0';
        root = strdup(dir[0] ? dir : "/");
        free(copy);
        return root;
}

static int add_root(struct strvec *binds, const char *binary)
{
        auto_free char *root = interp_install_root(binary);

        if (!root)
                return -1;
        if (path_is_system(root))
                return 0;
        return strvec_push(binds, root);
}

/* dir part through realpath (resolving "..", "." and directory symlinks),
 * last component kept: a binary reached as a/../b/py becomes /real/b/py. */
int interp_canon_dir(char *path, size_t size)
{
        char dir[PATH_MAX];
        char *slash = strrchr(path, '/');

        if (!slash || slash == path)
                return 0;
        *slash = '\0';
        char *real = realpath(path, NULL);
        *slash = '/';
        if (!real)
                return -1;
        int n = snprintf(dir, sizeof(dir), "%s%s", strcmp(real, "/") ? real : "", slash);
        free(real);
        if (n < 0 || (size_t)n >= sizeof(dir) || (size_t)n >= size)
                return -1;
        memcpy(path, dir, (size_t)n + 1);
        return 0;
}

int interp_chain_binds(const char *path, struct strvec *binds)
{
        char cur[PATH_MAX], target[PATH_MAX];
        struct stat st;

        if (snprintf(cur, sizeof(cur), "%s", path) >= (int)sizeof(cur))
                return -1;
        /* the path as given (an alias directory is bound at its own name) */
        if (add_root(binds, cur) < 0)
                return -1;
        for (int hop = 0; hop < SYMLINK_HOPS_MAX; hop++) {
                if (interp_canon_dir(cur, sizeof(cur)) < 0 || add_root(binds, cur) < 0)
                        return -1;
                if (lstat(cur, &st) < 0 || !S_ISLNK(st.st_mode))
                        break;
                ssize_t n = readlink(cur, target, sizeof(target) - 1);
                if (n < 0)
                        break;
                target[n] = '\0';
                if (target[0] == '/') {
                        memcpy(cur, target, (size_t)n + 1);
                        continue;
                }
                char *slash = strrchr(cur, '/');
                slash[1] = '\0';
                if (strlen(cur) + (size_t)n >= sizeof(cur))
                        return -1;
                strcat(cur, target);
        }
        auto_free char *real = realpath(path, NULL);
        return real ? add_root(binds, real) : 0;
}

void binds_normalize(struct strvec *binds)
{
        size_t kept = 0;

        if (binds->len == 0)
                return;
        qsort(binds->items, binds->len, sizeof(char *), sbx_cmp_str);
        for (size_t i = 0; i < binds->len; i++) {
                bool covered = false;
                /* all kept entries: "/a/b-c" sorts between "/a/b" and "/a/b/c" */
                for (size_t k = 0; k < kept && !covered; k++)
                        covered = path_under(binds->items[i], binds->items[k]);
                if (covered) {
                        free(binds->items[i]);
                        continue;
                }
                binds->items[kept++] = binds->items[i];
        }
        binds->len = kept;
        binds->items[kept] = NULL;
}
