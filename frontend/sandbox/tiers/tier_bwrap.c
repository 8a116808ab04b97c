/* The bwrap tier (bubblewrap, unprivileged): its argv and how its
 * --json-status-fd report is read. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "tier_ops.h"

/* --size BYTES --tmpfs PATH: a tmpfs of bounded size. */
static int capped_tmpfs(struct strvec *v, long long bytes, const char *path)
{
        int rc = argv_push_num(v, "--size", bytes);

        return rc | strvec_extend(v, (const char *[]){ "--tmpfs", path, NULL });
}

/* The same allow-listed root as the helper: system dirs read-only, never
 * `--ro-bind / /`, fresh /proc, /dev and size-capped /tmp and /dev/shm.
 * bwrap's own root and /dev tmpfs have no size: the root is a capped tmpfs
 * of ours (read-only once the run's mounts are in, bwrap_run), /dev is
 * read-only. What a run can write to memory is /tmp, /dev/shm and a private
 * workdir, tmpfs_bytes each. */
static int bwrap_root(const struct tier_params *p, struct strvec *v, bool zygote)
{
        int rc = strvec_extend(v, (const char *[]){
                p->tool, "--unshare-all", "--die-with-parent", "--new-session", NULL });

        /* docs/warm.md: the zygote's capabilities, in a user namespace of
         * its own (--unshare-all only tries one) */
        if (zygote)
                rc |= strvec_extend(v, (const char *[]){ "--unshare-user",
                        "--cap-add", "CAP_SYS_ADMIN", "--cap-add", "CAP_NET_ADMIN",
                        "--cap-add", "CAP_SETPCAP", NULL });
        else
                rc |= strvec_extend(v, (const char *[]){ "--cap-drop", "ALL", NULL });

        rc |= capped_tmpfs(v, BWRAP_ROOT_BYTES, "/");
        rc |= strvec_extend(v, (const char *[]){ "--ro-bind", "/usr", "/usr",
                                                 "--ro-bind", "/etc", "/etc", NULL });
        for (size_t i = 0; i < p->n_root_dirs; i++) {
                const struct host_dir *d = &p->root_dirs[i];
                if (d->link_target)
                        rc |= strvec_extend(v, (const char *[]){
                                "--symlink", d->link_target, d->path, NULL });
                else
                        rc |= strvec_extend(v, (const char *[]){
                                "--ro-bind", d->path, d->path, NULL });
        }
        /* bwrap binds /proc/sys read-only only where it can write it, and
         * access(W_OK) on the 0555 directory fails: a run's own IPC and pid
         * namespace knobs (kernel.shm*, sem, msg*, fs.mqueue, ns_last_pid)
         * were writable. Read-only, as the helper's; not the zygote's, which
         * unmounts what covers its /proc (this bind of the host's proc is
         * locked: it could not) and whose runs bind their own. */
        rc |= strvec_extend(v, (const char *[]){ "--proc", "/proc", NULL });
        if (!zygote)
                rc |= strvec_extend(v, (const char *[]){ "--ro-bind", "/proc/sys", "/proc/sys", NULL });
        rc |= strvec_extend(v, (const char *[]){ "--dev", "/dev", "--remount-ro", "/dev", NULL });
        rc |= capped_tmpfs(v, p->tmpfs_bytes, "/dev/shm");
        rc |= capped_tmpfs(v, p->tmpfs_bytes, "/tmp");
        /* after the /tmp tmpfs, so binds under /tmp (a venv cache there) show */
        for (const char *const *b = p->binds; b && *b; b++)
                rc |= strvec_extend(v, (const char *[]){ "--ro-bind", *b, *b, NULL });
        if (zygote)
                return rc ? -1 : 0;
        /* pid 1 is sbx-run-init (tier.c puts it before the run's argv),
         * not bwrap's own init: that had the sample's uid and was
         * dumpable, and a sample that rewrote it through /proc/1/mem
         * forged the run's exit status and outlived it */
        rc |= strvec_push(v, "--as-pid-1");
        if (p->seccomp)
                rc |= argv_push_num(v, "--seccomp", CHILD_FD_EXTRA);
        rc |= argv_push_num(v, "--json-status-fd", CHILD_FD_STATUS2);
        return rc ? -1 : 0;
}

int bwrap_prefix(const struct tier_params *p, struct strvec *v)
{
        return bwrap_root(p, v, false);
}

/* No seccomp program on the zygote: each sample's own process installs
 * it (the filter denies the unshare and mount the zygote needs). */
int bwrap_zygote(const struct tier_params *p, const struct zygote_params *zp, struct strvec *v)
{
        int rc = bwrap_root(p, v, true);

        rc |= strvec_extend(v, (const char *[]){ "--remount-ro", "/", "--chdir", "/tmp", "--", NULL });
        rc |= strvec_extend(v, (const char *const *)zp->argv);
        return rc ? -1 : 0;
}

int bwrap_run(const struct run_params *rp, struct strvec *v)
{
        int rc = 0;

        if (rp->private_workdir) {
                const char *const *f = rp->workdir_files;
                rc |= capped_tmpfs(v, rp->tmpfs_bytes, rp->workdir);
                /* the mode a copy on the host had; bwrap's own is 0600 */
                if (rp->workdir_data && f && *f) {
                        rc |= strvec_extend(v, (const char *[]){ "--perms", "0644", NULL });
                        rc |= argv_push_num(v, "--ro-bind-data", CHILD_FD_DATA);
                        rc |= strvec_pushf(v, "%s/%s", rp->workdir, *f++);
                }
                for (; f && *f; f++) {
                        rc |= strvec_push(v, "--ro-bind");
                        rc |= strvec_pushf(v, "%s/%s", rp->workdir, *f);
                        rc |= strvec_pushf(v, "%s/%s", rp->workdir, *f);
                }
        } else {
                rc |= strvec_extend(v, (const char *[]){ "--bind", rp->workdir,
                                                         rp->workdir, NULL });
        }
        /* after the workdir: a support file may be bound into it */
        for (const char *const *b = rp->ro_binds; b && *b; b++)
                rc |= strvec_extend(v, (const char *[]){ "--ro-bind", *b, *b, NULL });
        /* last of the mounts: the root's mount points are all made */
        rc |= strvec_extend(v, (const char *[]){ "--remount-ro", "/",
                                                 "--chdir", rp->workdir, NULL });
        return rc ? -1 : 0;
}

/* bwrap reports {"child-pid": N} once the sandbox is up and
 * {"exit-code": N} (128 + signal for a signaled child) at the end, once
 * its child, sbx-run-init, was exec'd: without that, and bwrap exited of
 * itself, the run's init never started (its exec failed), and neither did
 * the program. Nothing in the run can reach bwrap's report. */
int bwrap_classify(struct run_result *res, const char *text, int *code, int *sig)
{
        bool started = strstr(text, "\"child-pid\"") != NULL;
        const char *ec = strstr(text, "\"exit-code\"");
        int n;

        /* bwrap writes child-pid just before it runs the program: without
         * it the program never started, whatever ended bwrap (its exit, or
         * a signal such as a host filter's SIGSYS) */
        if (!started || (!ec && *sig == 0)) {
                run_result_tool_failed(res, started ? "bwrap could not start the run's init" :
                                       "bwrap setup failed", *sig);
                res->never_started = true;
                return 1;
        }
        if (ec && sscanf(ec, "\"exit-code\" : %d", &n) == 1) {
                if (n > 128 && n < 128 + 32) {
                        *sig = n - 128;
                        *code = -1;
                } else {
                        *code = n;
                }
        }
        return 0;
}
