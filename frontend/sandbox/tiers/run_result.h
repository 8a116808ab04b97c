/* What one run came to: its status, exit, resources, captured output and
 * the tier that ran it. The rows' classifiers (tier_ops.h) fill it from
 * their tier's report; the run engine, the suites and the results read it. */
#ifndef SBX_RUN_RESULT_H
#define SBX_RUN_RESULT_H

#include <stdbool.h>

#include "output.h"       /* struct run_output */
#include "tier.h"

enum run_status {
        RUN_OK = 0,             /* exited 0 */
        RUN_FAILED,             /* non-zero exit or killed by a signal */
        RUN_TIMEOUT,            /* wall-clock (or cpu) limit */
        RUN_ERROR,              /* sandbox setup failed; the program did not run */
};
const char *run_status_name(enum run_status s);   /* "ok", "failed", "timeout", "error" */

struct run_result {
        enum run_status status;
        int returncode;                 /* exit code, or -signal as subprocess does */
        int signal;                     /* 0 unless killed by a signal */
        double duration_s;              /* wall */
        double cpu_s;                   /* user+sys of the whole tree */
        long max_rss_kb;
        struct run_output out, err;
        enum tier tier;
        char detail[128];               /* helper status ("cpu-limit", ...) or setup error */
        bool never_started;             /* the sandbox did not come up: the program never ran */
        bool stop_signal;               /* it or its sandbox died of SIGTERM, SIGINT or SIGHUP,
                                         * which sbx never sends: maybe a job's stop, not a verdict */
        bool output_limited;            /* stdout passed run_spec.stdout_limit_bytes: stopped */
};
void run_result_free(struct run_result *res);
/* llama-eval's `Sandbox` summary: "ok", "timeout", else the last non-empty line of
 * stderr (or stdout) cut at 400 chars, else "failed (rc=N)". malloc'd. */
char *run_result_summary(const struct run_result *res);

/* run_result.c: res->detail = prefix + the first line of text; the last
 * non-empty stderr line (why a tier's own setup failed). */
void run_result_set_detail(struct run_result *res, const char *prefix, const char *text);
const char *run_result_stderr_reason(const struct run_result *res);
/* The tier's tool failed: RUN_ERROR, detail "WHAT: killed by SIGNAL", or
 * with no signal "WHAT: " and the tool's last stderr line. */
void run_result_tool_failed(struct run_result *res, const char *what, int sig);

#endif
