#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "argv.h"

static int push_all(struct strvec *v, const char *const *args)
{
        return strvec_extend(v, args);
}

/* Options and values as separate words: bwrap has no --opt=value form. */
static int opt_num(struct strvec *v, const char *opt, long long n)
{
        return strvec_push(v, opt) | strvec_pushf(v, "%lld", n);
}

static int helper_prefix(const struct tier_params *p, struct strvec *v)
{
        int rc = strvec_push(v, p->tool);

        for (const char *const *b = p->binds; b && *b; b++)
                rc |= push_all(v, (const char *[]){ "--ro-bind", *b, NULL });
        if (p->memory_bytes < 0)
                rc |= push_all(v, (const char *[]){ "--memory", "none", NULL });
        else
                rc |= opt_num(v, "--memory", p->memory_bytes);
        rc |= opt_num(v, "--fsize", p->fsize_bytes);
        rc |= opt_num(v, "--tmpfs-size", p->tmpfs_bytes);
        return rc ? -1 : 0;
}

/* --size BYTES --tmpfs PATH: a tmpfs of bounded size. */
static int capped_tmpfs(struct strvec *v, long long bytes, const char *path)
{
        return strvec_push(v, "--size") | strvec_pushf(v, "%lld", bytes) |
               push_all(v, (const char *[]){ "--tmpfs", path, NULL });
}

/* The same allow-listed root as the helper: system dirs read-only, never
 * `--ro-bind / /`, fresh /proc, /dev and size-capped /tmp and /dev/shm.
 * bwrap's own root and /dev tmpfs have no size: the root is a capped tmpfs
 * of ours (read-only once the run's mounts are in, bwrap_run), /dev is
 * read-only. What a run can write to memory is /tmp, /dev/shm and a private
 * workdir, tmpfs_bytes each. */
static int bwrap_prefix(const struct tier_params *p, struct strvec *v)
{
        int rc = push_all(v, (const char *[]){
                p->tool, "--unshare-all", "--die-with-parent", "--new-session",
                "--cap-drop", "ALL", NULL });

        rc |= capped_tmpfs(v, BWRAP_ROOT_BYTES, "/");
        rc |= push_all(v, (const char *[]){ "--ro-bind", "/usr", "/usr",
                                            "--ro-bind", "/etc", "/etc", NULL });
        for (size_t i = 0; i < p->n_root_dirs; i++) {
                const struct host_dir *d = &p->root_dirs[i];
                if (d->link_target)
                        rc |= push_all(v, (const char *[]){
                                "--symlink", d->link_target, d->path, NULL });
                else
                        rc |= push_all(v, (const char *[]){
                                "--ro-bind", d->path, d->path, NULL });
        }
        rc |= push_all(v, (const char *[]){ "--proc", "/proc", "--dev", "/dev",
                                            "--remount-ro", "/dev", NULL });
        rc |= capped_tmpfs(v, p->tmpfs_bytes, "/dev/shm");
        rc |= capped_tmpfs(v, p->tmpfs_bytes, "/tmp");
        /* after the /tmp tmpfs, so binds under /tmp (a venv cache there) show */
        for (const char *const *b = p->binds; b && *b; b++)
                rc |= push_all(v, (const char *[]){ "--ro-bind", *b, *b, NULL });
        if (p->seccomp)
                rc |= opt_num(v, "--seccomp", CHILD_FD_EXTRA);
        rc |= opt_num(v, "--json-status-fd", CHILD_FD_STATUS2);
        return rc ? -1 : 0;
}

int tier_build_prefix(enum tier t, const struct tier_params *p,
                      struct strvec *out)
{
        switch (t) {
        case TIER_HELPER:
                return helper_prefix(p, out);
        case TIER_BWRAP:
                return bwrap_prefix(p, out);
        case TIER_UNSHARE:
                return push_all(out, (const char *[]){ p->tool, "--user",
                        "--map-current-user", "--net", "--", START_SHELL, "-c",
                        START_SCRIPT, START_MARKER, NULL });
        case TIER_UNSHARE_ROOT:
                return push_all(out, (const char *[]){ p->tool, "-rn", "--",
                        START_SHELL, "-c", START_SCRIPT, START_MARKER, NULL });
        case TIER_RLIMIT:
                return 0;
        default:
                return -1;
        }
}

static int helper_run(const struct run_params *rp, struct strvec *v)
{
        int rc = strvec_push(v, "--timeout");

        rc |= strvec_pushf(v, "%lld.%03lld", rp->timeout_ms / 1000,
                           rp->timeout_ms % 1000);
        rc |= opt_num(v, "--cpu", rp->cpu_s);
        if (rp->private_workdir) {
                rc |= push_all(v, (const char *[]){ "--private-workdir",
                                                    rp->workdir, NULL });
                for (const char *const *f = rp->workdir_files; f && *f; f++) {
                        rc |= strvec_push(v, "--ro-bind");
                        rc |= strvec_pushf(v, "%s/%s", rp->workdir, *f);
                }
        } else {
                rc |= push_all(v, (const char *[]){ "--workdir", rp->workdir, NULL });
        }
        for (char *const *e = rp->env; e && *e; e++)
                rc |= push_all(v, (const char *[]){ "--env", *e, NULL });
        rc |= opt_num(v, "--status-fd", CHILD_FD_EXTRA);
        return rc ? -1 : 0;
}

static int bwrap_run(const struct run_params *rp, struct strvec *v)
{
        int rc = 0;

        if (rp->private_workdir) {
                rc |= capped_tmpfs(v, rp->tmpfs_bytes, rp->workdir);
                for (const char *const *f = rp->workdir_files; f && *f; f++) {
                        rc |= strvec_push(v, "--ro-bind");
                        rc |= strvec_pushf(v, "%s/%s", rp->workdir, *f);
                        rc |= strvec_pushf(v, "%s/%s", rp->workdir, *f);
                }
        } else {
                rc |= push_all(v, (const char *[]){ "--bind", rp->workdir,
                                                    rp->workdir, NULL });
        }
        /* last of the mounts: the root's mount points are all made */
        rc |= push_all(v, (const char *[]){ "--remount-ro", "/", "--chdir", rp->workdir, NULL });
        return rc ? -1 : 0;
}

int tier_build_argv(enum tier t, const struct strvec *prefix,
                    const struct run_params *rp, struct strvec *out)
{
        int rc = strvec_extend(out, (const char *const *)prefix->items);

        if (t == TIER_HELPER)
                rc |= helper_run(rp, out);
        else if (t == TIER_BWRAP)
                rc |= bwrap_run(rp, out);
        if (t == TIER_HELPER || t == TIER_BWRAP)  /* unshare's "--" is its prefix's */
                rc |= strvec_push(out, "--");
        rc |= strvec_extend(out, (const char *const *)rp->argv);
        return rc ? -1 : 0;
}

int env_build(const char *const *session_env, const char *workdir,
              const char *const *extra, struct strvec *env)
{
        struct strvec all = { 0 };
        int rc = strvec_extend(&all, session_env);

        rc |= strvec_pushf(&all, "HOME=%s", workdir);
        rc |= strvec_pushf(&all, "TMPDIR=%s", workdir);
        rc |= strvec_extend(&all, extra);
        for (size_t i = 0; rc == 0 && i < all.len; i++) {
                size_t name_len = strcspn(all.items[i], "=");
                bool later = false;
                for (size_t j = i + 1; j < all.len && !later; j++)
                        later = strncmp(all.items[i], all.items[j], name_len + 1) == 0;
                if (!later)
                        rc |= strvec_push(env, all.items[i]);
        }
        strvec_free(&all);
        return rc ? -1 : 0;
}

char *env_expand_venv(const char *pair, const char *venv)
{
        const char *mark = "{venv}";
        size_t vlen = venv ? strlen(venv) : 0, mlen = strlen(mark);
        size_t cap = strlen(pair) + 1;
        const char *p;

        for (p = strstr(pair, mark); p; p = strstr(p + mlen, mark))
                cap += vlen;
        char *out = malloc(cap), *o = out;
        if (!out)
                return NULL;
        for (p = pair; *p;) {
                if (strncmp(p, mark, mlen) == 0) {
                        memcpy(o, venv ? venv : "", vlen);
                        o += vlen;
                        p += mlen;
                } else {
                        *o++ = *p++;
                }
        }
        *o = '\0';
        return out;
}
