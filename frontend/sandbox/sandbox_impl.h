/* The session's private state, shared by the files that implement
 * sandbox.h (sandbox.c, scratch.c, tier_tool.c, tier_choose.c, probe.c and
 * the run's files). Not for the CLI or the suite layer. */
#ifndef SBX_SANDBOX_IMPL_H
#define SBX_SANDBOX_IMPL_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "argv.h"
#include "sandbox.h"
#include "tier_ops.h"

#define PROBE_TIMEOUT_MS          15000
#define NPROC_HEADROOM            512   /* rlimit tier: above the user's current count */

struct sbx_run;

struct sandbox {
        struct sandbox_opts opts;
        const struct tier_ops *tier;    /* the chosen row; NULL until chosen */
        char *python;                   /* what runs exec (venv's or base) */
        char *base_python;              /* the resolved base interpreter */
        char *base_version;             /* its sys.version */
        char *venv_dir;                 /* NULL without --venv */
        struct strvec binds;            /* non-system paths the runs need, read-only */
        struct strvec env;              /* base + user env, without HOME/TMPDIR */
        char *tool[TIER_COUNT];         /* helper, bwrap, unshare paths; NULL = missing */
        char *tier_why[TIER_COUNT];     /* why a tier does not work, once probed */
        bool tier_ok[TIER_COUNT];
        bool tier_probed[TIER_COUNT];
        bool tier_ready[TIER_COUNT];    /* sandbox_tier_ready done */
        bool tier_unproven;             /* chosen without a probe (probe_by_first_run) */
        bool fallback_noted[TIER_COUNT];
        struct strvec prefix[TIER_COUNT]; /* per-tier argv before the per-run part */
        int seccomp_fd;                 /* BPF program for bwrap --seccomp, or -1 */
        char *seccomp_why;              /* why there is none: then bwrap is not used */
        int init_fd;                    /* sbx-run-init for bwrap's pid 1, or -1 */
        char *init_why;                 /* why there is none: likewise */
        int devnull_fd;
        char *scratch;                  /* session scratch root, made on first use
                                         * (NULL until then), removed at close */
        unsigned scratch_seq;
        bool scratch_used;              /* a name was made in it */
        bool scratch_is_workdir;        /* given whole to one run (sandbox_sole_workdir) */
        long long nproc_limit;          /* rlimit tier only */
        struct sbx_run *runs;           /* in flight, for the orphan sweep */
        int runs_in_flight;
        bool choice_warned;             /* the tier's choice_warning, said once */
        const struct tier_prober *prober;       /* set by sandbox_open */
        /* The warm backend's pool (warm/), opened by the first warm run
         * (run_warm.c), and how many zygotes it starts together. */
        struct warm_pool *warm;
        size_t warm_expect;
};

/* What the tier choice asks of each tier; probe.c's probe_real runs the
 * tiers, a unit test passes fakes. */
struct tier_prober {
        /* 1 works, 0 not (why in tier_why); probes once, remembers */
        int (*probe)(struct sandbox *sb, enum tier t);
        /* 1 when the tier's tool is missing (why in tier_why), else 0 */
        int (*tool_missing)(struct sandbox *sb, enum tier t);
        /* a run of tier t that was its probe failed: sets tier_why */
        void (*note_failure)(struct sandbox *sb, enum tier t, const struct run_result *res);
};

/* probe.c: the prober sandbox_open uses */
extern const struct tier_prober probe_real;
int probe_tool_missing(struct sandbox *sb, enum tier t);
void probe_note_failure(struct sandbox *sb, enum tier t, const struct run_result *res);
/* tier_choose.c: sets sb->tier, or fails with SBX_EXIT_SANDBOX and every
 * tier's reason */
int tier_choose(struct sandbox *sb, struct sbx_err *err);
/* run.c: one run through tier t, blocking (a tier's probe) */
int run_tier_sync(struct sandbox *sb, const struct tier_ops *t,
                  const struct run_spec *spec, const volatile sig_atomic_t *stop,
                  struct run_result *res, struct sbx_err *err);
/* sandbox.c: sandbox_open without choosing a tier (for --probe) */
int sandbox_prepare(struct sandbox **out, const struct sandbox_opts *opts,
                    struct sbx_err *err);
/* scratch.c: the session's scratch root, made on first use. */
int sandbox_make_scratch(struct sandbox *sb, struct sbx_err *err);

/* tier_tool.c. Looks up what tier t needs, once, when it is first about to
 * be used: its tool, bwrap's seccomp program, the rlimit tier's process
 * count, its argv prefix. A missing tool is not an error here (tool[t]
 * stays NULL). */
int sandbox_tier_ready(struct sandbox *sb, enum tier t, struct sbx_err *err);
/* A file no other process can reach: a memfd named name (sealable: one
 * that takes seals), else an unlinked file in the session's scratch root;
 * -1 and why. */
int sandbox_private_file(struct sandbox *sb, const char *name, bool sealable,
                         char *why, size_t len);
/* The argv that starts a warm suite's zygote in the chosen tier. */
int sandbox_zygote_argv(struct sandbox *sb, const struct zygote_params *zp,
                        struct strvec *out, struct sbx_err *err);
/* `TOOL ARG`'s JSON (a tool's --probe), or NULL. */
struct cJSON;
struct cJSON *sandbox_tool_json(const char *tool, const char *arg);
/* The helper's defaults and ceilings (`sbx-helper --probe`), -1 where it
 * gives none (null: no limit), all -1 in a tier without them; times in s.
 * Returns 1 when the tier's tool reported them. */
struct helper_limits {
        double timeout_s, cpu_s;
        long long memory, nproc, fsize, nofile, tmpfs;
        double zygote_life_s;   /* ceilings only: max_zygote_life (-1: a helper without it) */
};
int sandbox_helper_limits(struct sandbox *sb, struct helper_limits *deflt,
                          struct helper_limits *max);

#endif
