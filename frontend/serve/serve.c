/* sbx-run --serve: the event loop. stdin is read only when poll says so
 * (a line is parsed once its newline arrives), requests wait in a FIFO
 * while -j runs are in flight, and each ended run becomes one response
 * line. EOF on stdin drains the runs in flight and exits 0; the client's
 * death (a pidfd on the parent), SIGTERM, SIGINT or a broken stdout kill
 * every run at once. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "results.h"
#include "serve.h"
#include "serve_exec.h"
#include "serve_lang.h"
#include "stop_signals.h"
#include "util.h"

#define READ_CHUNK        (1 << 20)
#define PFDS_PER_JOB      8
#define QUEUE_PER_SLOT    4       /* requests read ahead per -j slot */

struct job {
        struct job *next;               /* FIFO while waiting */
        struct serve_request rq;        /* until it starts */
        struct serve_job *job;          /* once it started (serve_exec.h) */
        size_t pfd_off, npfd;
};

struct server {
        struct serve_opts *opts;
        struct sandbox *sb;
        struct serve_exec x;            /* what every job shares */
        struct lang_session *lang;      /* builds, from the first request in a language */
        int parallel, inflight;
        struct job **slots;
        struct job *head, *tail;
        size_t queued;
        char *buf;                      /* bytes read, not yet a whole line */
        size_t len, cap, scanned;
        bool discarding, eof, dead;     /* dead: client gone or stop signal */
        int parent_fd;
        char self[PATH_MAX];
        char **args;                    /* the server's own options, for suites */
        struct pollfd *pfds;
};

static volatile sig_atomic_t stop_signal;

static void on_stop(int sig) { stop_signal = sig; }

/* One response line. A client that stopped reading is gone: everything stops. */
static void emit(void *vsrv, char *line)
{
        struct server *S = vsrv;

        if (!line) {
                line = serve_error_line(NULL, "out of memory building a response");
                if (!line)
                        return;
        }
        size_t n = strlen(line);
        line[n] = '\n';
        if (!S->dead && sbx_write_all(STDOUT_FILENO, line, n + 1) < 0)
                S->dead = true;
        free(line);
}

static void emit_error(struct server *S, const cJSON *id, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));
static void emit_error(struct server *S, const cJSON *id, const char *fmt, ...)
{
        char why[1200];
        va_list ap;

        va_start(ap, fmt);
        vsnprintf(why, sizeof(why), fmt, ap);
        va_end(ap);
        emit(S, serve_error_line(id, why));
}

static void job_free(struct job *j)
{
        serve_job_free(j->job);
        serve_request_free(&j->rq);
        free(j);
}

static void fill_slots(struct server *S)
{
        for (int i = 0; i < S->parallel && S->head && !S->dead; i++) {
                if (S->slots[i])
                        continue;
                struct job *j = S->head;
                struct sbx_err err = { 0 };
                S->head = j->next;
                if (!S->head)
                        S->tail = NULL;
                S->queued--;
                if (serve_job_request(&S->x, &j->rq, &j->job, &err) < 0) {
                        emit_error(S, j->rq.id, "%s", err.msg);
                        job_free(j);
                        i--;            /* the slot is still free */
                        continue;
                }
                S->slots[i] = j;
                S->inflight++;
        }
}

static void enqueue(struct server *S, const char *line, size_t len)
{
        struct job *j = calloc(1, sizeof(*j));
        cJSON *id = NULL;
        char why[512];

        if (!j) {
                emit_error(S, NULL, "out of memory reading a request");
                return;
        }
        if (serve_parse_request(line, len, &j->rq, &id, why, sizeof(why)) < 0) {
                emit_error(S, id, "%s", why);
                cJSON_Delete(id);
                free(j);
                return;
        }
        if (S->tail)
                S->tail->next = j;
        else
                S->head = j;
        S->tail = j;
        S->queued++;
}

/* Whole lines in buf become requests; a line past the cap is answered
 * with an error at once and the rest of it discarded up to its newline. */
static void take_lines(struct server *S)
{
        size_t start = 0;

        for (;;) {
                char *nl = memchr(S->buf + S->scanned, '\n', S->len - S->scanned);
                if (!nl) {
                        S->scanned = S->len;
                        break;
                }
                size_t end = (size_t)(nl - S->buf);
                if (!S->discarding && end - start > (size_t)SERVE_MAX_LINE_BYTES)
                        emit_error(S, NULL, "request line longer than %lld bytes: "
                                   "discarded", SERVE_MAX_LINE_BYTES);
                else if (!S->discarding && end > start)
                        enqueue(S, S->buf + start, end - start);
                S->discarding = false;
                start = S->scanned = end + 1;
        }
        memmove(S->buf, S->buf + start, S->len - start);
        S->len -= start;
        S->scanned -= start;
        if (S->len > (size_t)SERVE_MAX_LINE_BYTES || (S->discarding && S->len)) {
                if (!S->discarding)
                        emit_error(S, NULL, "request line longer than %lld bytes: "
                                   "discarded", SERVE_MAX_LINE_BYTES);
                S->discarding = true;
                S->len = S->scanned = 0;
        }
}

static void read_stdin(struct server *S)
{
        if (S->cap - S->len < READ_CHUNK) {
                size_t cap = S->len + READ_CHUNK;
                char *b = realloc(S->buf, cap);
                if (!b) {
                        emit_error(S, NULL, "out of memory reading requests");
                        S->discarding = true;
                        S->len = S->scanned = 0;
                        return;
                }
                S->buf = b;
                S->cap = cap;
        }
        ssize_t n = read(STDIN_FILENO, S->buf + S->len, READ_CHUNK);
        if (n < 0 && (errno == EINTR || errno == EAGAIN))
                return;
        if (n <= 0) {
                /* a last line without its newline is still a request */
                if (S->len && !S->discarding)
                        enqueue(S, S->buf, S->len);
                S->len = S->scanned = 0;
                S->eof = true;
                return;
        }
        S->len += (size_t)n;
        take_lines(S);
}

static void end_slot(struct server *S, int i)
{
        job_free(S->slots[i]);
        S->slots[i] = NULL;
        S->inflight--;
}

/* Steps every job; each that ended answers (unless the client is gone). */
static void step_all(struct server *S)
{
        for (int i = 0; i < S->parallel; i++) {
                struct job *j = S->slots[i];
                if (j && serve_job_step(j->job, S->pfds + j->pfd_off, j->npfd, emit, S) == 1)
                        end_slot(S, i);
        }
}

/* The pollfds of stdin (when more requests are welcome), the client's
 * pidfd and every job; returns the poll timeout in ms. */
static int collect_pfds(struct server *S, size_t *n)
{
        int64_t nearest = INT64_MAX;

        *n = 0;
        if (!S->eof && S->queued < (size_t)S->parallel * QUEUE_PER_SLOT)
                S->pfds[(*n)++] = (struct pollfd){ .fd = STDIN_FILENO, .events = POLLIN };
        if (S->parent_fd >= 0)
                S->pfds[(*n)++] = (struct pollfd){ .fd = S->parent_fd, .events = POLLIN };
        for (int i = 0; i < S->parallel; i++) {
                struct job *j = S->slots[i];
                if (!j)
                        continue;
                j->pfd_off = *n;
                j->npfd = serve_job_pollfds(j->job, S->pfds + *n, PFDS_PER_JOB);
                if (serve_job_deadline_ms(j->job) < nearest)
                        nearest = serve_job_deadline_ms(j->job);
                *n += j->npfd;
        }
        if (nearest == INT64_MAX)
                return -1;
        int64_t wait = nearest - sbx_now_ms();
        return wait < 0 ? 0 : wait > 1000 ? 1000 : (int)wait;
}

/* The client is gone (or a stop signal came): every run is killed at once
 * and reaped; no response is written. */
static void kill_all(struct server *S)
{
        S->dead = true;
        for (int i = 0; i < S->parallel; i++)
                if (S->slots[i])
                        serve_job_kill(S->slots[i]->job);
        while (S->inflight > 0) {
                size_t n;
                S->eof = true;
                int wait = collect_pfds(S, &n);
                (void)poll(S->pfds, n, wait < 0 || wait > 100 ? 100 : wait);
                step_all(S);
        }
        while (S->head) {
                struct job *j = S->head;
                S->head = j->next;
                job_free(j);
        }
}

static bool parent_gone(struct server *S, size_t n)
{
        for (size_t i = 0; i < n; i++)
                if (S->pfds[i].fd == S->parent_fd && S->parent_fd >= 0 && S->pfds[i].revents)
                        return true;
        return getppid() == 1;
}

static int serve_loop(struct server *S, const sigset_t *waitmask)
{
        while (!S->eof || S->head || S->inflight > 0) {
                size_t n;
                fill_slots(S);
                int wait = collect_pfds(S, &n);
                struct timespec ts = { wait / 1000, (long)(wait % 1000) * 1000000 };
                if (ppoll(S->pfds, n, wait < 0 ? NULL : &ts, waitmask) < 0 && errno != EINTR)
                        return -1;
                if (stop_signal || S->dead || (n && parent_gone(S, n))) {
                        kill_all(S);
                        return stop_signal ? 128 + stop_signal : SBX_EXIT_FAILED;
                }
                if (n && S->pfds[0].fd == STDIN_FILENO && S->pfds[0].revents)
                        read_stdin(S);
                step_all(S);
                if (S->dead) {
                        kill_all(S);
                        return SBX_EXIT_FAILED;
                }
        }
        return SBX_EXIT_OK;
}

/* The client's death is seen through a pidfd on the parent, not
 * PR_SET_PDEATHSIG alone: that fires when the parent *thread* ends, and a
 * Python client may start the server from a worker thread that ends while
 * the Sandbox lives on. PDEATHSIG is the fallback without pidfd_open. */
static int watch_parent(struct server *S)
{
        pid_t ppid = getppid();

        S->parent_fd = (int)syscall(SYS_pidfd_open, ppid, 0);
        if (S->parent_fd < 0 && prctl(PR_SET_PDEATHSIG, SIGTERM) < 0)
                return -1;
        return ppid == 1 || getppid() != ppid ? -1 : 0;
}

static int install_signals(sigset_t *waitmask)
{
        static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
        struct sigaction ign = { .sa_handler = SIG_IGN };

        if (sigaction(SIGPIPE, &ign, NULL) < 0 ||
            sbx_catch_signals(sigs, 3, on_stop, waitmask) < 0)
                return -1;
        return 0;
}

static void emit_ready(struct server *S)
{
        cJSON *o = cJSON_CreateObject();

        cJSON_AddNullToObject(o, "id");
        cJSON_AddStringToObject(o, "type", "ready");
        cJSON_AddStringToObject(o, "version", SBX_VERSION);
        cJSON_AddStringToObject(o, "tier", tier_name(sandbox_tier(S->sb)));
        cJSON_AddStringToObject(o, "python", sandbox_python(S->sb));
        cJSON_AddNumberToObject(o, "jobs", S->parallel);
        cJSON_AddNumberToObject(o, "max_line_bytes", (double)SERVE_MAX_LINE_BYTES);
        emit(S, cJSON_PrintUnformatted(o));
        cJSON_Delete(o);
}

/* The options a suite child gets: the server's own, without --serve. */
static char **server_args(int argc, char **argv)
{
        char **args = calloc((size_t)argc + 1, sizeof(char *));
        int n = 0;

        for (int i = 1; args && i < argc; i++)
                if (strcmp(argv[i], "--serve") != 0)
                        args[n++] = argv[i];
        return args;
}

static int serve_setup(struct server *S, int argc, char **argv, struct sbx_err *err)
{
        ssize_t n = readlink("/proc/self/exe", S->self, sizeof(S->self) - 1);

        if (n < 0)
                return sbx_fail_code(err, SBX_EXIT_SANDBOX, errno, "/proc/self/exe");
        S->self[n] = '\0';
        S->parallel = S->opts->jobs > 0 ? S->opts->jobs : (int)sysconf(_SC_NPROCESSORS_ONLN);
        if (S->parallel < 1)
                S->parallel = 1;
        S->slots = calloc((size_t)S->parallel, sizeof(*S->slots));
        S->pfds = calloc((size_t)S->parallel * PFDS_PER_JOB + 2, sizeof(*S->pfds));
        S->args = server_args(argc, argv);
        if (!S->slots || !S->pfds || !S->args)
                return sbx_fail_oom(err, "--serve");
        if (watch_parent(S) < 0)
                return sbx_fail_code(err, SBX_EXIT_SANDBOX, errno, "--serve: the client is gone");
        S->opts->sb.probe_by_first_run = false;
        if (sandbox_open(&S->sb, &S->opts->sb, err) < 0)
                return -1;
        sandbox_warm_expect(S->sb, (size_t)S->parallel);
        S->x = (struct serve_exec){
                .sb = S->sb, .self = S->self, .suite_args = S->args,
                .default_timeout_ms = S->opts->timeout_ms, .cpu_limit_s = S->opts->cpu_limit_s,
                .compile_timeout_ms = S->opts->compile_timeout_ms, .lang = &S->lang,
        };
        return 0;
}

int serve_main(struct serve_opts *opts, int argc, char **argv)
{
        struct server S = { .opts = opts, .parent_fd = -1 };
        struct sbx_err err = { 0 };
        sigset_t waitmask;
        int rc;

        if (install_signals(&waitmask) < 0) {
                fprintf(stderr, "sbx-run: --serve: signal handlers: %s\n", strerror(errno));
                return SBX_EXIT_SANDBOX;
        }
        if (serve_setup(&S, argc, argv, &err) < 0) {
                fprintf(stderr, "sbx-run: %s\n", err.msg);
                emit(&S, serve_error_line(NULL, err.msg));
                rc = err.exit_code ? err.exit_code : SBX_EXIT_USAGE;
        } else {
                emit_ready(&S);
                rc = serve_loop(&S, &waitmask);
                if (rc < 0) {
                        fprintf(stderr, "sbx-run: --serve: ppoll: %s\n", strerror(errno));
                        kill_all(&S);
                        rc = SBX_EXIT_SANDBOX;
                }
        }
        serve_lang_close(S.lang);
        if (S.sb)
                sandbox_close(S.sb);
        if (S.parent_fd >= 0)
                close(S.parent_fd);
        free(S.buf);
        free(S.slots);
        free(S.pfds);
        free(S.args);
        return rc;
}
