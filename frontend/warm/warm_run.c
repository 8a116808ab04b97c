/* One warm run (docs/warm.md, "Messages"): whether a zygote may run it,
 * its request (argv, cwd, env, files, limits) sent with the run's pipes
 * and files as fds, sent again to a fresh zygote when its own died, and
 * its zygote freed or ended when it is over. */
#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"
#include "warm_init.h"
#include "warm_pool.h"

#define WARM_MAX_TRIES      2           /* zygotes lost under one run */
#define RUN_FDS             4           /* stdout, stderr, status, stdin; then the files */

struct warm_run {
        struct warm_pool *pool;
        const struct warm_request *rq;  /* borrowed from the engine */
        int zygote;                     /* its slot in the pool, -1: none */
        int tries;
        unsigned long long id;          /* its run message's, for a kill */
};

static size_t count_strs(const char *const *v)
{
        size_t n = 0;

        while (v && v[n])
                n++;
        return n;
}

static cJSON *limits_json(const struct warm_params *wp, const struct warm_request *rq)
{
        cJSON *l = cJSON_CreateObject();

        cJSON_AddNumberToObject(l, "timeout_ms", (double)rq->timeout_ms);
        cJSON_AddNumberToObject(l, "cpu_s", (double)rq->cpu_s);
        if (rq->memory < 0)
                cJSON_AddNullToObject(l, "memory");
        else
                cJSON_AddNumberToObject(l, "memory", (double)rq->memory);
        cJSON_AddNumberToObject(l, "fsize", (double)wp->fsize);
        cJSON_AddNumberToObject(l, "nproc", (double)wp->nproc);
        cJSON_AddNumberToObject(l, "nofile", (double)wp->nofile);
        cJSON_AddNumberToObject(l, "tmpfs", (double)wp->tmpfs);
        return l;
}

/* The helper's environment rule, which a cold run gets: in order, a later
 * NAME replacing an earlier. */
static cJSON *env_json(char *const *env)
{
        cJSON *a = cJSON_CreateArray();

        for (size_t i = 0; a && env && env[i]; i++) {
                size_t name = strcspn(env[i], "=") + 1;
                bool later = false;
                for (size_t j = i + 1; env[j] && !later; j++)
                        later = strncmp(env[i], env[j], name) == 0;
                if (!later)
                        cJSON_AddItemToArray(a, cJSON_CreateString(env[i]));
        }
        return a;
}

static char *request_json(const struct warm_params *wp, const struct warm_request *rq,
                          unsigned long long id)
{
        cJSON *j = cJSON_CreateObject(), *files = cJSON_CreateArray();
        char *text = NULL;

        if (!j || !files)
                goto out;
        cJSON_AddStringToObject(j, "op", "run");
        cJSON_AddNumberToObject(j, "id", (double)id);
        cJSON_AddItemToObject(j, "argv", cJSON_CreateStringArray((const char *const *)rq->argv,
                                                                  (int)count_strs((const char *const *)rq->argv)));
        cJSON_AddStringToObject(j, "cwd", rq->workdir);
        cJSON_AddItemToObject(j, "env", env_json(rq->env));
        for (const char *const *f = rq->files; f && *f; f++)
                cJSON_AddItemToArray(files, cJSON_CreateString(*f));
        cJSON_AddItemToObject(j, "files", files);
        files = NULL;
        cJSON_AddItemToObject(j, "limits", limits_json(wp, rq));
        text = cJSON_PrintUnformatted(j);
out:
        cJSON_Delete(files);
        cJSON_Delete(j);
        return text;
}

/* Why a run cannot go warm (true), in why. */
static bool not_warm(const struct warm_params *wp, const struct warm_request *rq,
                     char *why, size_t len)
{
        char *const *a = rq->argv;

        if (!wp->zygote_argv)
                snprintf(why, len, "%s", wp->unavailable ? wp->unavailable : "no zygote");
        else if (!a[0] || strcmp(a[0], wp->python) || !a[1] || strcmp(a[1], "-I") || !a[2] ||
                 strcmp(a[2], "-B") || !a[3] || strcmp(a[3], "-c") || !a[4])
                snprintf(why, len, "%s is not the session's `python -I -B -c` (another "
                         "interpreter, or an argv-driven suite)", a[0] ? a[0] : "an empty argv");
        else if (!rq->private_workdir || strncmp(rq->workdir, "/tmp/", 5))
                snprintf(why, len, "the workdir %s is not private or not under /tmp (TMPDIR?)",
                         rq->workdir);
        else if (count_strs(rq->files) + RUN_FDS > WARM_MSG_MAX_FDS)
                snprintf(why, len, "more than %d workdir files", WARM_MSG_MAX_FDS - RUN_FDS);
        else if ((wp->max_timeout_s > 0 && (double)rq->timeout_ms > wp->max_timeout_s * 1000) ||
                 (wp->max_cpu_s > 0 && (double)rq->cpu_s > wp->max_cpu_s))
                snprintf(why, len, "a run's limits are above the helper's ceilings "
                         "(timeout %.3f s, cpu %.0f s)", wp->max_timeout_s, wp->max_cpu_s);
        else
                return false;
        return true;
}

/* The run's pipes: read ends ours (fds), write ends the zygote's (sent,
 * closed); then its stdin, opened afresh for each send (a lost run's reads
 * must not move the next one's), and its files. */
static int send_run(struct zygote *z, const char *text, const struct warm_request *rq,
                    int stdin_null, int out[3])
{
        int ends[3][2] = { { -1, -1 }, { -1, -1 }, { -1, -1 } }, fds[WARM_MSG_MAX_FDS];
        size_t nfds = 0;
        int rc = -1;
        auto_fd in = -1;

        for (int i = 0; i < 3; i++) {
                if (pipe2(ends[i], O_CLOEXEC) < 0 || fcntl(ends[i][0], F_SETFL, O_NONBLOCK) < 0)
                        goto out;
                fds[nfds++] = ends[i][1];
        }
        if (rq->stdin_fd >= 0 && (in = sbx_reopen_fd(rq->stdin_fd, O_RDONLY)) < 0)
                goto out;
        fds[nfds++] = in >= 0 ? in : stdin_null;
        for (const char *const *f = rq->files; f && *f; f++) {
                char path[PATH_MAX];
                snprintf(path, sizeof(path), "%s/%s", rq->workdir, *f);
                if ((fds[nfds] = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)) < 0)
                        goto out;
                nfds++;
        }
        rc = warm_send_msg(z->ctl, text, fds, nfds);
out:
        for (size_t i = RUN_FDS; i < nfds; i++)
                close(fds[i]);
        for (int i = 0; i < 3; i++) {
                if (ends[i][1] >= 0)
                        close(ends[i][1]);
                if (rc < 0 && ends[i][0] >= 0)
                        close(ends[i][0]);
                if (rc == 0)
                        out[i] = ends[i][0];
        }
        return rc;
}

/* One try on a zygote: 1 sent, 0 not (why set). */
static int try_send(struct warm_run *w, int fds[3], char *why, size_t whylen)
{
        static unsigned long long seq;
        struct warm_pool *p = w->pool;
        char *text = request_json(&p->wp, w->rq, w->id = ++seq);
        struct zygote *z = text ? warm_zygote_for(p, w->rq->outlive_ms, why, whylen) : NULL;
        int rc = 0;

        if (!text)
                snprintf(why, whylen, "out of memory");
        if (z && send_run(z, text, w->rq, p->wp.stdout_fd, fds) == 0) {
                z->busy = true;
                w->zygote = (int)(z - p->z);
                rc = 1;
        } else if (z) {
                snprintf(why, whylen, "sending the run to the zygote: %s", strerror(errno));
                warm_zygote_end(p, z);  /* dead, or a message it cannot take */
        }
        free(text);
        return rc;
}

/* Up to tries sends, each to a zygote (a fresh one after one that failed):
 * 1 when one took the run; else warm runs are given up for the session,
 * with the reason. */
static int send_or_give_up(struct warm_run *w, int tries, int fds[3])
{
        char why[256] = "", note[300];

        while (tries-- > 0) {
                if (try_send(w, fds, why, sizeof(why)) == 1) {
                        w->pool->warm++;
                        return 1;
                }
        }
        snprintf(note, sizeof(note), "warm runs given up: %.250s", why);
        warm_go_cold(w->pool, true, note);
        return 0;
}

int warm_run_start(struct warm_pool *p, const struct warm_request *rq,
                   struct warm_run **out, int fds[3])
{
        char why[256];
        struct warm_run *w;

        *out = NULL;
        if (p->off) {
                p->cold++;
                return 0;
        }
        if (not_warm(&p->wp, rq, why, sizeof(why))) {
                warm_go_cold(p, !p->wp.zygote_argv, why);
                return 0;
        }
        if (!(w = calloc(1, sizeof(*w))))
                return -1;
        *w = (struct warm_run){ .pool = p, .rq = rq, .zygote = -1 };
        if (send_or_give_up(w, 2, fds) == 0) {  /* a dead idle zygote, then a fresh one */
                free(w);
                return 0;
        }
        *out = w;
        return 1;
}

int warm_run_again(struct warm_run *w, int fds[3])
{
        struct warm_pool *p = w->pool;

        if (w->zygote >= 0)
                warm_zygote_end(p, &p->z[w->zygote]);
        w->zygote = -1;
        p->warm--;
        if (++w->tries >= WARM_MAX_TRIES) {
                warm_go_cold(p, false, "a zygote died under a run twice: it ran cold");
                return 0;
        }
        if (p->off) {
                p->cold++;
                return 0;
        }
        return send_or_give_up(w, 1, fds);
}

void warm_run_fail_setup(struct warm_run *w, const char *status_line)
{
        cJSON *j = cJSON_Parse(status_line);
        const char *msg = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(j, "message"));
        char note[300];

        w->pool->warm--;
        snprintf(note, sizeof(note), "warm runs given up: the zygote could not set a sample up: %.200s",
                 msg && msg[0] ? msg : status_line);
        cJSON_Delete(j);
        warm_go_cold(w->pool, true, note);
}

void warm_run_kill(struct warm_run *w)
{
        if (w->zygote >= 0)
                warm_zygote_end(w->pool, &w->pool->z[w->zygote]);
        w->zygote = -1;
}

int warm_run_cancel(struct warm_run *w)
{
        char text[64];

        if (w->zygote < 0)
                return -1;
        snprintf(text, sizeof(text), "{\"op\":\"kill\",\"id\":%llu}", w->id);
        return warm_send_msg_nowait(w->pool->z[w->zygote].ctl, text);
}

void warm_run_release(struct warm_run *w)
{
        if (w->zygote >= 0)
                w->pool->z[w->zygote].busy = false;
        w->zygote = -1;
}

void warm_run_free(struct warm_run *w)
{
        free(w);
}
