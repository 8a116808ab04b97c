/* A tier's tool, when the tier is first about to be used: looked up, and
 * made ready (bwrap's seccomp program and pid 1, the rlimit tier's process
 * count, the session's argv prefix; a warm zygote's argv); and asked, by
 * its --probe, what it allows (the helper's defaults and ceilings). */
#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "proc.h"
#include "run_init_fd.h"
#include "sandbox_impl.h"
#include "seccomp_bpf.h"
#include "sysdirs.h"
#include "trace.h"
#include "util.h"

/* Only the tier about to be used is looked up: the helper tier searches
 * PATH for neither bwrap nor unshare. */
static char *find_tool(const struct tier_ops *o)
{
        const char *env = o->tool_env ? getenv(o->tool_env) : NULL;

        if (o->tool_path)
                return strdup(env && env[0] ? env : o->tool_path);
        return o->tool ? proc_find_exe(o->tool, NULL) : NULL;
}


/* A file that no other process can reach (the BPF program, sbx-run-init,
 * a run's stdin): a memfd, else (a host filter may deny memfd_create) an
 * unlinked file in our 0700 scratch directory, which is made only then. */
int sandbox_private_file(struct sandbox *sb, const char *name, bool sealable,
                         char *why, size_t len)
{
        char path[PATH_MAX];
        struct sbx_err err = { 0 };
        int fd = memfd_create(name, MFD_CLOEXEC | (sealable ? MFD_ALLOW_SEALING : 0));

        if (fd >= 0)
                return fd;
        snprintf(why, len, "memfd_create: %s", strerror(errno));
        if (sandbox_make_scratch(sb, &err) < 0) {
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
        int fd = sandbox_private_file(sb, "sbx-seccomp-bpf", false, why, sizeof(why));

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

        if (fd < 0 && (fd = sandbox_private_file(sb, "sbx-run-init", false, why, sizeof(why))) >= 0 &&
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

/* `TOOL ARG`'s JSON, or NULL. */
cJSON *sandbox_tool_json(const char *tool, const char *arg)
{
        char *argv[] = { (char *)tool, (char *)arg, NULL };
        struct run_output out;
        struct sbx_err err;
        cJSON *j = NULL;

        if (!arg || !tool || access(tool, X_OK) < 0 ||
            proc_capture(argv, NULL, &out, 65536, &err) < 0)
                return NULL;
        if (out.data) {
                char *brace = strchr(out.data, '{');
                j = brace ? cJSON_Parse(brace) : NULL;
        }
        free(out.data);
        return j;
}

int sandbox_helper_ceilings(struct sandbox *sb, double *timeout_s, double *cpu_s)
{
        const struct tier_ops *o = sb->tier;
        struct sbx_err err = { 0 };
        cJSON *hp;
        const cJSON *c;

        *timeout_s = *cpu_s = 0;
        /* Only a tier whose tool reports its config (the helper's --probe)
         * has ceilings. The tool is looked up lazily: the tier may be
         * chosen, unproven. */
        if (!o || !o->self_probe_arg || sandbox_tier_ready(sb, o->id, &err) < 0 ||
            !(hp = sandbox_tool_json(sb->tool[o->id], o->self_probe_arg)))
                return 0;
        c = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(hp, "config"),
                                             "ceilings");
        *timeout_s = json_get_num(c, "timeout", 0);
        *cpu_s = json_get_num(c, "cpu", 0);
        cJSON_Delete(hp);
        return 1;
}

int sandbox_helper_limits(struct sandbox *sb, struct helper_limits *deflt,
                          struct helper_limits *max)
{
        static const char *const keys[2] = { "defaults", "ceilings" };
        struct helper_limits *out[2] = { deflt, max };
        const struct tier_ops *o = sb->tier;
        struct sbx_err err = { 0 };
        cJSON *hp;

        for (int i = 0; i < 2; i++)
                *out[i] = (struct helper_limits){ -1, -1, -1, -1, -1, -1, -1, -1 };
        if (!o || !o->self_probe_arg || sandbox_tier_ready(sb, o->id, &err) < 0 ||
            !(hp = sandbox_tool_json(sb->tool[o->id], o->self_probe_arg)))
                return 0;
        for (int i = 0; i < 2; i++) {
                const cJSON *c = cJSON_GetObjectItemCaseSensitive(
                        cJSON_GetObjectItemCaseSensitive(hp, "config"), keys[i]);
                *out[i] = (struct helper_limits){
                        json_get_num(c, "timeout", -1), json_get_num(c, "cpu", -1),
                        (long long)json_get_num(c, "memory", -1),
                        (long long)json_get_num(c, "nproc", -1),
                        (long long)json_get_num(c, "fsize", -1),
                        (long long)json_get_num(c, "nofile", -1),
                        (long long)json_get_num(c, "tmpfs_size", -1),
                        -1,
                };
        }
        max->zygote_life_s = json_get_num(cJSON_GetObjectItemCaseSensitive(hp, "config"),
                                          "max_zygote_life", -1);
        cJSON_Delete(hp);
        return 1;
}
