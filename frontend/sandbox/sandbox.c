/* The session: resolve the interpreter and venv once, compute binds, env
 * and each tier's argv prefix once (tier_choose.c then picks the tier). Runs
 * (run.c) only reuse what is here. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "interp.h"
#include "proc.h"
#include "run_init_fd.h"
#include "sandbox_impl.h"
#include "seccomp_bpf.h"
#include "warm.h"
#include "sysdirs.h"
#include "trace.h"
#include "util.h"
#include "venv.h"


static const char *const base_env[] = {
        "PATH=/usr/bin:/bin", "LC_ALL=C.UTF-8", "PYTHONHASHSEED=0",
        "PYTHONDONTWRITEBYTECODE=1", "OPENBLAS_NUM_THREADS=1",
        "OMP_NUM_THREADS=1", NULL,
};

static int build_env(struct sandbox *sb, struct sbx_err *err)
{
        if (strvec_extend(&sb->env, base_env) < 0)
                return sbx_fail_oom(err, "env");
        for (const char *const *e = sb->opts.env; e && *e; e++) {
                if (!strchr(*e, '=') || **e == '=')
                        return sbx_fail(err, 0, "--env %s: expected NAME=VALUE", *e);
                char *x = env_expand_venv(*e, sb->venv_dir);
                if (!x || strvec_push(&sb->env, x) < 0) {
                        free(x);
                        return sbx_fail_oom(err, "env");
                }
                free(x);
        }
        return 0;
}

/* Binds as real paths, which the helper demands (see canon_python); a vanished path is dropped. */
static int canon_binds(struct strvec *binds)
{
        for (size_t i = 0; i < binds->len; i++) {
                char *real = realpath(binds->items[i], NULL);
                if (!real)
                        continue;
                free(binds->items[i]);
                binds->items[i] = real;
        }
        return 0;
}

/* a is b, or an ancestor of it */
static bool path_covers(const char *a, const char *b)
{
        size_t n = strlen(a);

        if (strcmp(a, "/") == 0)
                return true;
        return strncmp(a, b, n) == 0 && (b[n] == '\0' || b[n] == '/');
}

/* A directory bound read-only still lets the program connect to the
 * sockets in it and read every secret: never the caller's home or runtime
 * directory (ssh-agent, D-Bus, gpg-agent) whole, nor what holds them. */
static int refuse_private_dirs(const struct strvec *binds, struct sbx_err *err)
{
        char runtime[64];
        const char *home_env = getenv("HOME");
        auto_free char *home = home_env && home_env[0] == '/' ? realpath(home_env, NULL) : NULL;
        auto_free char *run = NULL;
        const char *dirs[2];

        snprintf(runtime, sizeof(runtime), "/run/user/%u", (unsigned)getuid());
        run = realpath(runtime, NULL);
        dirs[0] = home;
        dirs[1] = run;
        for (size_t i = 0; i < binds->len; i++)
                for (size_t d = 0; d < 2; d++)
                        if (dirs[d] && (path_covers(binds->items[i], dirs[d]) ||
                                        (d == 1 && path_covers(dirs[d], binds->items[i]))))
                                return sbx_fail(err, 0, "refusing to bind %s into the sandbox: it %s "
                                                "%s, whose sockets and files the program could reach "
                                                "(bind a directory of its own: for an interpreter, "
                                                "one installed in its own prefix, or --venv)",
                                                binds->items[i], d == 0 ? "is or holds your home directory" :
                                                "is in or holds your runtime directory", dirs[d]);
        return 0;
}

static int build_binds(struct sandbox *sb, const struct interp_info *info,
                       struct sbx_err *err)
{
        int rc = interp_chain_binds(sb->python, &sb->binds);

        if (sb->venv_dir && strcmp(sb->python, info->exe) != 0)
                rc |= interp_chain_binds(info->exe, &sb->binds);
        if (!path_is_system(info->prefix))
                rc |= strvec_push(&sb->binds, info->prefix);
        if (info->base_prefix && !path_is_system(info->base_prefix))
                rc |= strvec_push(&sb->binds, info->base_prefix);
        if (sb->venv_dir)
                rc |= strvec_push(&sb->binds, sb->venv_dir);
        for (const char *const *b = sb->opts.ro_binds; b && *b; b++) {
                if ((*b)[0] != '/')
                        return sbx_fail(err, 0, "--ro-bind %s: must be absolute", *b);
                struct stat st;
                if (stat(*b, &st) < 0)
                        return sbx_fail(err, errno, "--ro-bind %s", *b);
                /* as the helper refuses them: a read-only bind leaves a
                 * socket connectable and a FIFO or device writable */
                if (!S_ISDIR(st.st_mode) && !S_ISREG(st.st_mode))
                        return sbx_fail(err, 0, "--ro-bind %s: not a regular file or directory "
                                        "(a socket, FIFO or device would stay usable read-only)", *b);
                rc |= strvec_push(&sb->binds, *b);
        }
        if (rc)
                return sbx_fail_oom(err, "binds");
        canon_binds(&sb->binds);
        binds_normalize(&sb->binds);
        return refuse_private_dirs(&sb->binds, err);
}

/* The helper binds only paths reached without symlinks (O_NOFOLLOW on
 * every component), so the interpreter is exec'd through its real
 * directory; its own last link stays, and so does venv detection. */
static int canon_python(struct sandbox *sb, struct sbx_err *err)
{
        char path[PATH_MAX];

        if (!sb->python)
                return sbx_fail_oom(err, "python");
        if (snprintf(path, sizeof(path), "%s", sb->python) >= (int)sizeof(path) ||
            interp_canon_dir(path, sizeof(path)) < 0)
                return sbx_fail(err, errno, "interpreter %s", sb->python);
        free(sb->python);
        sb->python = strdup(path);
        return sb->python ? 0 : sbx_fail_oom(err, "python");
}

/* Interpreter, venv, env, binds: everything the runs share. */
static int resolve_python(struct sandbox *sb, struct sbx_err *err)
{
        struct interp_info info;
        auto_free char *spec_path = NULL;

        if (interp_resolve(sb->opts.python, &spec_path, err) < 0 ||
            interp_query(spec_path, &info, err) < 0)
                return -1;
        /* sys.executable: a pyenv shim script resolves to the real binary */
        sb->base_python = strdup(info.exe);
        sb->base_version = strdup(info.version);
        int rc = -1;
        if (!sb->base_python || !sb->base_version) {
                sbx_fail_oom(err, "python");
                goto out;
        }
        if (sb->opts.venv_name) {
                struct venv_request rq = {
                        .name = sb->opts.venv_name, .base_python = sb->base_python,
                        .base_version = sb->base_version, .packages = sb->opts.packages,
                        .provision = sb->opts.provision, .rebuild = sb->opts.rebuild,
                        .quiet = sb->opts.quiet, .warn = sb->opts.warn,
                        .warn_ctx = sb->opts.warn_ctx,
                };
                if (venv_ensure(&rq, &sb->venv_dir, err) < 0)
                        goto out;
                if (asprintf(&sb->python, "%s/bin/python", sb->venv_dir) < 0) {
                        sb->python = NULL;
                        sbx_fail_oom(err, "python");
                        goto out;
                }
        } else {
                sb->python = strdup(sb->base_python);
        }
        if (canon_python(sb, err) == 0 && build_env(sb, err) == 0 &&
            build_binds(sb, &info, err) == 0)
                rc = 0;
out:
        interp_info_free(&info);
        return rc;
}

/* Only the tier about to be used is looked up: the helper tier searches
 * PATH for neither bwrap nor unshare. */
static char *find_tool(const struct tier_ops *o)
{
        const char *env = o->tool_env ? getenv(o->tool_env) : NULL;

        if (o->tool_path)
                return strdup(env && env[0] ? env : o->tool_path);
        return o->tool ? proc_find_exe(o->tool, NULL) : NULL;
}

static int make_scratch(struct sandbox *sb, struct sbx_err *err);

/* A file that no other process can reach (the BPF program, sbx-run-init):
 * a memfd, else (a host filter may deny memfd_create) an unlinked file in
 * our 0700 scratch directory, which is made only then. */
static int private_file(struct sandbox *sb, const char *name, char *why, size_t len)
{
        char path[PATH_MAX];
        struct sbx_err err = { 0 };
        int fd = memfd_create(name, MFD_CLOEXEC);

        if (fd >= 0)
                return fd;
        snprintf(why, len, "memfd_create: %s", strerror(errno));
        if (make_scratch(sb, &err) < 0) {
                snprintf(why + strlen(why), len - strlen(why), "; %s", err.msg);
                return -1;
        }
        fd = open(sb->scratch, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
        if (fd >= 0)
                return fd;
        if (snprintf(path, sizeof(path), "%s/%s-XXXXXX", sb->scratch, name) >= (int)sizeof(path))
                return errno = ENAMETOOLONG, -1;
        sb->scratch_used = true;
        fd = mkostemp(path, O_CLOEXEC);
        if (fd >= 0 && unlink(path) < 0) {
                close(fd);
                fd = -1;
        }
        if (fd < 0)
                snprintf(why + strlen(why), len - strlen(why), "; an unlinked file in %s: %s",
                         sb->scratch, strerror(errno));
        return fd;
}

/* Each run opens the program afresh through /proc/self/fd, so that
 * concurrent bwraps do not share a file offset. Without it the bwrap tier
 * does not work (probe.c): it never runs unfiltered. */
static void export_seccomp(struct sandbox *sb)
{
        char why[512] = "";
        int fd = private_file(sb, "sbx-seccomp-bpf", why, sizeof(why));

        if (fd >= 0 && sbx_seccomp_write(fd) < 0) {
                snprintf(why, sizeof(why), "writing the seccomp program: %s", strerror(errno));
                close(fd);
                fd = -1;
        }
        sb->seccomp_fd = fd;
        if (fd < 0)
                sb->seccomp_why = strdup(why[0] ? why : "export failed");
}

/* sbx-run-init for the runs' pid 1 (tier_ops.runs_init), which every run
 * execs from the same file, read-only: a sealed memfd, else an unlinked
 * file of ours; without it the tier does not work. */
static void export_init(struct sandbox *sb)
{
        char why[512] = "";
        int fd = run_init_fd();

        if (fd < 0 && (fd = private_file(sb, "sbx-run-init", why, sizeof(why))) >= 0 &&
            (fchmod(fd, 0700) < 0 || run_init_write(fd) < 0)) {
                snprintf(why, sizeof(why), "writing sbx-run-init: %s", strerror(errno));
                close(fd);
                fd = -1;
        }
        if (fd >= 0 && (fd = run_init_read_only(fd)) < 0)
                snprintf(why, sizeof(why), "reopening sbx-run-init: %s", strerror(errno));
        sb->init_fd = fd;
        if (fd < 0)
                sb->init_why = strdup(why[0] ? why : "export failed");
}

static int build_root_dirs(struct host_dir *dirs, char links[][256], size_t *n)
{
        struct stat st;

        *n = 0;
        /* /usr and /etc: argv.c binds them first, whatever the host */
        for (const char *const *d = sbx_system_dirs + SBX_SYSTEM_DIRS_PLAIN; *d; d++) {
                if (lstat(*d, &st) < 0)
                        continue;
                struct host_dir *h = &dirs[(*n)++];
                h->path = *d;
                h->link_target = NULL;
                if (S_ISLNK(st.st_mode)) {
                        ssize_t len = readlink(*d, links[*n - 1], 255);
                        if (len < 0)
                                return -1;
                        links[*n - 1][len] = '\0';
                        h->link_target = links[*n - 1];
                }
        }
        return 0;
}

/* The session-wide argv of tier t (zp NULL), or the argv that starts a
 * warm suite's zygote in it. */
static int build_tier_argv(struct sandbox *sb, enum tier t, const struct zygote_params *zp,
                           struct strvec *out, struct sbx_err *err)
{
        const struct tier_ops *o = tier_ops(t);
        struct host_dir dirs[8];
        char links[8][256];
        size_t n_dirs = 0;

        if (o->needs_root_dirs && build_root_dirs(dirs, links, &n_dirs) < 0)
                return sbx_fail_code(err, SBX_EXIT_SANDBOX, errno, "readlink");
        struct tier_params p = {
                .tool = sb->tool[t] ? sb->tool[t] : "",
                .root_dirs = dirs, .n_root_dirs = n_dirs,
                .binds = (const char *const *)sb->binds.items,
                .memory_bytes = zp ? zp->memory_bytes : sb->opts.memory_bytes,
                .fsize_bytes = sb->opts.fsize_bytes,
                .tmpfs_bytes = DEFAULT_WORKDIR_BYTES,
                .seccomp = sb->seccomp_fd >= 0,
        };
        if (zp && !o->build_zygote)
                return sbx_fail(err, 0, "tier %s cannot start a zygote", o->name);
        if (zp ? o->build_zygote(&p, zp, out) < 0 : tier_build_prefix(t, &p, out) < 0)
                return sbx_fail_oom(err, "argv");
        return 0;
}

static int build_prefix(struct sandbox *sb, enum tier t, struct sbx_err *err)
{
        return build_tier_argv(sb, t, NULL, &sb->prefix[t], err);
}

int sandbox_zygote_argv(struct sandbox *sb, const struct zygote_params *zp,
                        struct strvec *out, struct sbx_err *err)
{
        if (!sb->tier || sandbox_tier_ready(sb, sb->tier->id, err) < 0)
                return sb->tier ? -1 : sbx_fail(err, 0, "no tier chosen");
        return build_tier_argv(sb, sb->tier->id, zp, out, err);
}

/* The rlimit tier's RLIMIT_NPROC counts all of the user's processes: put
 * the ceiling above what the user already runs. */
static long long count_user_processes(void)
{
        DIR *d = opendir("/proc");
        struct dirent *e;
        struct stat st;
        long long n = 0;

        if (!d)
                return 0;
        while ((e = readdir(d)))
                if (e->d_name[0] >= '1' && e->d_name[0] <= '9' &&
                    fstatat(dirfd(d), e->d_name, &st, 0) == 0 && st.st_uid == getuid())
                        n++;
        closedir(d);
        return n;
}

int sandbox_tier_ready(struct sandbox *sb, enum tier t, struct sbx_err *err)
{
        const struct tier_ops *o = tier_ops(t);

        if (sb->tier_ready[t])
                return 0;
        free(sb->tool[t]);      /* an earlier attempt that failed */
        strvec_free(&sb->prefix[t]);
        sb->tool[t] = find_tool(o);
        if (o->needs_seccomp && sb->tool[t])
                export_seccomp(sb);
        if (o->runs_init && sb->tool[t] && sb->init_fd < 0)
                export_init(sb);
        if (o->counts_nproc)
                sb->nproc_limit = count_user_processes() + NPROC_HEADROOM;
        if (build_prefix(sb, t, err) < 0)
                return -1;
        sb->tier_ready[t] = true;
        sbx_trace(tier_name(t));
        return 0;
}

/* fds 3 to 6 become the children's extra fds; keeping them taken in
 * sbx-run means no pipe of ours is ever created there and clobbered. */
static int reserve_low_fds(struct sandbox *sb, struct sbx_err *err)
{
        int fd;

        while ((fd = open("/dev/null", O_RDONLY | O_CLOEXEC)) >= 0 && fd <= CHILD_FD_INIT)
                ;
        if (fd < 0)
                return sbx_fail_code(err, SBX_EXIT_SANDBOX, errno, "/dev/null");
        sb->devnull_fd = fd;
        return 0;
}

static const char *tmp_dir(void)
{
        const char *tmp = getenv("TMPDIR");

        return tmp && tmp[0] == '/' ? tmp : "/tmp";
}

/* The session's 0700 scratch root, on first use: a --workdir run (its
 * seccomp program in a memfd) makes none, a --file run only this one
 * (sandbox_sole_workdir). Every inode made on the host's /tmp costs CPU
 * (docs/performance.md, "The workdir's inodes"). */
static int make_scratch(struct sandbox *sb, struct sbx_err *err)
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

/* The session's limits left 0 take their row's default (limit.c). */
static void apply_defaults(struct sandbox_opts *o)
{
        if (o->memory_bytes == 0)
                o->memory_bytes = limit_default(LIMIT_MEMORY);
        if (o->fsize_bytes == 0)
                o->fsize_bytes = limit_default(LIMIT_FSIZE);
        if (o->max_output_bytes == 0)
                o->max_output_bytes = (size_t)limit_default(LIMIT_MAX_OUTPUT);
}

int sandbox_prepare(struct sandbox **out, const struct sandbox_opts *opts,
                    struct sbx_err *err)
{
        struct sandbox *sb = calloc(1, sizeof(*sb));

        if (!sb)
                return sbx_fail_oom(err, "sandbox");
        sb->opts = *opts;
        apply_defaults(&sb->opts);
        sb->seccomp_fd = sb->init_fd = sb->devnull_fd = -1;
        /* orphans of the weak tiers re-parent to us, so we can kill them */
        if (prctl(PR_SET_CHILD_SUBREAPER, 1) < 0 ||
            reserve_low_fds(sb, err) < 0 || resolve_python(sb, err) < 0)
                goto fail;
        sbx_trace("interpreter, venv, binds");
        *out = sb;
        return 0;
fail:
        sandbox_close(sb);
        return -1;
}

void sandbox_close(struct sandbox *sb)
{
        if (!sb)
                return;
        bool warm = sb->warm != NULL;

        warm_pool_close(sb);
        /* the zygotes' helpers and inits end with the session: reaped
         * here, their CPU (every warm sample's) is counted as ours */
        if (warm && !sb->runs)
                proc_reap_ending(100);
        /* empty unless a run left something (its own cleanup failed) */
        if (sb->scratch && rmdir(sb->scratch) < 0)
                sbx_rm_tree(sb->scratch);
        for_each_tier(o) {
                free(sb->tool[o->id]);
                free(sb->tier_why[o->id]);
                strvec_free(&sb->prefix[o->id]);
        }
        strvec_free(&sb->binds);
        strvec_free(&sb->env);
        if (sb->seccomp_fd >= 0)
                close(sb->seccomp_fd);
        if (sb->init_fd >= 0)
                close(sb->init_fd);
        free(sb->init_why);
        if (sb->devnull_fd >= 0)
                close(sb->devnull_fd);
        free(sb->seccomp_why);
        free(sb->python);
        free(sb->base_python);
        free(sb->base_version);
        free(sb->venv_dir);
        free(sb->scratch);
        free(sb);
}

enum tier sandbox_tier(const struct sandbox *sb) { return tier_id(sb->tier); }
const char *sandbox_python(const struct sandbox *sb) { return sb->python; }

char *sandbox_mkdtemp(struct sandbox *sb, struct sbx_err *err)
{
        char *path = NULL;

        if (sb->scratch_is_workdir) {
                sbx_fail_code(err, SBX_EXIT_SANDBOX, EBUSY, "workdir: the scratch root is a run's");
                return NULL;
        }
        if (make_scratch(sb, err) < 0)
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
        if (make_scratch(sb, err) < 0)
                return NULL;
        if (!(path = strdup(sb->scratch))) {
                sbx_fail_oom(err, "workdir");
                return NULL;
        }
        sb->scratch_used = sb->scratch_is_workdir = true;
        return path;
}

bool sandbox_binds_data(const struct sandbox *sb)
{
        return sb->tier && sb->tier->binds_data && !sb->opts.warm;
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

char *sandbox_resolve_argv0(const struct sandbox *sb, const char *arg0)
{
        if (strcmp(arg0, "python") == 0 || strcmp(arg0, "python3") == 0)
                return strdup(sandbox_python(sb));
        if (arg0[0] == '/')
                return strdup(arg0);
        if (strchr(arg0, '/'))
                return NULL;
        return proc_find_exe(arg0, SANDBOX_PATH);
}

void sandbox_warm_expect(struct sandbox *sb, size_t workers)
{
        if (sb->opts.warm)
                warm_expect(sb, workers);
}

void sandbox_warm_counts(const struct sandbox *sb, size_t *warm, size_t *cold, const char **why)
{
        warm_counts(sb, warm, cold, why);
}
