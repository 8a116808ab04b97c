/* The HTTP server's one way down to the run engine: a table of functions
 * the server (http_loop.c) calls to carry out a request it has read,
 * checked and admitted, and to learn when it has ended. The server never
 * includes the engine's headers; http_exec_sbx.c implements the table on
 * the sandbox session (sandbox.h) and --serve's request executor
 * (serve.h), and a test may implement it on anything. One thread: every
 * call comes from the server's event loop, none blocks. */
#ifndef SBX_HTTP_EXEC_H
#define SBX_HTTP_EXEC_H

#include <poll.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "err.h"

/* A file sent with a request or fetched after it: a name relative to the
 * run's workdir (checked: http_file_name_check) and its bytes. */
struct http_file {
        char *name;
        unsigned char *data;
        size_t len;
};
void http_files_free(struct http_file *files, size_t n);

/* A /run_code request after translation (http_sf.c): every limit is
 * already clamped to the server's, every file name checked. */
struct http_code_request {
        char *language;                 /* SandboxFusion's name ("python") */
        char *code;
        size_t code_len;
        char *stdin_data;               /* NULL: none (stdin at EOF at once) */
        size_t stdin_len;
        int64_t run_timeout_ms;         /* > 0 */
        int64_t compile_timeout_ms;     /* > 0; languages that compile */
        long long memory_bytes;         /* address space; 0: the server's */
        struct http_file *files;        /* written into the workdir first */
        size_t n_files;
        char **fetch;                   /* read back from the workdir after */
        size_t n_fetch;
};
void http_code_request_free(struct http_code_request *rq);

/* One step (compile or run) as SandboxFusion reports it. */
enum http_step_status {
        HTTP_STEP_FINISHED,             /* ended by itself: exit code or signal */
        HTTP_STEP_TIME_LIMIT,           /* killed at its wall clock or CPU limit */
        HTTP_STEP_ERROR,                /* the sandbox failed; the step did not run */
};

struct http_step_result {
        bool present;                   /* false: null (no such step) */
        enum http_step_status status;
        double execution_time_s;
        bool has_return_code;
        int return_code;                /* exit code, or -signal */
        char *out, *err;                /* UTF-8 without NUL, malloc'd; NULL: null */
};

struct http_code_result {
        struct http_step_result compile, run;
        struct http_file *files;        /* fetched */
        size_t n_files;
        char *message;                  /* malloc'd, or NULL: "" */
        char tier[16];                  /* the tier that ran it ("" unknown) */
};
void http_code_result_free(struct http_code_result *res);

struct http_job;                        /* the engine's, opaque here */

/* An answer line of a native job, handed over (malloc'd, the callee's). */
typedef void (*http_emit_fn)(void *ctx, char *line);

struct http_exec_ops {
        void *ctx;
        /* Starts a /run_code request (rq stays the caller's until finish).
         * 0: in flight, *job set. -1: not started, err says why (answered
         * as a SandboxError: an unknown language, a file that cannot be
         * written, a sandbox that did not come up). */
        int (*start_code)(void *ctx, const struct http_code_request *rq,
                          struct http_job **job, struct sbx_err *err);
        /* Starts the JSON object of a --serve request line. A suite runs
         * at most max_jobs samples at once (its "jobs", else max_jobs);
         * *jobs: the run slots it holds (1 for a run). 0: in flight; -1:
         * refused or not started, *error_line the --serve error line
         * (malloc'd) and *http_status 400 (the request's fault) or 500. */
        int (*start_native)(void *ctx, const char *json, size_t len, int max_jobs, int *jobs,
                            struct http_job **job, char **error_line, int *http_status);
        /* Up to max fds to poll (POLLIN) for the job; how many. */
        size_t (*pollfds)(struct http_job *job, struct pollfd *pfds, size_t max);
        /* When step must be called even without an event (CLOCK_MONOTONIC
         * ms); INT64_MAX: never. */
        int64_t (*deadline_ms)(const struct http_job *job);
        /* Reads what is there, never blocks; a native job's answer lines
         * go to emit as they come. 1 once the job has ended. */
        int (*step)(struct http_job *job, const struct pollfd *pfds, size_t n,
                    http_emit_fn emit, void *emit_ctx);
        /* The job ended (step said 1): a code job's result into *res
         * (zeroed first; native jobs leave it zeroed). Frees the job. */
        void (*finish)(struct http_job *job, struct http_code_result *res);
        /* Kills the job's processes at once; step still runs to its end. */
        void (*kill)(struct http_job *job);
};

#endif
