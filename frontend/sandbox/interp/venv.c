#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "argv.h"
#include "proc.h"
#include "util.h"
#include "venv.h"

#define STAMP_MAX_BYTES   (1 << 20)
#define BUILD_OUTPUT_MAX  (256 << 10)

extern char **environ;

uint64_t venv_hash(const void *data, size_t len)
{
        const unsigned char *p = data;
        uint64_t h = 0xcbf29ce484222325ULL;

        for (size_t i = 0; i < len; i++) {
                h ^= p[i];
                h *= 0x100000001b3ULL;
        }
        return h;
}

bool venv_name_valid(const char *name)
{
        if (!name[0] || name[0] == '.' || strlen(name) > 128)
                return false;
        for (const char *c = name; *c; c++)
                if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
                      (*c >= '0' && *c <= '9') || *c == '.' || *c == '_' ||
                      *c == '-'))
                        return false;
        return true;
}

char *venv_stamp_text(const char *base_python, const char *version,
                      const char *const *packages,
                      const uint64_t *provision_hashes, size_t n_provision)
{
        size_t n = 0;
        char *text = NULL;
        size_t len = 0;
        FILE *fp = open_memstream(&text, &len);

        if (!fp)
                return NULL;
        while (packages && packages[n])
                n++;
        const char **sorted = calloc(n + 1, sizeof(*sorted));
        if (sorted && n) {       /* memcpy from NULL is undefined even for 0 bytes */
                memcpy(sorted, packages, n * sizeof(*sorted));
                qsort(sorted, n, sizeof(*sorted), sbx_cmp_str);
        }
        fprintf(fp, "sbx-venv-stamp 1\npython %s\nversion %s\n", base_python,
                version);
        for (size_t i = 0; sorted && i < n; i++)
                if (i == 0 || strcmp(sorted[i], sorted[i - 1]) != 0)
                        fprintf(fp, "package %s\n", sorted[i]);
        for (size_t i = 0; i < n_provision; i++)
                fprintf(fp, "provision %016llx\n",
                        (unsigned long long)provision_hashes[i]);
        bool bad = !sorted || ferror(fp);
        free(sorted);
        if (fclose(fp) != 0 || bad) {
                free(text);
                return NULL;
        }
        return text;
}

char *venv_cache_root(void)
{
        const char *env[] = { "SBX_CACHE", "LLAMA_EVAL_CACHE" };
        const char *home = getenv("HOME");
        char *root = NULL;

        for (size_t i = 0; i < 2; i++) {
                const char *v = getenv(env[i]);
                if (v && v[0])
                        return strdup(v);
        }
        if (asprintf(&root, "%s/.cache/sbx", home && home[0] ? home : "/tmp") < 0)
                return NULL;
        return root;
}

static int mkdir_p(const char *path, struct sbx_err *err)
{
        if (sbx_mkdir_p(path) < 0)
                return sbx_fail_code(err, SBX_EXIT_SANDBOX, errno, "mkdir %s", path);
        return 0;
}

static char *read_small_file(const char *path, size_t max, size_t *len_out)
{
        auto_fd fd = open(path, O_RDONLY | O_CLOEXEC);
        size_t len = 0;
        char *buf;

        if (fd < 0 || !(buf = malloc(max + 1)))
                return NULL;
        for (;;) {
                ssize_t n = read(fd, buf + len, max - len);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0) {
                        free(buf);
                        return NULL;
                }
                len += (size_t)n;
                if (n == 0 || len == max)
                        break;
        }
        buf[len] = '\0';
        if (len_out)
                *len_out = len;
        return buf;
}

static bool stamp_matches(const char *stamp_path, const char *expected)
{
        auto_free char *have = read_small_file(stamp_path, STAMP_MAX_BYTES, NULL);

        return have && strcmp(have, expected) == 0;
}

/* Runs one build step, unsandboxed as the user; a failure quotes the tail
 * of its output. */
static int build_step(char *const *argv, char *const *envp, const char *what,
                      struct sbx_err *err)
{
        struct run_output out;
        int status = proc_capture(argv, envp, &out, BUILD_OUTPUT_MAX, err);
        int rc = 0;

        if (status < 0)
                return -1;
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
                size_t off = out.tail_len > VENV_ERROR_TAIL ?
                             out.tail_len - VENV_ERROR_TAIL : 0;
                rc = sbx_fail_code(err, SBX_EXIT_SANDBOX, 0, "%s failed (exit %d):\n%s",
                                   what, WIFEXITED(status) ? WEXITSTATUS(status) : -1,
                                   out.tail + off);
        }
        free(out.data);
        return rc;
}

static int create_venv(const struct venv_request *rq, const char *dir,
                       const char *uv, struct sbx_err *err)
{
        bool pip = rq->packages && rq->packages[0];

        if (uv) {
                char *argv[] = { (char *)uv, "venv", "--quiet", "--python",
                                 (char *)rq->base_python, (char *)dir, NULL };
                return build_step(argv, NULL, "uv venv", err);
        }
        char *argv[] = { (char *)rq->base_python, "-m", "venv",
                         pip ? (char *)dir : "--without-pip",
                         pip ? NULL : (char *)dir, NULL };
        return build_step(argv, NULL, "python -m venv", err);
}

static int install_packages(const struct venv_request *rq, const char *dir,
                            const char *uv, struct sbx_err *err)
{
        struct strvec argv = { 0 };
        auto_free char *py = NULL;
        int rc;

        if (!rq->packages || !rq->packages[0])
                return 0;
        if (asprintf(&py, "%s/bin/python", dir) < 0)
                return sbx_fail_oom(err, "venv");
        /* pip's own PIP_* environment (PIP_FIND_LINKS, PIP_NO_INDEX...) and
         * uv's UV_* pass through: this step runs with the caller's env. */
        if (uv)
                rc = strvec_extend(&argv, (const char *[]){ uv, "pip", "install",
                                   "--python", py, NULL });
        else
                rc = strvec_extend(&argv, (const char *[]){ py, "-m", "pip",
                                   "install", "--disable-pip-version-check",
                                   "--no-input", NULL });
        rc |= strvec_extend(&argv, rq->packages);
        if (rc == 0)
                rc = build_step(argv.items, NULL, "installing packages", err);
        else
                rc = sbx_fail_oom(err, "venv");
        strvec_free(&argv);
        return rc;
}

static int run_provision(const struct venv_request *rq, const char *dir,
                         struct sbx_err *err)
{
        struct strvec env = { 0 };
        auto_free char *py = NULL;
        int rc = 0;

        if (asprintf(&py, "%s/bin/python", dir) < 0 ||
            strvec_extend(&env, (const char *const *)environ) < 0 ||
            strvec_pushf(&env, "SANDBOX_VENV=%s", dir) < 0) {
                strvec_free(&env);
                return sbx_fail_oom(err, "venv");
        }
        for (const char *const *f = rq->provision; rc == 0 && f && *f; f++) {
                char what[512];
                char *argv[] = { py, (char *)*f, NULL };
                snprintf(what, sizeof(what), "provisioning step %s", *f);
                rc = build_step(argv, env.items, what, err);
        }
        strvec_free(&env);
        return rc;
}

static int write_stamp(const char *dir, const char *text, struct sbx_err *err)
{
        char tmp[4096], final[4096];

        snprintf(tmp, sizeof(tmp), "%s/%s.tmp", dir, VENV_STAMP_NAME);
        snprintf(final, sizeof(final), "%s/%s", dir, VENV_STAMP_NAME);
        auto_fd fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (fd < 0)
                return sbx_fail_code(err, SBX_EXIT_SANDBOX, errno, "%s", tmp);
        size_t len = strlen(text);
        if (sbx_write_all(fd, text, len) < 0 || fsync(fd) < 0)
                return sbx_fail_code(err, SBX_EXIT_SANDBOX, errno, "writing %s", tmp);
        /* the stamp appears last and atomically: a crash before this line
         * leaves an unstamped venv, which the next run rebuilds */
        if (rename(tmp, final) < 0)
                return sbx_fail_code(err, SBX_EXIT_SANDBOX, errno, "rename %s", final);
        return 0;
}

static int build(const struct venv_request *rq, const char *dir,
                 const char *stamp, struct sbx_err *err)
{
        auto_free char *uv = proc_find_exe("uv", NULL);
        char *note;

        if (!rq->quiet && rq->warn &&
            asprintf(&note, "building venv %s in %s (unsandboxed, as you)", rq->name, dir) >= 0) {
                rq->warn(note, rq->warn_ctx);
                free(note);
        }
        if (sbx_rm_tree(dir) < 0)
                return sbx_fail_code(err, SBX_EXIT_SANDBOX, errno, "removing old venv %s", dir);
        if (create_venv(rq, dir, uv, err) < 0 ||
            install_packages(rq, dir, uv, err) < 0 ||
            run_provision(rq, dir, err) < 0)
                return -1;
        return write_stamp(dir, stamp, err);
}

static int provision_hashes(const struct venv_request *rq, uint64_t **out,
                            size_t *n, struct sbx_err *err)
{
        *n = 0;
        while (rq->provision && rq->provision[*n])
                (*n)++;
        *out = calloc(*n + 1, sizeof(**out));
        if (!*out)
                return sbx_fail_oom(err, "venv");
        for (size_t i = 0; i < *n; i++) {
                size_t len;
                auto_free char *text = read_small_file(rq->provision[i],
                                                       STAMP_MAX_BYTES * 16, &len);
                if (!text)
                        return sbx_fail(err, errno, "--provision %s", rq->provision[i]);
                (*out)[i] = venv_hash(text, len);
        }
        return 0;
}

/* Two sbx-runs needing the same venv: one builds, the other waits on the
 * lock and then finds the stamp. */
static int build_locked(const struct venv_request *rq, const char *root,
                        const char *dir, const char *stamp_path, const char *stamp,
                        struct sbx_err *err)
{
        auto_free char *lock_path = NULL;

        if (mkdir_p(root, err) < 0)
                return -1;
        if (asprintf(&lock_path, "%s/.%s.lock", root, rq->name) < 0)
                return sbx_fail_oom(err, "venv");
        auto_fd lock = open(lock_path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
        if (lock < 0)
                return sbx_fail_code(err, SBX_EXIT_SANDBOX, errno, "%s", lock_path);
        while (flock(lock, LOCK_EX) < 0)
                if (errno != EINTR)
                        return sbx_fail_code(err, SBX_EXIT_SANDBOX, errno, "flock %s",
                                             lock_path);
        if (!rq->rebuild && stamp_matches(stamp_path, stamp))
                return 0;       /* another sbx-run built it while we waited */
        return build(rq, dir, stamp, err);
}

int venv_ensure(const struct venv_request *rq, char **dir_out, struct sbx_err *err)
{
        auto_free char *root = venv_cache_root();
        auto_free char *dir = NULL, *stamp_path = NULL, *stamp = NULL;
        auto_free uint64_t *hashes = NULL;
        size_t n_hashes;

        if (!venv_name_valid(rq->name))
                return sbx_fail(err, 0, "--venv %s: use letters, digits, '.', '_', '-'",
                                rq->name);
        if (!root || asprintf(&dir, "%s/%s", root, rq->name) < 0 ||
            asprintf(&stamp_path, "%s/%s", dir, VENV_STAMP_NAME) < 0)
                return sbx_fail_oom(err, "venv");
        if (provision_hashes(rq, &hashes, &n_hashes, err) < 0)
                return -1;
        stamp = venv_stamp_text(rq->base_python, rq->base_version, rq->packages,
                                hashes, n_hashes);
        if (!stamp)
                return sbx_fail_oom(err, "venv stamp");
        if (rq->rebuild || !stamp_matches(stamp_path, stamp))
                if (build_locked(rq, root, dir, stamp_path, stamp, err) < 0)
                        return -1;
        *dir_out = dir;
        dir = NULL;
        return 0;
}
