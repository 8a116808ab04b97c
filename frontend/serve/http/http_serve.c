/* The server's event loop: one thread polls libmicrohttpd's epoll fd, the
 * fds of every job in flight and the sockets of suspended requests (whose
 * client may leave), runs libmicrohttpd, hands run slots to admitted
 * requests in turn (http_admit.c), steps the jobs and turns each that
 * ended into its answer. The first SIGTERM, SIGINT or SIGHUP drains: no
 * new connection, queued requests answered 503, runs in flight finished
 * and answered; a second kills those runs (answered SandboxError). */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "http.h"
#include "stop_signals.h"
#include "util.h"

#define PFDS_PER_JOB    8
#define SWEEP_MS        1000
#define DRAIN_GRACE_MS  10000   /* past the longest run and an idle connection */
#define SHUTDOWN_MSG    "the server is shutting down"

static volatile sig_atomic_t stop_signals;

static void on_stop(int sig)
{
        (void)sig;
        stop_signals++;
}

/* A native job's answer line, kept until the job ends. */
static void take_line(void *ctx, char *line)
{
        struct http_req *r = ctx;

        if (!line)
                return;
        size_t n = strlen(line);
        char *b = realloc(r->lines, r->lines_len + n + 2);
        if (b) {
                memcpy(b + r->lines_len, line, n);
                b[r->lines_len + n] = '\n';
                r->lines_len += n + 1;
                b[r->lines_len] = '\0';
                r->lines = b;
                r->n_lines++;
        }
        free(line);
}

static void end_ticket(struct http_srv *s, struct http_req *r)
{
        http_admit_done(s->admit, r->ticket);
        r->ticket = NULL;
        s->slots_used -= r->weight;
        r->weight = 0;
}

/* The run slots a suite may hold: its "jobs" cut to the free slots, and
 * to half the server's less what its client's suites hold already, so
 * that one client's suites never hold more than half the runs (at least
 * one slot each, as any request). */
static int suite_slots(const struct http_srv *s, const struct http_req *r)
{
        int half = s->o->slots / 2 > 0 ? s->o->slots / 2 : 1, held = 0;
        int free_slots = s->o->slots - s->slots_used;

        for (const struct http_req *o = s->reqs; o; o = o->next)
                if (o != r && o->suite && o->weight && strcmp(o->client, r->client) == 0)
                        held += o->weight;
        int cap = half - held < free_slots ? half - held : free_slots;
        return cap > 1 ? cap : 1;
}

static void start_req(struct http_srv *s, struct http_req *r)
{
        const struct http_exec_ops *ops = s->ops;
        struct sbx_err err = { 0 };
        char *line = NULL;
        int status = 500;

        if (r->ep == HTTP_EP_RUN_CODE && ops->start_code(ops->ctx, &r->code, &r->job, &err) < 0) {
                end_ticket(s, r);
                http_srv_drop_body(r);
                http_metrics_run(&s->metrics, HTTP_OUT_SANDBOX_ERROR, -1);
                http_srv_answer(r, 200, http_sf_sandbox_error(err.msg), NULL, 0);
                return;
        }
        int weight = 1;
        if (r->ep == HTTP_EP_SERVE &&
            ops->start_native(ops->ctx, r->body ? r->body : "", r->len, suite_slots(s, r), &weight,
                              &r->job, &line, &status) < 0) {
                end_ticket(s, r);
                http_srv_drop_body(r);
                http_srv_answer(r, status, line, NULL, 0);
                return;
        }
        r->weight = weight;
        s->slots_used += weight;
        http_srv_drop_body(r);
        r->state = HTTP_REQ_RUNNING;
}

static void dispatch(struct http_srv *s)
{
        struct http_ticket *t;

        while (!s->killing && s->slots_used < s->o->slots && (t = http_admit_next(s->admit)))
                start_req(s, http_admit_owner(t));
}

static enum http_outcome outcome_of(const struct http_code_result *res)
{
        switch (res->run.status) {
        case HTTP_STEP_FINISHED: return res->run.return_code ? HTTP_OUT_FAILED : HTTP_OUT_SUCCESS;
        case HTTP_STEP_TIME_LIMIT: return HTTP_OUT_TIMEOUT;
        case HTTP_STEP_ERROR: break;
        }
        return HTTP_OUT_SANDBOX_ERROR;
}

static char *native_answer(struct http_req *r, const char **ctype)
{
        *ctype = r->suite ? "application/x-ndjson" : "application/json";
        if (!r->lines)
                return strdup("");
        if (!r->suite && r->n_lines == 1)
                r->lines[--r->lines_len] = '\0';        /* one object, as JSON */
        return steal_pointer(&r->lines);
}

static char *killed_answer(const struct http_req *r)
{
        if (r->ep == HTTP_EP_RUN_CODE)
                return http_sf_sandbox_error(SHUTDOWN_MSG);
        cJSON *o = cJSON_CreateObject();
        cJSON_AddNullToObject(o, "id");
        cJSON_AddStringToObject(o, "type", "error");
        cJSON_AddStringToObject(o, "error", SHUTDOWN_MSG);
        char *text = cJSON_PrintUnformatted(o);
        cJSON_Delete(o);
        return text;
}

/* The job ended: its answer, unless its client is gone or it was
 * answered already (killed at shutdown). */
static void finish_req(struct http_srv *s, struct http_req *r)
{
        struct http_code_result res;
        const char *ctype = NULL;
        char *body;

        s->ops->finish(r->job, &res);
        r->job = NULL;
        end_ticket(s, r);
        double run_s = (double)(sbx_now_ms() - r->admitted_ms) / 1000;
        if (r->gone || r->killed) {
                http_metrics_run(&s->metrics, HTTP_OUT_CANCELLED, run_s);
                http_code_result_free(&res);
                if (!r->conn)
                        http_srv_req_free(s, r);        /* its connection is gone */
                else if (r->state == HTTP_REQ_RUNNING)
                        http_srv_resume(r);             /* closed, unanswered */
                return;
        }
        if (r->ep == HTTP_EP_RUN_CODE)
                body = http_sf_render(&res);
        else
                body = native_answer(r, &ctype);
        http_metrics_run(&s->metrics, r->ep == HTTP_EP_RUN_CODE ? outcome_of(&res) : HTTP_OUT_SUCCESS,
                         run_s);
        http_code_result_free(&res);
        http_srv_answer(r, 200, body, ctype, 0);
}

/* The client of a suspended request hung up: a queued request is
 * dropped; a running one is killed, never waiting (a warm run's zygote
 * is asked to end it), and its slot is free once it has ended, at once,
 * unanswered. */
static void client_gone(struct http_srv *s, struct http_req *r)
{
        r->gone = true;
        if (r->state == HTTP_REQ_QUEUED) {
                end_ticket(s, r);
                http_metrics_run(&s->metrics, HTTP_OUT_CANCELLED, 0);
                http_srv_resume(r);
        } else if (r->state == HTTP_REQ_RUNNING && r->job) {
                s->ops->kill(r->job);
        }
}

static size_t collect(struct http_srv *s, struct pollfd *pfds, int64_t *deadline)
{
        size_t n = 0;

        pfds[n++] = (struct pollfd){ .fd = http_srv_epoll_fd(s), .events = POLLIN };
        for (struct http_req *r = s->reqs; r; r = r->next) {
                r->npfd = 0;
                r->hup_pfd = -1;
                if (r->suspended && !r->gone && r->conn_fd >= 0) {
                        r->hup_pfd = (long)n;
                        pfds[n++] = (struct pollfd){ .fd = r->conn_fd, .events = POLLRDHUP };
                }
                if (r->state != HTTP_REQ_RUNNING || !r->job)
                        continue;
                r->pfd_off = n;
                r->npfd = s->ops->pollfds(r->job, pfds + n, PFDS_PER_JOB);
                n += r->npfd;
                int64_t d = s->ops->deadline_ms(r->job);
                if (d < *deadline)
                        *deadline = d;
        }
        return n;
}

static void after_poll(struct http_srv *s, struct pollfd *pfds)
{
        struct http_req *next;

        for (struct http_req *r = s->reqs; r; r = next) {
                next = r->next;
                if (r->hup_pfd >= 0 && pfds[r->hup_pfd].revents && !r->gone)
                        client_gone(s, r);
                if (r->state == HTTP_REQ_RUNNING && r->job &&
                    s->ops->step(r->job, pfds + r->pfd_off, r->npfd, take_line, r) == 1)
                        finish_req(s, r);
        }
}

static void drain(struct http_srv *s)
{
        struct http_ticket **queued;

        s->draining = true;
        http_srv_quiesce(s);
        if (!(queued = http_admit_close(s->admit)))
                return;
        for (size_t i = 0; queued[i]; i++) {
                struct http_req *r = http_admit_owner(queued[i]);
                end_ticket(s, r);
                cJSON *o = cJSON_CreateObject();
                cJSON_AddStringToObject(o, "detail", SHUTDOWN_MSG);
                http_srv_answer(r, 503, cJSON_PrintUnformatted(o), NULL, 5);
                cJSON_Delete(o);
        }
        free(queued);
        fprintf(stderr, "sbx-run: http: draining: runs in flight finish, new requests get 503\n");
}

/* The runs in flight are given up: each is answered now and killed,
 * never waiting; they end in the loop's next steps. */
static void kill_all(struct http_srv *s)
{
        s->killing = true;
        for (struct http_req *r = s->reqs; r; r = r->next) {
                if (!r->job || r->killed)
                        continue;
                r->killed = true;
                if (r->conn && !r->gone)
                        http_srv_answer(r, 200, killed_answer(r), NULL, 0);
                s->ops->kill(r->job);
        }
}

/* Whether a request still has its connection (an answer to send). */
static bool any_connected(const struct http_srv *s)
{
        for (const struct http_req *r = s->reqs; r; r = r->next)
                if (r->conn)
                        return true;
        return false;
}

static int poll_once(struct http_srv *s, struct pollfd *pfds, const sigset_t *waitmask)
{
        int64_t now = sbx_now_ms(), deadline = now + SWEEP_MS;
        size_t n = collect(s, pfds, &deadline);
        int64_t mhd = http_srv_timeout_ms(s), wait = deadline - now;

        if (mhd >= 0 && mhd < wait)
                wait = mhd;
        if (wait < 0)
                wait = 0;
        struct timespec ts = { wait / 1000, (long)(wait % 1000) * 1000000 };
        if (ppoll(pfds, n, &ts, waitmask) < 0 && errno != EINTR)
                return -1;
        if (stop_signals >= 1 && !s->draining)
                drain(s);
        if (stop_signals >= 2 && !s->killing)
                kill_all(s);
        http_srv_run(s);
        after_poll(s, pfds);
        dispatch(s);
        /* a resumed connection is libmicrohttpd's to answer now: its
         * epoll fd does not say so, so the next wait would be one long */
        while (s->resumed) {
                s->resumed = false;
                http_srv_run(s);
        }
        return 0;
}

static void print_ready(const struct http_srv *s)
{
        const struct http_opts *o = s->o;
        char url[200];
        cJSON *r = cJSON_CreateObject();

        http_addr_url(&o->addr, url, sizeof(url));
        cJSON_AddStringToObject(r, "type", "ready");
        cJSON_AddStringToObject(r, "url", url);
        cJSON_AddStringToObject(r, "version", SBX_VERSION);
        cJSON_AddStringToObject(r, "tier", o->ready_tier ? o->ready_tier : "");
        cJSON_AddStringToObject(r, "python", o->ready_python ? o->ready_python : "");
        cJSON_AddNumberToObject(r, "jobs", o->slots);
        cJSON_AddNumberToObject(r, "queue", (double)o->queue_max);
        cJSON_AddBoolToObject(r, "token", o->token != NULL);
        cJSON_AddNumberToObject(r, "pid", (double)getpid());
        char *text = cJSON_PrintUnformatted(r);
        cJSON_Delete(r);
        if (text)
                printf("%s\n", text);
        fflush(stdout);
        free(text);
        fprintf(stderr, "sbx-run: listening on %s (tier %s, %d runs at once, a queue of %zu)%s\n",
                url, o->ready_tier ? o->ready_tier : "?", o->slots, o->queue_max,
                o->token ? ", a token required" : o->addr.is_unix ? ", the socket is yours alone (0600)" :
                ": no token, so every user of this machine can run code as you through it "
                "(--http-token-file)");
}

static int serve_loop(struct http_srv *s, const sigset_t *waitmask)
{
        size_t max = s->o->max_connections + (size_t)s->o->slots * PFDS_PER_JOB + 8;
        auto_free struct pollfd *pfds = calloc(max, sizeof(*pfds));
        int64_t last_sweep = 0, hard = 0;

        if (!pfds)
                return -1;
        for (;;) {
                if (poll_once(s, pfds, waitmask) < 0)
                        return -1;
                int64_t now = sbx_now_ms();
                if (now - last_sweep >= SWEEP_MS) {
                        http_srv_sweep(s, now);
                        last_sweep = now;
                }
                if (!s->draining)
                        continue;
                if (!hard)
                        hard = now + s->o->limits.max_timeout_ms + 2000LL * s->o->idle_timeout_s +
                               DRAIN_GRACE_MS;
                if (!any_connected(s))
                        return 0;
                if (now > hard && !s->killing)
                        kill_all(s);
                if (now > hard + DRAIN_GRACE_MS)
                        return 0;
        }
}

/* After the daemon stopped (every answer out): the runs left are killed
 * and reaped. */
static void reap_left(struct http_srv *s)
{
        struct pollfd none;

        for (struct http_req *r = s->reqs; r; r = r->next)
                if (r->job)
                        s->ops->kill(r->job);
        while (s->reqs) {
                struct http_req *next;
                for (struct http_req *r = s->reqs; r; r = next) {
                        next = r->next;
                        r->conn = NULL;
                        r->killed = true;
                        if (!r->job)
                                http_srv_req_free(s, r);
                        else if (s->ops->step(r->job, &none, 0, take_line, r) == 1)
                                finish_req(s, r);
                }
                if (s->reqs)
                        poll(NULL, 0, 10);
        }
}

int http_serve(const struct http_opts *o, const struct http_exec_ops *ops)
{
        static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
        struct sigaction ign = { .sa_handler = SIG_IGN };
        struct http_srv s = { .o = o, .ops = ops };
        struct sbx_err err = { 0 };
        sigset_t waitmask;
        int rc;

        if (sigaction(SIGPIPE, &ign, NULL) < 0 || sbx_catch_signals(sigs, 3, on_stop, &waitmask) < 0) {
                fprintf(stderr, "sbx-run: --http: signal handlers: %s\n", strerror(errno));
                return SBX_EXIT_SANDBOX;
        }
        http_metrics_init(&s.metrics, sbx_now_ms());
        if (!(s.admit = http_admit_new(o->queue_max, o->client_max)) || http_srv_start(&s, &err) < 0) {
                fprintf(stderr, "sbx-run: %s\n", err.msg[0] ? err.msg : "--http: out of memory");
                http_admit_free(s.admit);
                return SBX_EXIT_SANDBOX;
        }
        print_ready(&s);
        rc = serve_loop(&s, &waitmask);
        if (rc < 0)
                fprintf(stderr, "sbx-run: --http: ppoll: %s\n", strerror(errno));
        if (!s.draining)
                http_srv_quiesce(&s);
        http_srv_stop(&s);
        reap_left(&s);
        http_admit_free(s.admit);
        fprintf(stderr, "sbx-run: http: stopped\n");
        return rc < 0 ? SBX_EXIT_SANDBOX : SBX_EXIT_OK;
}
