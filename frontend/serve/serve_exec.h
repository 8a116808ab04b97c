/* The request executor the servers share: --serve (serve.c) and the HTTP
 * server (serve/http/http_exec_sbx.c) run every request through it, so a
 * run is set up in one place. A run request's program, and a /run_code
 * program, is written into a fresh workdir of the session's and run by
 * the trusted driver's plain mode (`python -I -B -c DRIVER plain ...`),
 * the shape a zygote runs warm: with the session warm it goes through
 * the pool, with a suite sample's isolation, else (or where the pool
 * declines it) cold. run_argv runs the caller's argv in the caller's
 * directory; a suite request is a child sbx-run (serve_suite.c). A run
 * request in another language is built then run (serve_lang.c). Every
 * call is from one event loop; none blocks. */
#ifndef SBX_SERVE_EXEC_H
#define SBX_SERVE_EXEC_H

#include <poll.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sandbox.h"
#include "serve_request.h"

/* What every job of a server shares; borrowed, it outlives the jobs. */
struct serve_exec {
        struct sandbox *sb;
        const char *self;               /* sbx-run, which a suite's child runs */
        char *const *suite_args;        /* the server's own options, for that child */
        int64_t default_timeout_ms;     /* a request's without one; 0: DEFAULT_TIMEOUT_MS */
        int64_t max_timeout_ms;         /* a request's is cut to it; 0: none */
        int64_t cpu_limit_s;            /* --cpu; 0: a single run's, from its timeout */
        int64_t max_cpu_s;              /* the cpu limit is cut to it; 0: none */
        int64_t compile_timeout_ms;     /* --compile-timeout; 0: the language's */
        /* The server's session of builds (serve_lang.h), opened at the first
         * request in another language than Python; the server closes it. */
        struct lang_session **lang;
};

/* A program run: its text written into a fresh workdir, never on argv;
 * its strings borrowed until serve_job_start. */
struct serve_program {
        const char *code;
        size_t code_len;
        const char *stdin_data;         /* its stdin (the run spec's); NULL: /dev/null */
        size_t stdin_len;
        char *const *env;               /* NAME=VALUE for this run, or NULL */
        int64_t timeout_ms;             /* 0: the default */
        long long memory_bytes;         /* 0: the session's (a run may only lower it) */
        bool dir_on_path;               /* its directory first on sys.path (python FILE.py) */
        /* The caller writes files into the workdir before the run and reads
         * it after (serve_job_workdir): a directory of the host, bound
         * writable, so the run is cold. false: private (a tmpfs in the
         * run), warm where the session is. */
        bool host_workdir;
        /* Another language than Python (lang/'s row; NULL: Python): built
         * (cached) then run by lang/, in directories of its own (no
         * host_workdir); code is borrowed until serve_job_start. */
        const struct lang_row *language;
        int64_t compile_timeout_ms;     /* 0: the server's */
};

#define SERVE_JOB_MAX_PFDS 4

struct lang_build_info;
struct lang_row;
struct lang_session;
struct serve_job;

/* A program's job, its workdir made and its program written; started by
 * serve_job_start. 0, or -1 with err. */
int serve_job_program(const struct serve_exec *x, const struct serve_program *p,
                      struct serve_job **out, struct sbx_err *err);
const char *serve_job_workdir(const struct serve_job *j);
int serve_job_start(struct serve_job *j, struct sbx_err *err);
/* A --serve request (run, run_argv, suite), started: 0 with *out, rq's
 * contents moved into the job (rq zeroed); or -1 with err, rq untouched. */
int serve_job_request(const struct serve_exec *x, struct serve_request *rq,
                      struct serve_job **out, struct sbx_err *err);

/* Up to max fds to poll (POLLIN); how many. */
size_t serve_job_pollfds(const struct serve_job *j, struct pollfd *pfds, size_t max);
/* When step must be called without an event (CLOCK_MONOTONIC ms). */
int64_t serve_job_deadline_ms(const struct serve_job *j);
/* Reads what is there, never blocks. A request's answer lines go to
 * emit(ctx, line) (malloc'd, the callee's) as they come: a run's result
 * line with its id, a suite's records and summary. 1 once the job ended. */
int serve_job_step(struct serve_job *j, const struct pollfd *pfds, size_t n,
                   void (*emit)(void *, char *), void *ctx);
/* A program's result, once step said 1 (NULL before, and for requests). */
const struct run_result *serve_job_result(const struct serve_job *j);
/* A program in another language: its build (NULL: Python, or not yet). */
const struct lang_build_info *serve_job_build(const struct serve_job *j);
/* Kills the job's processes without waiting (a warm run's zygote is
 * asked to end it); step still runs to its end. */
void serve_job_kill(struct serve_job *j);
/* Removes its workdir; kills what still runs. */
void serve_job_free(struct serve_job *j);

#endif
