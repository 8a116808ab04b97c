/* A language's toolchain on this host: found on the tool search path, its
 * real path (and, outside the system directories, the install root the
 * sandbox must bind), and its version line, read by running it
 * unsandboxed: a system binary with fixed arguments and a clean
 * environment, as interp.c queries an interpreter. */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "interp.h"             /* path_is_system */
#include "lang.h"
#include "proc.h"
#include "sha256.h"

#define VERSION_OUTPUT_MAX 65536

void lang_tool_free(struct lang_tool *tool)
{
        free(tool->path);
        free(tool->real);
        free(tool->root);
        free(tool->version);
        memset(tool, 0, sizeof(*tool));
}

/* Two levels above bin/NAME: /opt/jdk-17/bin/java -> /opt/jdk-17. */
static char *install_root(const char *real)
{
        auto_free char *copy = strdup(real);

        if (!copy)
                return NULL;
        return strdup(dirname(dirname(copy)));
}

/* The environment of the version query: none of the caller's (a
 * JAVA_TOOL_OPTIONS would put its own line first), the row's compile (or
 * run) environment with a home that is not there. */
static int version_env(const struct lang_row *row, struct strvec *env, struct sbx_err *err)
{
        if (strvec_push(env, "PATH=" LANG_DEFAULT_TOOL_PATH) < 0 ||
            strvec_push(env, "LC_ALL=C") < 0)
                return sbx_fail_oom(err, "environment");
        return lang_env_expand(row, row->compile_tool != NULL, "/nonexistent", env, err);
}

static int read_version(const struct lang_row *row, struct lang_tool *tool,
                        struct sbx_err *err)
{
        struct lang_argv_vars vars = { .tool = tool->path, .run_tool = tool->path,
                                       .memory_bytes = -1 };
        struct strvec argv = { 0 }, env = { 0 };
        struct run_output out = { 0 };
        int status = -1;

        if (lang_argv_expand_list(row, row->version_argv, &vars, &argv, err) == 0 &&
            version_env(row, &env, err) == 0)
                status = proc_capture(argv.items, env.items, &out, VERSION_OUTPUT_MAX, err);
        strvec_free(&argv);
        strvec_free(&env);
        if (status < 0) {
                free(out.data);
                return sbx_err_wrap(err, "language %s: ", row->name);
        }
        if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
                tool->version = lang_version_parse(out.data, out.len);
        free(out.data);
        if (!tool->version)
                return sbx_fail_code(err, SBX_EXIT_SANDBOX, 0,
                                     "language %s: %s tells no version (%s exited %d)",
                                     row->name, tool->path, row->version_argv[1],
                                     WIFEXITED(status) ? WEXITSTATUS(status) : -1);
        return 0;
}

/* The version line kept for a tool: memo_dir/<sha256 of its real path>
 * holds "<dev> <ino> <size> <mtime ns> <ctime ns>\n<version>": a package
 * update replaces the file (a new inode and ctime), and the line is read
 * again. Reading javac's takes half a second; a --file run pays it once. */
static void memo_path(const char *memo_dir, const char *real, char *buf, size_t len)
{
        struct sha256 h;
        char hex[SHA256_HEX_LEN + 1];

        sha256_init(&h);
        sha256_update(&h, real, strlen(real));
        sha256_hex(&h, hex);
        snprintf(buf, len, "%s/%s", memo_dir, hex);
}

static void memo_stamp(const struct stat *st, char *buf, size_t len)
{
        snprintf(buf, len, "%llu %llu %lld %lld.%09ld %lld.%09ld\n",
                 (unsigned long long)st->st_dev, (unsigned long long)st->st_ino,
                 (long long)st->st_size, (long long)st->st_mtim.tv_sec, st->st_mtim.tv_nsec,
                 (long long)st->st_ctim.tv_sec, st->st_ctim.tv_nsec);
}

static char *memo_read(const char *memo_dir, const char *real)
{
        char path[PATH_MAX], stamp[160], buf[LANG_VERSION_MAX + 200];
        struct stat st, mst;
        auto_fd fd = -1;
        ssize_t n;

        if (!memo_dir || stat(real, &st) < 0)
                return NULL;
        memo_path(memo_dir, real, path, sizeof(path));
        memo_stamp(&st, stamp, sizeof(stamp));
        fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0 || fstat(fd, &mst) < 0 || !S_ISREG(mst.st_mode) || mst.st_uid != getuid() ||
            (n = read(fd, buf, sizeof(buf) - 1)) <= 0)
                return NULL;
        buf[n] = '\0';
        size_t sl = strlen(stamp);
        if (strncmp(buf, stamp, sl))
                return NULL;
        return lang_version_parse(buf + sl, (size_t)n - sl);
}

/* Best effort: a memo not written is a version read again next time. */
static void memo_write(const char *memo_dir, const char *real, const char *version)
{
        char path[PATH_MAX], tmp[PATH_MAX + 16], stamp[160];
        struct stat st;

        if (!memo_dir || stat(real, &st) < 0)
                return;
        memo_path(memo_dir, real, path, sizeof(path));
        memo_stamp(&st, stamp, sizeof(stamp));
        snprintf(tmp, sizeof(tmp), "%s.%d", path, (int)getpid());
        auto_fd fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (fd < 0)
                return;
        if (sbx_write_all(fd, stamp, strlen(stamp)) < 0 ||
            sbx_write_all(fd, version, strlen(version)) < 0 || rename(tmp, path) < 0)
                unlink(tmp);
}

int lang_tool_find(const struct lang_row *row, const char *name,
                   const char *search_path, struct lang_tool *tool,
                   struct sbx_err *err)
{
        return lang_tool_resolve_memo(row, name, search_path, NULL, false, tool, err);
}

int lang_tool_resolve(const struct lang_row *row, const char *name,
                      const char *search_path, struct lang_tool *tool,
                      struct sbx_err *err)
{
        return lang_tool_resolve_memo(row, name, search_path, NULL, true, tool, err);
}

int lang_tool_resolve_memo(const struct lang_row *row, const char *name,
                           const char *search_path, const char *memo_dir, bool version,
                           struct lang_tool *tool, struct sbx_err *err)
{
        memset(tool, 0, sizeof(*tool));
        if (!search_path)
                search_path = LANG_DEFAULT_TOOL_PATH;
        tool->path = proc_find_exe(name, search_path);
        if (!tool->path)
                return sbx_fail_code(err, SBX_EXIT_SANDBOX, 0,
                                     "language %s: no %s on %s (install its toolchain: "
                                     "apt-get install %s; docs/languages.md)", row->name,
                                     name, search_path, row->package ? row->package : name);
        tool->real = realpath(tool->path, NULL);
        if (!tool->real) {
                sbx_fail_code(err, SBX_EXIT_SANDBOX, errno, "language %s: %s",
                              row->name, tool->path);
                lang_tool_free(tool);
                return -1;
        }
        if (row->bind_tool_root && !path_is_system(tool->real) &&
            !(tool->root = install_root(tool->real))) {
                lang_tool_free(tool);
                return sbx_fail_oom(err, "language %s", row->name);
        }
        if (!version || !row->version_argv)
                return 0;
        if ((tool->version = memo_read(memo_dir, tool->real)))
                return 0;
        if (read_version(row, tool, err) < 0) {
                lang_tool_free(tool);
                return -1;
        }
        memo_write(memo_dir, tool->real, tool->version);
        return 0;
}
