/* sbx-run --serve: one long-lived frontend that reads JSON-lines requests
 * on stdin and writes JSON-lines responses on stdout, tagged with each
 * request's "id", running up to -j of them at once in the sandbox it set up
 * once. The protocol is in man/sbx-run.1 (SERVE PROTOCOL) and
 * docs/python.md. */
#ifndef SBX_SERVE_H
#define SBX_SERVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <poll.h>

#include <cjson/cJSON.h>

#include "sandbox.h"

#define SERVE_MAX_LINE_BYTES    (64LL << 20)    /* one request line, newline excluded */
#define SERVE_MAX_TIMEOUT_MS    (24LL * 3600 * 1000)
#define SERVE_MAX_ARGS          4096            /* argv, env, k entries */

/* What the server takes from sbx-run's command line (cli/main.c). */
struct serve_opts {
        struct sandbox_opts sb;         /* the session every request runs in */
        int64_t timeout_ms;             /* a request's default; 0: DEFAULT_TIMEOUT_MS */
        int64_t cpu_limit_s;            /* --cpu; 0: the timeout's */
        int jobs;                       /* -j; 0: the number of CPUs */
};

/* Serves requests on stdin until EOF or a stop signal; argv is sbx-run's
 * own, which a suite request's child sbx-run reuses. Returns sbx-run's
 * exit status. */
int serve_main(struct serve_opts *opts, int argc, char **argv);

enum serve_type {
        SERVE_RUN = 1,          /* "run": program text in a fresh private workdir */
        SERVE_RUN_ARGV,         /* "run_argv": argv in the caller's workdir */
        SERVE_SUITE,            /* "suite": score a suite, records streamed */
};

struct serve_request {
        enum serve_type type;
        cJSON *id;                      /* owned copy: a string or a number */
        int64_t timeout_ms;             /* 0 = the server's default */
        char *code;                     /* run */
        size_t code_len;
        char **argv;                    /* run_argv, NULL-terminated */
        char *workdir;                  /* run_argv */
        char **env;                     /* NAME=VALUE, NULL-terminated, or NULL */
        /* suite */
        char *suite, *problems, *samples, *out, *k;
        bool canonical;
        int jobs;                       /* 0 = the server's -j */
};

/* Parses one request line (pure, unit tested). On error returns -1 with
 * a reason in why, and *id_out set to the request's id when one could be
 * read (else NULL; the caller frees it). */
int serve_parse_request(const char *line, size_t len, struct serve_request *rq,
                        cJSON **id_out, char *why, size_t why_len);
void serve_request_free(struct serve_request *rq);

/* Responses: one JSON object a line, each with "id" (null when the
 * request's could not be read) and "type". */
char *serve_error_line(const cJSON *id, const char *why);


/* serve_suite.c: a suite request runs `sbx-run --suite` as a child (the
 * same code as the command line) and streams its result records. */
struct serve_suite;
int serve_suite_start(struct serve_suite **out, const struct serve_request *rq,
                      const char *self, char *const *server_args,
                      struct sandbox *sb, struct sbx_err *err);
/* Fills up to 2 pollfds; returns how many. */
size_t serve_suite_pollfds(const struct serve_suite *s, struct pollfd *pfds);
/* Reads what is there, emits result lines through emit(ctx, line);
 * returns 1 once the child has exited and its summary was emitted. */
int serve_suite_step(struct serve_suite *s, void (*emit)(void *, char *), void *ctx);
void serve_suite_kill(struct serve_suite *s);
void serve_suite_free(struct serve_suite *s);

#endif
