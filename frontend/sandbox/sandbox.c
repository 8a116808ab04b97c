/* The session: resolve the interpreter and venv once, compute binds and
 * env once (tier_tool.c readies each tier's tool and argv prefix when it is
 * first used, tier_choose.c then picks the tier). Runs (run.c) only reuse
 * what is here. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "interp.h"
#include "proc.h"
#include "sandbox_impl.h"
#include "warm.h"
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

        warm_pool_close(sb->warm);
        sb->warm = NULL;
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

bool sandbox_private_tmp(const struct sandbox *sb)
{
        return sb->tier && !sb->tier->weak;
}

long long sandbox_memory_bytes(const struct sandbox *sb)
{
        return sb->opts.memory_bytes;
}

bool sandbox_binds_data(const struct sandbox *sb)
{
        return sb->tier && sb->tier->binds_data && !sb->opts.warm;
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
