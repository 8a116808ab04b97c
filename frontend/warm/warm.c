/* Warm suites' zygote pool (docs/warm.md): start a zygote in the session's
 * tier, hand it what it needs once (warm_init.c), send it one sample at a
 * time with the run's pipes, and replace it when it dies or nears its end
 * of life. */
#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cleanup.h"
#include "proc.h"
#include "run_internal.h"
#include "sandbox_impl.h"
#include "trace.h"
#include "util.h"
#include "warm.h"
#include "warm_init.h"
#include "zygote.h"


#define ZYGOTE_LIFETIME_MS  (3600LL * 1000)
#define ZYGOTE_NPROC_EXTRA  8           /* the zygote's two, B0, B1 and C count too */
#define ZYGOTE_MEMORY_EXTRA (64LL << 20) /* room for a sample's RLIMIT_AS (docs/warm.md) */
#define ZYGOTE_MARGIN_MS    5000        /* no run may end after its zygote */
#define WARM_MAX_TRIES      2           /* zygotes lost under one run */
#define ZYGOTE_END_MS       5000        /* for the tier's process, once its zygote is killed */

struct zygote {
        pid_t pid;              /* the tier's process; -1: the slot is free */
        int pidfd;              /* the zygote itself, once ready; -1: none */
        int ctl;                /* our end of its control socket */
        int64_t expires_ms;     /* the tier's wall clock ends it then */
        bool busy;
        bool starting;          /* spawned; its ready line not read, its init not sent */
};

struct warm_pool {
        struct zygote *z;
        size_t n;
        size_t expect;          /* zygotes started together (sandbox_warm_expect) */
        bool off;               /* warm runs given up for the session */
        bool limits_known;
        struct helper_limits deflt, max;
        size_t warm, cold;
        char cold_why[512];
};

/* What a warm run needs again when its zygote dies: the spec, copied. */
struct warm_spec {
        struct strvec argv, files, env_extra;
        struct run_spec spec;
        char *workdir;
        int tries;
};

static struct warm_pool *pool_of(struct sandbox *sb)
{
        if (!sb->warm)
                sb->warm = calloc(1, sizeof(*sb->warm));
        return sb->warm;
}

static void go_cold(struct warm_pool *p, bool for_good, const char *why)
{
        p->cold++;
        if (!p->cold_why[0])
                snprintf(p->cold_why, sizeof(p->cold_why), "%.500s", why);
        p->off |= for_good;
}

/* The zygote itself is killed (with it every run of its pid namespace),
 * then the tier's process, which ends with it, is reaped within
 * ZYGOTE_END_MS: in the helper tier that process is the root-owned helper,
 * which our kill cannot reach (EPERM), and a zygote stuck under a run
 * would otherwise hold sbx-run for its whole life (max_zygote_life). One
 * that does not end is left to the orphan sweep. */
static void zygote_end(struct zygote *z)
{
        if (z->pid <= 0)
                return;
        close(z->ctl);
        if (z->pidfd >= 0) {
                (void)syscall(SYS_pidfd_send_signal, z->pidfd, SIGKILL, NULL, 0);
                close(z->pidfd);
        }
        kill(z->pid, SIGKILL);
        if (proc_reap_within(z->pid, ZYGOTE_END_MS) < 0)
                sbx_trace("zygote's tier process left to the sweep");
        z->pid = z->pidfd = -1;
        z->busy = z->starting = false;
}

/* The helper's defaults are the samples' too (nproc, nofile), as in a cold
 * run, which leaves them to the helper. */
static void learn_limits(struct sandbox *sb, struct warm_pool *p)
{
        if (!p->limits_known)
                sandbox_helper_limits(sb, &p->deflt, &p->max);
        p->limits_known = true;
}

/* How long a zygote may live and what it may use: the helper's ceilings
 * bound them there; the samples' own limits are set per sample. */
static void zygote_params(struct sandbox *sb, struct warm_pool *p, struct zygote_params *zp)
{
        /* The helper's max_zygote_life; an older helper's zygote lives at
         * most its max_timeout, as any run there. */
        double ceiling_s;

        learn_limits(sb, p);
        ceiling_s = p->max.zygote_life_s > 0 ? p->max.zygote_life_s : p->max.timeout_s;
        zp->lifetime_ms = ZYGOTE_LIFETIME_MS;
        if (ceiling_s > 0 && ceiling_s * 1000 < zp->lifetime_ms)
                zp->lifetime_ms = (long long)(ceiling_s * 1000);
        zp->cpu_s = zp->lifetime_ms / 1000;
        if (p->max.cpu_s > 0 && p->max.cpu_s < zp->cpu_s)
                zp->cpu_s = (long long)p->max.cpu_s;
        zp->nproc = p->deflt.nproc > 0 ? p->deflt.nproc + ZYGOTE_NPROC_EXTRA : 0;
        if (p->max.nproc > 0 && zp->nproc > p->max.nproc)
                zp->nproc = p->max.nproc;
        zp->memory_bytes = sb->opts.memory_bytes < 0 ? -1 :
                           sb->opts.memory_bytes + ZYGOTE_MEMORY_EXTRA;
        if (p->max.memory > 0 && zp->memory_bytes > p->max.memory)
                zp->memory_bytes = p->max.memory;
}

/* Spawns a zygote into slot z; zygote_ready then waits for it. */
static int zygote_spawn(struct sandbox *sb, struct warm_pool *p, struct zygote *z,
                        char *why, size_t whylen)
{
        struct strvec argv = { 0 }, env = { 0 };
        char *zargv[] = { sb->python, "-I", "-B", "-c", (char *)sbx_zygote_source, NULL };
        struct zygote_params zp = { .env = sb->env.items, .argv = zargv };
        struct sbx_err err = { 0 };
        int sv[2] = { -1, -1 }, rc = -1;

        zygote_params(sb, p, &zp);
        if (sandbox_zygote_argv(sb, &zp, &argv, &err) < 0 ||
            env_build((const char *const *)sb->env.items, "/tmp", NULL, &env) < 0) {
                snprintf(why, whylen, "%.200s", err.msg[0] ? err.msg : "out of memory");
                goto out;
        }
        /* SO_PASSCRED: the ready message then says who the zygote is */
        if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0 ||
            setsockopt(sv[0], SOL_SOCKET, SO_PASSCRED, &(int){ 1 }, sizeof(int)) < 0) {
                snprintf(why, whylen, "socketpair: %s", strerror(errno));
                goto out;
        }
        struct proc_spec ps = {
                .path = argv.items[0], .argv = argv.items, .envp = env.items,
                .stdin_fd = sv[1], .stdout_fd = sb->devnull_fd, .stderr_fd = STDERR_FILENO,
                .extra_fd = { -1, -1 },
        };
        pid_t pid = proc_spawn(&ps, &err);
        close(sv[1]);
        if (pid < 0) {
                snprintf(why, whylen, "%.200s", err.msg);
                close(sv[0]);
                goto out;
        }
        *z = (struct zygote){ .pid = pid, .pidfd = -1, .ctl = sv[0], .starting = true,
                              .expires_ms = sbx_now_ms() + zp.lifetime_ms - ZYGOTE_MARGIN_MS };
        sbx_trace("zygote spawned");
        rc = 0;
out:
        strvec_free(&argv);
        strvec_free(&env);
        return rc;
}

/* A spawned zygote's ready line read and its init sent; else it is ended. */
static int zygote_ready(struct sandbox *sb, struct zygote *z, char *why, size_t whylen)
{
        z->starting = false;
        if (!warm_wait_ready(z->ctl, &z->pidfd) || warm_send_init(z->ctl, sb->opts.warm_sources) < 0) {
                snprintf(why, whylen, "the zygote did not start in tier %s (its stderr says why)",
                         sb->tier->name);
                zygote_end(z);
                return -1;
        }
        sbx_trace("zygote ready");
        return 0;
}

/* Room for n slots in the pool; new ones free. */
static int pool_reserve(struct warm_pool *p, size_t n)
{
        if (n <= p->n)
                return 0;
        struct zygote *grown = realloc(p->z, n * sizeof(*grown));
        if (!grown)
                return -1;
        p->z = grown;
        while (p->n < n)
                p->z[p->n++] = (struct zygote){ .pid = -1, .pidfd = -1, .ctl = -1 };
        return 0;
}

/* The zygote in slot i spawned, and with it the others the pool expects
 * (sandbox_warm_expect) in free slots, so that their starts (the tier's,
 * the interpreter's, each ~0.1 s) overlap instead of each waiting for the
 * one before; then slot i's made ready. */
static struct zygote *zygote_start(struct sandbox *sb, struct warm_pool *p, size_t i,
                                   char *why, size_t whylen)
{
        char ignored[256];

        if (zygote_spawn(sb, p, &p->z[i], why, whylen) < 0)
                return NULL;
        size_t live = 0;
        for (size_t k = 0; k < p->n; k++)
                live += p->z[k].pid > 0;
        for (size_t k = 0; k < p->n && live < p->expect; k++)
                if (p->z[k].pid <= 0 && zygote_spawn(sb, p, &p->z[k], ignored, sizeof(ignored)) == 0)
                        live++;         /* one that fails is started again when a run needs it */
        return zygote_ready(sb, &p->z[i], why, whylen) < 0 ? NULL : &p->z[i];
}

/* A free zygote that outlives the run, started when there is none. */
static struct zygote *zygote_for(struct sandbox *sb, struct warm_pool *p, int64_t run_ms,
                                 char *why, size_t whylen)
{
        int64_t now = sbx_now_ms();
        size_t free_slot = SIZE_MAX;

        if (pool_reserve(p, p->expect) < 0) {
                snprintf(why, whylen, "out of memory");
                return NULL;
        }
        for (size_t i = 0; i < p->n; i++) {
                struct zygote *z = &p->z[i];
                if (z->pid > 0 && !z->busy && z->expires_ms < now + run_ms)
                        zygote_end(z);  /* too old for this run */
                if (z->pid > 0 && !z->busy)
                        return z->starting && zygote_ready(sb, z, why, whylen) < 0 ? NULL : z;
                if (z->pid <= 0 && free_slot == SIZE_MAX)
                        free_slot = i;
        }
        if (free_slot == SIZE_MAX) {
                free_slot = p->n;
                if (pool_reserve(p, p->n + 1) < 0) {
                        snprintf(why, whylen, "out of memory");
                        return NULL;
                }
        }
        return zygote_start(sb, p, free_slot, why, whylen);
}

void warm_expect(struct sandbox *sb, size_t workers)
{
        struct warm_pool *p = pool_of(sb);

        if (p)
                p->expect = workers;
}

static size_t count_strs(const char *const *v)
{
        size_t n = 0;

        while (v && v[n])
                n++;
        return n;
}

/* Outside the helper a cold run inherits sbx-run's own soft limit (in a
 * user namespace of its own, where RLIMIT_NPROC counts): so does C. */
static long long inherited_limit(int resource)
{
        struct rlimit rl;

        if (getrlimit(resource, &rl) < 0 || rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur > (1ULL << 31))
                return 1LL << 31;
        return (long long)rl.rlim_cur;
}

static cJSON *limits_json(struct sandbox *sb, const struct warm_pool *p, const struct sbx_run *r)
{
        cJSON *l = cJSON_CreateObject();
        long long memory = sb->opts.memory_bytes;

        cJSON_AddNumberToObject(l, "timeout_ms", (double)r->timeout_ms);
        cJSON_AddNumberToObject(l, "cpu_s", (double)r->cpu_limit_s);
        if (memory < 0)
                cJSON_AddNullToObject(l, "memory");
        else
                cJSON_AddNumberToObject(l, "memory", (double)memory);
        cJSON_AddNumberToObject(l, "fsize", (double)sb->opts.fsize_bytes);
        cJSON_AddNumberToObject(l, "nproc", (double)(p->deflt.nproc > 0 ? p->deflt.nproc :
                                                      inherited_limit(RLIMIT_NPROC)));
        cJSON_AddNumberToObject(l, "nofile", (double)(p->deflt.nofile > 0 ? p->deflt.nofile :
                                                       inherited_limit(RLIMIT_NOFILE)));
        cJSON_AddNumberToObject(l, "tmpfs", (double)DEFAULT_WORKDIR_BYTES);
        return l;
}

/* The helper's environment rule, which a cold run gets: PATH, HOME and
 * TMPDIR first, then the run's pairs, a later NAME replacing an earlier. */
static cJSON *env_json(struct sandbox *sb, const struct run_spec *spec)
{
        struct strvec env = { 0 }, all = { 0 };
        cJSON *a = NULL;

        if (strvec_push(&all, "PATH=" SANDBOX_PATH) < 0 || strvec_pushf(&all, "HOME=%s", spec->workdir) < 0 ||
            strvec_push(&all, "TMPDIR=/tmp") < 0 ||
            env_build((const char *const *)sb->env.items, spec->workdir, spec->env_extra, &env) < 0 ||
            strvec_extend(&all, (const char *const *)env.items) < 0)
                goto out;
        a = cJSON_CreateArray();
        for (size_t i = 0; a && i < all.len; i++) {
                size_t name = strcspn(all.items[i], "=") + 1;
                bool later = false;
                for (size_t j = i + 1; j < all.len && !later; j++)
                        later = strncmp(all.items[i], all.items[j], name) == 0;
                if (!later)
                        cJSON_AddItemToArray(a, cJSON_CreateString(all.items[i]));
        }
out:
        strvec_free(&env);
        strvec_free(&all);
        return a;
}

static char *request_json(struct sandbox *sb, const struct warm_pool *p, const struct sbx_run *r,
                          const struct run_spec *spec)
{
        static unsigned long long seq;
        cJSON *j = cJSON_CreateObject(), *files = cJSON_CreateArray();
        char *text = NULL;

        if (!j || !files)
                goto out;
        cJSON_AddStringToObject(j, "op", "run");
        cJSON_AddNumberToObject(j, "id", (double)++seq);
        cJSON_AddItemToObject(j, "argv", cJSON_CreateStringArray((const char *const *)spec->argv,
                                                                  (int)count_strs((const char *const *)spec->argv)));
        cJSON_AddStringToObject(j, "cwd", spec->workdir);
        cJSON_AddItemToObject(j, "env", env_json(sb, spec));
        for (const char *const *f = spec->workdir_files; f && *f; f++)
                cJSON_AddItemToArray(files, cJSON_CreateString(*f));
        cJSON_AddItemToObject(j, "files", files);
        files = NULL;
        cJSON_AddItemToObject(j, "limits", limits_json(sb, p, r));
        text = cJSON_PrintUnformatted(j);
out:
        cJSON_Delete(files);
        cJSON_Delete(j);
        return text;
}

/* Why a run cannot go warm (true), in why. */
static bool not_warm(const struct sandbox *sb, const struct warm_pool *p, const struct sbx_run *r,
                     const struct run_spec *spec, char *why, size_t len)
{
        char *const *a = spec->argv;

        if (!sb->tier->build_zygote)
                snprintf(why, len, "tier %s cannot start a zygote", sb->tier->name);
        else if (!a[0] || strcmp(a[0], sb->python) || !a[1] || strcmp(a[1], "-I") || !a[2] ||
                 strcmp(a[2], "-B") || !a[3] || strcmp(a[3], "-c") || !a[4])
                snprintf(why, len, "%s is not the session's `python -I -B -c` (another "
                         "interpreter, or an argv-driven suite)", a[0] ? a[0] : "an empty argv");
        else if (!spec->private_workdir || strncmp(spec->workdir, "/tmp/", 5))
                snprintf(why, len, "the workdir %s is not private or not under /tmp (TMPDIR?)",
                         spec->workdir);
        else if (count_strs(spec->workdir_files) + 3 > WARM_MSG_MAX_FDS)
                snprintf(why, len, "more than %d workdir files", WARM_MSG_MAX_FDS - 3);
        /* The admin's ceilings bind warm runs too: one above them runs
         * cold, where the helper refuses it as it refuses any. */
        else if ((p->max.timeout_s > 0 && (double)r->timeout_ms > p->max.timeout_s * 1000) ||
                 (p->max.cpu_s > 0 && (double)r->cpu_limit_s > p->max.cpu_s))
                snprintf(why, len, "a run's limits are above the helper's ceilings "
                         "(timeout %.3f s, cpu %.0f s)", p->max.timeout_s, p->max.cpu_s);
        else
                return false;
        return true;
}

/* The run's pipes: read ends ours, write ends the zygote's (sent, closed). */
static int send_run(struct zygote *z, const char *text, struct sbx_run *r, const struct run_spec *spec)
{
        int ends[3][2] = { { -1, -1 }, { -1, -1 }, { -1, -1 } }, fds[WARM_MSG_MAX_FDS];
        size_t nfds = 0;
        int rc = -1;

        for (int i = 0; i < 3; i++) {
                if (pipe2(ends[i], O_CLOEXEC) < 0 || fcntl(ends[i][0], F_SETFL, O_NONBLOCK) < 0)
                        goto out;
                fds[nfds++] = ends[i][1];
        }
        for (const char *const *f = spec->workdir_files; f && *f; f++) {
                char path[PATH_MAX];
                snprintf(path, sizeof(path), "%s/%s", spec->workdir, *f);
                if ((fds[nfds] = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)) < 0)
                        goto out;
                nfds++;
        }
        rc = warm_send_msg(z->ctl, text, fds, nfds);
out:
        for (size_t i = 3; i < nfds; i++)
                close(fds[i]);
        for (int i = 0; i < 3; i++) {
                if (ends[i][1] >= 0)
                        close(ends[i][1]);
                if (rc < 0 && ends[i][0] >= 0)
                        close(ends[i][0]);
        }
        if (rc == 0) {
                r->out_fd = ends[0][0];
                r->err_fd = ends[1][0];
                r->status_fd = ends[2][0];
        }
        return rc;
}

static struct warm_spec *spec_copy(const struct run_spec *spec)
{
        struct warm_spec *w = calloc(1, sizeof(*w));

        if (!w || strvec_extend(&w->argv, (const char *const *)spec->argv) < 0 ||
            strvec_extend(&w->files, spec->workdir_files) < 0 ||
            strvec_extend(&w->env_extra, spec->env_extra) < 0 || !(w->workdir = strdup(spec->workdir))) {
                warm_spec_free(w);
                return NULL;
        }
        w->spec = *spec;
        w->spec.argv = w->argv.items;
        w->spec.workdir = w->workdir;
        w->spec.workdir_files = (const char *const *)w->files.items;
        w->spec.env_extra = (const char *const *)w->env_extra.items;
        return w;
}

void warm_spec_free(struct warm_spec *w)
{
        if (!w)
                return;
        strvec_free(&w->argv);
        strvec_free(&w->files);
        strvec_free(&w->env_extra);
        free(w->workdir);
        free(w);
}

const struct run_spec *warm_run_spec(const struct sbx_run *r)
{
        return &r->warm->spec;
}

/* One try on a zygote: 1 sent, 0 not (why set). */
static int try_send(struct sandbox *sb, struct warm_pool *p, struct sbx_run *r,
                    const struct run_spec *spec, char *why, size_t whylen)
{
        char *text;

        learn_limits(sb, p);
        text = request_json(sb, p, r, spec);
        struct zygote *z = text ? zygote_for(sb, p, r->timeout_ms + sb->tier->grace_ms, why, whylen) : NULL;
        int rc = 0;

        if (!text)
                snprintf(why, whylen, "out of memory");
        if (z && send_run(z, text, r, spec) == 0) {
                z->busy = true;
                r->zygote = z - p->z;
                rc = 1;
        } else if (z) {
                snprintf(why, whylen, "sending the run to the zygote: %s", strerror(errno));
                zygote_end(z);  /* dead, or a message it cannot take */
        }
        free(text);
        return rc;
}

/* Up to tries sends, each to a zygote (a fresh one after one that failed):
 * 1 when one took the run; else warm runs are given up for the session,
 * with the reason. */
static int send_or_give_up(struct sandbox *sb, struct warm_pool *p, struct sbx_run *r, int tries)
{
        char why[256] = "", note[300];

        while (tries-- > 0) {
                if (try_send(sb, p, r, &r->warm->spec, why, sizeof(why)) == 1) {
                        p->warm++;
                        return 1;
                }
        }
        snprintf(note, sizeof(note), "warm runs given up: %.250s", why);
        go_cold(p, true, note);
        return 0;
}

int warm_run_start(struct sandbox *sb, const struct run_spec *spec, struct sbx_run *r,
                   struct sbx_err *err)
{
        struct warm_pool *p = pool_of(sb);
        char why[256];

        if (!p)
                return sbx_fail_oom(err, "warm pool");
        if (p->off) {
                p->cold++;
                return 0;
        }
        learn_limits(sb, p);
        if (not_warm(sb, p, r, spec, why, sizeof(why))) {
                go_cold(p, !sb->tier->build_zygote, why);
                return 0;
        }
        if (!(r->warm = spec_copy(spec)))
                return sbx_fail_oom(err, "warm run");
        return send_or_give_up(sb, p, r, 2);    /* a dead idle zygote, then a fresh one */
}

int warm_run_again(struct sbx_run *r)
{
        struct warm_pool *p = r->sb->warm;

        if (r->zygote >= 0)
                zygote_end(&p->z[r->zygote]);
        r->zygote = -1;
        p->warm--;
        if (++r->warm->tries >= WARM_MAX_TRIES) {
                go_cold(p, false, "a zygote died under a run twice: it ran cold");
                return 0;
        }
        if (p->off) {
                p->cold++;
                return 0;
        }
        return send_or_give_up(r->sb, p, r, 1);
}

void warm_run_fail_setup(struct sbx_run *r, const char *status_line)
{
        struct warm_pool *p = r->sb->warm;
        cJSON *j = cJSON_Parse(status_line);
        const char *msg = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(j, "message"));
        char note[300];

        p->warm--;
        snprintf(note, sizeof(note), "warm runs given up: the zygote could not set a sample up: %.200s",
                 msg && msg[0] ? msg : status_line);
        cJSON_Delete(j);
        go_cold(p, true, note);
}

void warm_run_kill(struct sbx_run *r)
{
        if (r->zygote >= 0)
                zygote_end(&r->sb->warm->z[r->zygote]);
        r->zygote = -1;
}

void warm_run_release(struct sbx_run *r)
{
        if (r->zygote >= 0)
                r->sb->warm->z[r->zygote].busy = false;
        r->zygote = -1;
}

void warm_keep_pids(const struct sandbox *sb, pid_t *keep, size_t *n, size_t max)
{
        for (size_t i = 0; sb->warm && i < sb->warm->n && *n < max; i++)
                if (sb->warm->z[i].pid > 0)
                        keep[(*n)++] = sb->warm->z[i].pid;
}

void warm_pool_close(struct sandbox *sb)
{
        struct warm_pool *p = sb->warm;

        for (size_t i = 0; p && i < p->n; i++)
                zygote_end(&p->z[i]);
        if (p)
                free(p->z);
        free(p);
        sb->warm = NULL;
}

void warm_counts(const struct sandbox *sb, size_t *warm, size_t *cold, const char **why)
{
        const struct warm_pool *p = sb->warm;

        *warm = p ? p->warm : 0;
        *cold = p ? p->cold : 0;
        *why = p && p->cold_why[0] ? p->cold_why : NULL;
}
