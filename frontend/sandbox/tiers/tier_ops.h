/* What makes each tier what it is, as data: one row of struct tier_ops
 * per tier (tier.c), as bubblewrap's setup is driven by SetupOpType. The
 * session, the runs, the probe and the choice read the row and never ask
 * which tier it is; a new tier is a new row (and its file of builders).
 * Library-internal: the CLI sees only tier.h. */
#ifndef SBX_TIER_OPS_H
#define SBX_TIER_OPS_H

#include <stdbool.h>
#include <stdint.h>

#include "argv.h"
#include "run_result.h"
#include "tier.h"

struct tier_ops {
        enum tier id;
        const char *name;
        /* The tool that makes the sandbox, looked up when the tier is first
         * used: the value of tool_env, else tool_path, when tool_path is
         * set (a fixed install path, which must be executable); else tool
         * on PATH. tool NULL: the tier needs none. tool_hint says how to
         * get it. */
        const char *tool;
        const char *tool_env;
        const char *tool_path;
        const char *tool_hint;
        /* The session-wide argv (NULL: none) and the per-run part before
         * "--" (NULL: none, and no "--": the prefix ends in its own). */
        int (*build_prefix)(const struct tier_params *p, struct strvec *out);
        int (*build_run)(const struct run_params *rp, struct strvec *out);
        /* A warm suite's zygote started in this tier, with the powers it
         * needs in its own user namespace (docs/warm.md); NULL: the tier
         * cannot start one, its suites run cold. */
        int (*build_zygote)(const struct tier_params *p, const struct zygote_params *zp,
                            struct strvec *out);
        /* The child's fd for the tier's report (status JSON, bwrap's
         * json-status, the start marker); 0: none. */
        int status_fd;
        /* Whether the run itself tells a sandbox that never came up from
         * the program's own result (its report, or an exec error): then a
         * single run needs no probe run (probe_by_first_run). */
        bool reports_start;
        /* Reads the tier's report: 1 when it makes the verdict (the sandbox
         * failed, a timeout), else 0 with *code and *sig as the report gives
         * them. NULL: the wait status alone decides. */
        int (*classify)(struct run_result *res, const char *status_text,
                        int *code, int *sig);
        bool needs_seccomp;     /* never runs without the BPF program on CHILD_FD_EXTRA */
        /* its pid 1 is sbx-run-init (on CHILD_FD_INIT), before the run's
         * argv: nothing of the tool's own, which the sample could reach,
         * speaks for the run; never runs without it */
        bool runs_init;
        bool needs_root_dirs;   /* builds its own root from the host's top-level dirs */
        bool sets_own_limits;   /* applies the rlimits itself, inside */
        bool counts_nproc;      /* RLIMIT_NPROC above the user's own process count */
        bool passes_trace;      /* gets SBX_TRACE to mark its own phases */
        /* No pid namespace of its own: the run starts in the workdir and the
         * sweep kills what it left behind (the others kill their tree). */
        bool weak;
        /* copies a run's file in from an fd (bwrap's --ro-bind-data): a
         * --file run needs no host workdir (run_spec.workdir_data) */
        bool binds_data;
        int64_t grace_ms;       /* past the wall clock: the tier enforces it itself */
        bool uses_userns;       /* a failure may be the host's user-namespace policy */
        const char *choice_warning;     /* said once when chosen, or NULL */
        /* --probe: the option that makes the tool say, as JSON, why it
         * refuses this caller; NULL: it has none */
        const char *self_probe_arg;
};

/* The row of t; NULL for TIER_NONE or anything out of range. */
const struct tier_ops *tier_ops(enum tier t);
/* The rows in order, strongest first; tier_next is NULL after the last. */
const struct tier_ops *tier_first(void);
const struct tier_ops *tier_next(const struct tier_ops *o);
#define for_each_tier(o) \
        for (const struct tier_ops *o = tier_first(); o; o = tier_next(o))
/* o's id; TIER_NONE for NULL. */
enum tier tier_id(const struct tier_ops *o);

/* The builders and reports of each tier, which the rows point at. */
int helper_prefix(const struct tier_params *p, struct strvec *v);
int helper_run(const struct run_params *rp, struct strvec *v);
int helper_classify(struct run_result *res, const char *text, int *code, int *sig);
int helper_zygote(const struct tier_params *p, const struct zygote_params *zp, struct strvec *v);
int bwrap_prefix(const struct tier_params *p, struct strvec *v);
int bwrap_zygote(const struct tier_params *p, const struct zygote_params *zp, struct strvec *v);
int bwrap_run(const struct run_params *rp, struct strvec *v);
int bwrap_classify(struct run_result *res, const char *text, int *code, int *sig);
int unshare_prefix(const struct tier_params *p, struct strvec *v);
int unshare_root_prefix(const struct tier_params *p, struct strvec *v);
int unshare_zygote(const struct tier_params *p, const struct zygote_params *zp, struct strvec *v);
int unshare_root_zygote(const struct tier_params *p, const struct zygote_params *zp, struct strvec *v);
int unshare_classify(struct run_result *res, const char *text, int *code, int *sig);

#endif
