/* struct sbx_run, shared by run.c (spawn, step) and run_finish.c
 * (classification of the result). */
#ifndef SBX_RUN_INTERNAL_H
#define SBX_RUN_INTERNAL_H

#include <stdbool.h>
#include <sys/resource.h>
#include <sys/types.h>

#include "argv.h"
#include "output.h"
#include "sandbox.h"
#include "tier_ops.h"

struct sbx_run {
        struct sandbox *sb;
        struct sbx_run *next;           /* session's list of runs in flight */
        const struct tier_ops *tier;
        pid_t pid;
        int pidfd, out_fd, err_fd, status_fd;
        int data_fd;                    /* the spec's (borrowed), or -1 */
        char *workdir;
        int64_t timeout_ms, cpu_limit_s;
        int64_t start_ms, end_ms, deadline_ms;
        struct output_capture out_cap, err_cap;
        char status_buf[8192 + 1];      /* helper status JSON / bwrap json-status */
        size_t status_len;
        bool reaped, killed, killed_wall, interrupted;
        int wait_status;
        struct rusage ru;
        struct run_result res;
        /* warm (docs/warm.md): the spec, kept to send again; the pool's
         * zygote serving it, -1 when none */
        struct warm_spec *warm;
        int zygote;
        bool stalled;                   /* its zygote missed the backstop: killed */
};

int run_start_tier(struct sandbox *sb, const struct tier_ops *t,
                   const struct run_spec *spec, struct sbx_run **out,
                   struct sbx_err *err);
void run_free(struct sbx_run *r);           /* run_finish.c */
/* The env and argv a run of tier t would get (also for --print-argv). */
int run_build_argv(struct sandbox *sb, const struct tier_ops *t,
                   const struct run_spec *spec, int64_t timeout_ms,
                   int64_t cpu_limit_s, struct strvec *env, struct strvec *argv);
/* run_finish.c: SIGKILL to the run's process group and its first process. */
void run_kill_tree(struct sbx_run *r);

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
