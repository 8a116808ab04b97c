/* The session's scratch root (0700, made on first use, removed at close)
 * and the private workdirs made in it; a workdir path made nowhere for a
 * tier that copies the run's file in itself. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sandbox_impl.h"
#include "util.h"

static const char *tmp_dir(void)
{
        const char *tmp = getenv("TMPDIR");

        return tmp && tmp[0] == '/' ? tmp : "/tmp";
}

/* The session's 0700 scratch root, on first use: a --workdir run (its
 * seccomp program in a memfd) makes none, a --file run only this one
 * (sandbox_sole_workdir). Every inode made on the host's /tmp costs CPU
 * (docs/performance.md, "The workdir's inodes"). */
int sandbox_make_scratch(struct sandbox *sb, struct sbx_err *err)
{
        if (sb->scratch)
                return 0;
        if (asprintf(&sb->scratch, "%s/sbx-run-XXXXXX", tmp_dir()) < 0) {
                sb->scratch = NULL;
                return sbx_fail_oom(err, "scratch");
        }
        if (!mkdtemp(sb->scratch)) {
                int e = errno;
                free(sb->scratch);
                sb->scratch = NULL;
                return sbx_fail_code(err, SBX_EXIT_SANDBOX, e, "mkdtemp in %s", tmp_dir());
        }
        return 0;
}

char *sandbox_mkdtemp(struct sandbox *sb, struct sbx_err *err)
{
        char *path = NULL;

        if (sb->scratch_is_workdir) {
                sbx_fail_code(err, SBX_EXIT_SANDBOX, EBUSY, "workdir: the scratch root is a run's");
                return NULL;
        }
        if (sandbox_make_scratch(sb, err) < 0)
                return NULL;
        sb->scratch_used = true;
        if (asprintf(&path, "%s/%u", sb->scratch, sb->scratch_seq++) < 0) {
                sbx_fail_oom(err, "workdir");
                return NULL;
        }
        if (mkdir(path, 0700) < 0) {
                sbx_fail_code(err, SBX_EXIT_SANDBOX, errno, "mkdir %s", path);
                free(path);
                return NULL;
        }
        return path;
}

void sandbox_rmdtemp(const char *dir, const char *name)
{
        char path[4096];

        if (name && snprintf(path, sizeof(path), "%s/%s", dir, name) < (int)sizeof(path) &&
            unlink(path) < 0 && errno != ENOENT)
                name = NULL;    /* not removable alone: the walk's turn */
        if (!name || rmdir(dir) < 0)
                sbx_rm_tree(dir);
}

char *sandbox_sole_workdir(struct sandbox *sb, struct sbx_err *err)
{
        char *path;

        if (sb->scratch_used || sb->scratch_is_workdir)
                return sandbox_mkdtemp(sb, err);
        if (sandbox_make_scratch(sb, err) < 0)
                return NULL;
        if (!(path = strdup(sb->scratch))) {
                sbx_fail_oom(err, "workdir");
                return NULL;
        }
        sb->scratch_used = sb->scratch_is_workdir = true;
        return path;
}

/* Named as a scratch root would be; nothing is made: bwrap mounts the
 * run's tmpfs there, in the sandbox's own /tmp. */
char *sandbox_inner_workdir(struct sbx_err *err)
{
        static const char set[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
        unsigned char rnd[6];
        char name[sizeof(rnd) + 1], *path;

        if (getrandom(rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd)) {
                sbx_fail_code(err, SBX_EXIT_SANDBOX, errno, "getrandom");
                return NULL;
        }
        for (size_t i = 0; i < sizeof(rnd); i++)
                name[i] = set[rnd[i] % (sizeof(set) - 1)];
        name[sizeof(rnd)] = '\0';
        if (asprintf(&path, "%s/sbx-run-%s", tmp_dir(), name) < 0) {
                sbx_fail_oom(err, "workdir");
                return NULL;
        }
        return path;
}
