/* struct sbx_run and the backends that run it, shared by run.c (start,
 * step, the fall back from warm to cold), run_cold.c and run_warm.c (the
 * two backends) and run_finish.c (the result). */
#ifndef SBX_RUN_INTERNAL_H
#define SBX_RUN_INTERNAL_H

#include <stdbool.h>
#include <sys/resource.h>
#include <sys/types.h>

#include "argv.h"
#include "output.h"
#include "sandbox.h"
#include "tier_ops.h"

#define STATUS_MAX_BYTES   8192
#define KILL_RECHECK_MS    200

struct run_warm;

struct sbx_run {
        struct sandbox *sb;
        struct sbx_run *next;           /* session's list of runs in flight */
        const struct tier_ops *tier;
        const struct run_backend *backend;      /* how it runs now: cold or warm */
        pid_t pid;
        int pidfd, out_fd, err_fd, status_fd;
        int data_fd;                    /* the spec's (borrowed), or -1 */
        int stdin_fd;                   /* the run's sealed stdin (owned), or -1: /dev/null */
        /* stdout to the caller's file too (run_spec.stdout_fd, borrowed; -1:
         * none) from stdout_start, stdout_filed bytes so far; past
         * stdout_limit (0: none) the run is stopped (output_limited). */
        int stdout_file;
        off_t stdout_start;
        int64_t stdout_filed, stdout_limit;
        int stdout_errno;               /* writing that file failed: the run is an error */
        bool output_limited;
        char *workdir;
        int64_t timeout_ms, cpu_limit_s;
        long long memory_bytes;         /* the run's: spec's or session's (-1: none) */
        long long fsize_bytes;          /* the spec's, else the session's */
        int64_t start_ms, end_ms, deadline_ms;
        struct output_capture out_cap, err_cap;
        char status_buf[STATUS_MAX_BYTES + 1];  /* helper status JSON / bwrap json-status */
        size_t status_len;
        bool reaped, killed, killed_wall, interrupted;
        int wait_status;
        struct rusage ru;
        struct run_result res;
        /* A run sent warm (docs/warm.md): its spec, kept to send again or
         * to run cold, and the pool's run (run_warm.c); NULL otherwise. */
        struct run_warm *warm;
        bool stalled;                   /* its zygote missed the backstop: killed */
};

/* A way to run a spec, as a tier is a row: cold, a process through the
 * session's tier (run_cold.c); warm, a sample sent to a zygote of the
 * session's pool (run_warm.c, over warm/). run.c starts a warm session's
 * runs warm and falls back to cold, in one place. */
enum run_step {
        RUN_STEP_GOES_ON = 0,
        RUN_STEP_ENDED,                 /* reaped: finish it */
        RUN_STEP_AGAIN,                 /* started again in place: its output so far is dropped */
        RUN_STEP_COLD,                  /* given up by its backend: run it cold */
};
struct run_backend {
        /* 1 in flight (r's fds, start and deadline set), 0 declined (the
         * next backend runs it), -1 with err */
        int (*start)(struct sbx_run *r, const struct run_spec *spec, struct sbx_err *err);
        /* after r's pipes were drained, or at its deadline: enum run_step */
        enum run_step (*step)(struct sbx_run *r);
        void (*kill)(struct sbx_run *r);
        /* reads its status text (NULL: the tier's classifier) */
        int (*classify)(struct run_result *res, const char *text, int *code, int *sig);
};
extern const struct run_backend cold_backend, warm_backend;

int run_start_tier(struct sandbox *sb, const struct tier_ops *t,
                   const struct run_spec *spec, struct sbx_run **out,
                   struct sbx_err *err);
void run_free(struct sbx_run *r);           /* run_finish.c */
/* run_io.c: reads what the run's pipes hold, without blocking; drops the
 * output and status read so far. */
void run_drain(struct sbx_run *r);
void run_reset_output(struct sbx_run *r);
/* run_io.c: stdout past the spec's limit stops the run (its backend's kill). */
void run_check_output_limit(struct sbx_run *r);
/* run_io.c: the spec's stdin as a sealed file of the run's own in
 * r->stdin_fd (-1 when the spec has none); 0, or -1 with err. Each start
 * (cold, warm, again after a lost warm run) opens it afresh (read-only,
 * at offset 0), so that no start's reads move the next one's. */
int run_stdin_open(struct sbx_run *r, const struct run_spec *spec, struct sbx_err *err);
/* run_cold.c: the env and argv a run of tier t would get (also for
 * --print-argv), with the run's limits (memory_bytes: its address space,
 * -1 none). */
int run_build_argv(struct sandbox *sb, const struct tier_ops *t,
                   const struct run_spec *spec, int64_t timeout_ms,
                   int64_t cpu_limit_s, long long memory_bytes,
                   struct strvec *env, struct strvec *argv);
/* run_finish.c: SIGKILL to the run's process group and its first process. */
void run_kill_tree(struct sbx_run *r);
/* run_warm.c: the spec a warm run was started with (copied), to run it
 * cold; and the warm part of a run freed. */
const struct run_spec *run_warm_spec(const struct sbx_run *r);
void run_warm_free(struct run_warm *w);

/* Pure classification, unit tested: fills res->status/returncode/signal/
 * detail from the wait status, the tier's status text and the limits. */
void run_classify(struct run_result *res, enum tier t, int wait_status,
                  const char *status_text, bool killed_wall, bool interrupted,
                  long long cpu_limit_s);
/* The same with the report read by classify (NULL: none) instead of the
 * tier's own: a warm run's status line is the helper's format whatever
 * the tier. */
void run_classify_with(struct run_result *res, enum tier t,
                       int (*classify)(struct run_result *, const char *, int *, int *),
                       int wait_status, const char *status_text, bool killed_wall,
                       bool interrupted, long long cpu_limit_s);

#endif
