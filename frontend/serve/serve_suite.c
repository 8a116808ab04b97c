/* A --serve suite request: `sbx-run --suite` runs as a child (the same
 * code, limits and results file as the command line), its results file is
 * followed as it grows so that each record is streamed as it ends, and its
 * --json summary becomes the last response. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "serve_suite.h"

#define SUITE_CAPTURE_MAX (4 << 20)     /* the child's summary and errors */
#define SUITE_REQUEST_ARGS 30       /* what a request adds: --suite S ... --language L */

struct capture {
        int fd;
        char *data;
        size_t len;
};

struct serve_suite {
        cJSON *id;
        pid_t pid;
        int results_fd;                 /* follows the results file */
        char *partial;                  /* a results line not yet whole */
        size_t partial_len;
        struct capture out, err;
        char *dir;                      /* ours, when the request gave no "out" */
        char *results_path;
};

/* A plain fork, not proc_spawn: the child stays in our session, so the
 * orphan sweep after each run (which reaps and, in the weak tiers, kills
 * children outside our session) leaves it and its exit status alone. */
static int spawn_child(struct serve_suite *s, char **argv, struct sbx_err *err)
{
        int out[2] = { -1, -1 }, errp[2] = { -1, -1 };
        auto_fd devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);

        if (devnull < 0 || pipe2(out, O_CLOEXEC) < 0 || pipe2(errp, O_CLOEXEC) < 0) {
                int e = errno;
                for (int i = 0; i < 2; i++)
                        if (out[i] >= 0)
                                close(out[i]);
                return sbx_fail_code(err, SBX_EXIT_SANDBOX, e, "suite: pipe");
        }
        s->pid = fork();
        if (s->pid == 0) {
                if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || dup2(devnull, 0) < 0 ||
                    dup2(out[1], 1) < 0 || dup2(errp[1], 2) < 0)
                        _exit(127);
                sigset_t none;
                sigemptyset(&none);
                sigprocmask(SIG_SETMASK, &none, NULL);
                signal(SIGPIPE, SIG_DFL);
                execv(argv[0], argv);
                /* on its stderr: the request's error line quotes it */
                dprintf(STDERR_FILENO, "sbx-run: running %s for the suite: %s\n", argv[0], strerror(errno));
                _exit(127);
        }
        int e = errno;
        close(out[1]);
        close(errp[1]);
        s->out.fd = out[0];
        s->err.fd = errp[0];
        if (s->pid < 0)
                return sbx_fail_code(err, SBX_EXIT_SANDBOX, e, "suite: fork");
        if (fcntl(s->out.fd, F_SETFL, O_NONBLOCK) < 0 ||
            fcntl(s->err.fd, F_SETFL, O_NONBLOCK) < 0)
                return sbx_fail_code(err, SBX_EXIT_SANDBOX, errno, "suite: pipe");
        return 0;
}

/* An io suite's options (serve_request.h), in the room of numbers: two
 * numbers of 16 bytes at most. */
static void add_judge(const struct serve_request *rq, char **argv, size_t *n, char *numbers)
{
        const char *opts[] = { "--compare", "--checker", "--io-format", "--language" };
        char *vals[] = { rq->compare, rq->checker, rq->io_format, rq->io_language };

        if (rq->all_tests)
                argv[(*n)++] = "--all-tests";
        if (rq->test_timeout_s > 0) {
                snprintf(numbers, 16, "%.3f", rq->test_timeout_s);
                argv[(*n)++] = "--test-timeout";
                argv[(*n)++] = numbers;
        }
        if (rq->time_scale > 0) {
                snprintf(numbers + 16, 16, "%g", rq->time_scale);
                argv[(*n)++] = "--time-scale";
                argv[(*n)++] = numbers + 16;
        }
        for (size_t i = 0; i < 4; i++) {
                if (vals[i]) {
                        argv[(*n)++] = (char *)opts[i];
                        argv[(*n)++] = vals[i];
                }
        }
}

/* The child's argv: every option the server was started with (a fixed
 * array once kept 47 of them: later ones were lost, and an option's value
 * could become another's), then the request's. NULL when out of memory. */
static char **build_argv(const struct serve_request *rq, const char *self, char *const *server_args,
                         const char *out, char *jobs, char *timeout, char *numbers)
{
        size_t n = 0, nserver = 0;
        char **argv;

        while (server_args[nserver])
                nserver++;
        argv = calloc(1 + nserver + SUITE_REQUEST_ARGS + 1, sizeof(*argv));
        if (!argv)
                return NULL;
        argv[n++] = (char *)self;
        memcpy(argv + n, server_args, nserver * sizeof(*argv));
        n += nserver;
        argv[n++] = "--suite";
        argv[n++] = rq->suite;
        if (rq->problems) {
                argv[n++] = "--problems";
                argv[n++] = rq->problems;
        }
        if (rq->canonical) {
                argv[n++] = "--canonical";
        } else {
                argv[n++] = "--samples";
                argv[n++] = rq->samples;
        }
        if (rq->k) {
                argv[n++] = "--k";
                argv[n++] = rq->k;
        }
        if (rq->jobs > 0) {
                snprintf(jobs, 16, "%d", rq->jobs);
                argv[n++] = "--jobs";
                argv[n++] = jobs;
        }
        argv[n++] = "--out";
        argv[n++] = (char *)out;
        argv[n++] = "--json";
        argv[n++] = "--no-progress";
        if (rq->timeout_ms > 0) {
                snprintf(timeout, 32, "%.3f", (double)rq->timeout_ms / 1000);
                argv[n++] = "--timeout";
                argv[n++] = timeout;
        }
        add_judge(rq, argv, &n, numbers);
        return argv;
}

int serve_suite_start(struct serve_suite **out, const struct serve_request *rq,
                      const char *self, char *const *server_args,
                      struct sandbox *sb, struct sbx_err *err)
{
        struct serve_suite *s = calloc(1, sizeof(*s));
        char *results = NULL;
        char jobs[16], timeout[32], numbers[32];

        if (!s)
                return sbx_fail_oom(err, "suite");
        s->results_fd = s->out.fd = s->err.fd = -1;
        s->pid = -1;
        *out = s;
        if (!(s->id = cJSON_Duplicate(rq->id, false)))
                return sbx_fail_oom(err, "suite");
        if (!rq->out && !(s->dir = sandbox_mkdtemp(sb, err)))
                return -1;
        if (rq->out)
                results = strdup(rq->out);
        else if (asprintf(&results, "%s/results.jsonl", s->dir) < 0)
                results = NULL;
        if (!results)
                return sbx_fail_oom(err, "suite");
        s->results_path = results;
        /* opened before the child truncates it: the same file, followed from 0 */
        s->results_fd = open(results, O_RDONLY | O_CREAT | O_CLOEXEC, 0644);
        if (s->results_fd < 0)
                return sbx_fail(err, errno, "suite: %s", results);
        auto_free char **argv = build_argv(rq, self, server_args, results, jobs, timeout, numbers);
        if (!argv)
                return sbx_fail_oom(err, "suite");
        return spawn_child(s, argv, err);
}

size_t serve_suite_pollfds(const struct serve_suite *s, struct pollfd *pfds)
{
        size_t n = 0;

        if (s->out.fd >= 0)
                pfds[n++] = (struct pollfd){ .fd = s->out.fd, .events = POLLIN };
        if (s->err.fd >= 0)
                pfds[n++] = (struct pollfd){ .fd = s->err.fd, .events = POLLIN };
        return n;
}

/* Appends n bytes to a growing buffer, kept NUL-terminated; -1 when out
 * of memory (the buffer is then as it was). */
static int append_bytes(char **data, size_t *len, const char *src, size_t n)
{
        char *d = realloc(*data, *len + n + 1);

        if (!d)
                return -1;
        memcpy(d + *len, src, n);
        *data = d;
        *len += n;
        d[*len] = '\0';
        return 0;
}

/* Drains a pipe without blocking; past the cap, the bytes are dropped. */
static void drain(struct capture *c)
{
        char buf[65536];
        ssize_t n;

        while (c->fd >= 0 && (n = read(c->fd, buf, sizeof(buf))) != 0) {
                if (n < 0) {
                        if (errno == EINTR)
                                continue;
                        if (errno == EAGAIN)
                                return;
                        break;
                }
                if (c->len + (size_t)n <= SUITE_CAPTURE_MAX)
                        append_bytes(&c->data, &c->len, buf, (size_t)n);
        }
        if (c->fd >= 0)
                close(c->fd);
        c->fd = -1;
}

static char *tagged(const cJSON *id, const char *type, const char *key, cJSON *item)
{
        cJSON *o = cJSON_CreateObject();
        char *text;

        cJSON_AddItemToObject(o, "id", cJSON_Duplicate(id, false));
        cJSON_AddStringToObject(o, "type", type);
        cJSON_AddItemToObject(o, key, item);
        text = cJSON_PrintUnformatted(o);
        cJSON_Delete(o);
        return text;
}

/* New whole lines of the results file become "record" responses. */
static void follow_results(struct serve_suite *s, void (*emit)(void *, char *), void *ctx)
{
        char buf[65536];
        ssize_t n;

        while ((n = read(s->results_fd, buf, sizeof(buf))) > 0)
                if (append_bytes(&s->partial, &s->partial_len, buf, (size_t)n) < 0)
                        return;
        size_t start = 0;
        for (size_t i = 0; i < s->partial_len; i++) {
                if (s->partial[i] != '\n')
                        continue;
                cJSON *rec = cJSON_ParseWithLength(s->partial + start, i - start);
                if (rec)
                        emit(ctx, tagged(s->id, "record", "record", rec));
                start = i + 1;
        }
        memmove(s->partial, s->partial + start, s->partial_len - start);
        s->partial_len -= start;
}

/* The child's last stderr line says why it failed. */
static void emit_failure(struct serve_suite *s, int status,
                         void (*emit)(void *, char *), void *ctx)
{
        char why[1024];
        char *text = s->err.data ? s->err.data : "";
        size_t len = s->err.len;

        while (len && (text[len - 1] == '\n' || text[len - 1] == '\r'))
                text[--len] = '\0';
        char *last = strrchr(text, '\n');
        snprintf(why, sizeof(why), "suite: %s (exit %d)", last ? last + 1 : text,
                 WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
        emit(ctx, serve_error_line(s->id, why));
}

int serve_suite_step(struct serve_suite *s, void (*emit)(void *, char *), void *ctx)
{
        int status;

        drain(&s->out);
        drain(&s->err);
        follow_results(s, emit, ctx);
        if (s->out.fd >= 0 || s->err.fd >= 0)
                return 0;
        if (waitpid(s->pid, &status, 0) < 0 && errno == EINTR)
                return 0;
        s->pid = -1;
        follow_results(s, emit, ctx);
        cJSON *sum = s->out.data ? cJSON_Parse(s->out.data) : NULL;
        if (WIFEXITED(status) && WEXITSTATUS(status) == 0 && sum)
                emit(ctx, tagged(s->id, "summary", "summary", sum));
        else {
                cJSON_Delete(sum);
                emit_failure(s, status, emit, ctx);
        }
        return 1;
}

void serve_suite_kill(struct serve_suite *s)
{
        if (s->pid > 0)
                kill(s->pid, SIGTERM);  /* the suite kills its runs, then exits */
}

void serve_suite_free(struct serve_suite *s)
{
        if (s->pid > 0) {
                kill(s->pid, SIGKILL);
                while (waitpid(s->pid, NULL, 0) < 0 && errno == EINTR)
                        ;
        }
        if (s->out.fd >= 0)
                close(s->out.fd);
        if (s->err.fd >= 0)
                close(s->err.fd);
        if (s->results_fd >= 0)
                close(s->results_fd);
        if (s->dir) {           /* ours: the results went out as records */
                unlink(s->results_path);
                rmdir(s->dir);
        }
        free(s->out.data);
        free(s->err.data);
        free(s->partial);
        free(s->dir);
        free(s->results_path);
        cJSON_Delete(s->id);
        free(s);
}
