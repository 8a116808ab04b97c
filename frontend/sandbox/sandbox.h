/* The sandbox session and one sandboxed run: the contract between the
 * single-run machinery (tiers, process, venv) and the suite runner
 * (scheduler, results). Runs are asynchronous so that one event loop drives
 * -j of them without a thread per child. */
#ifndef SBX_SANDBOX_H
#define SBX_SANDBOX_H

#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "err.h"
#include "limit.h"
#include "output.h"       /* struct run_output */
#include "run_result.h"
#include "tier.h"

/* DEFAULT_TIMEOUT_MS and the other limits' defaults: limit.h's table. */
#define DEFAULT_WORKDIR_BYTES     (64LL << 20)   /* private workdir tmpfs */

/* What every run of a session shares. Strings are borrowed: they must
 * outlive the session. */
struct sandbox_opts {
        const char *python;             /* interpreter spec; NULL = /usr/bin/python3 */
        const char *const *ro_binds;    /* extra read-only paths, NULL-terminated or NULL */
        const char *const *env;         /* user NAME=VALUE pairs ({venv} expanded), NULL-terminated or NULL */
        long long memory_bytes;         /* address-space limit; -1 = none; 0 = default */
        long long fsize_bytes;          /* 0 = default */
        size_t max_output_bytes;        /* per stream; 0 = default */
        enum tier force_tier;           /* TIER_NONE = pick the best that works */
        enum tier require_tier;         /* TIER_NONE = accept any */
        /* venv cache (as llama-eval's `Sandbox` ensure step); venv_name NULL = none */
        const char *venv_name;
        const char *const *packages;    /* NULL-terminated or NULL */
        const char *const *provision;   /* files of Python snippets, NULL-terminated or NULL */
        bool rebuild;
        bool quiet;                     /* no warnings: warn is not called */
        /* The library prints nothing itself: each warning or note for the
         * user (a tier that falls back, unshare-root's root, a venv being
         * built) is one line, without "sbx-run: ", handed to warn if set. */
        void (*warn)(const char *msg, void *ctx);
        void *warn_ctx;
        /* One run, not a suite: pick the helper (or bwrap) without a probe
         * run of its own; the first run proves it (sandbox_recheck_tier). */
        bool probe_by_first_run;
        /* Suites: run `python -I -B -c` samples through a zygote per run in
         * flight (docs/warm.md); the others, and every sample where the
         * tier cannot start one, run cold. */
        bool warm;
        /* The trusted programs a zygote compiles once, as the runs name them
         * on `python -c` (the suite layer's drivers), NULL-terminated, or
         * NULL: handed down, so that nothing below the suites reaches up
         * for them. */
        const char *const *warm_sources;
};

/* The defaults: everything 0 (the DEFAULT_* limits), any tier. */
static inline void sandbox_opts_init(struct sandbox_opts *o)
{
        *o = (struct sandbox_opts){ .force_tier = TIER_NONE, .require_tier = TIER_NONE };
}

struct sandbox;                         /* opaque: chosen tier, resolved interpreter, binds */

/* Resolves the interpreter (and builds/validates the venv), detects the tier
 * once by probing that interpreter with the same binds the runs will use
 * (with probe_by_first_run, the helper or bwrap is chosen unprobed), and
 * applies force/require. Errors: SBX_EXIT_USAGE for bad options,
 * SBX_EXIT_SANDBOX when no acceptable tier works. */
int sandbox_open(struct sandbox **out, const struct sandbox_opts *opts,
                 struct sbx_err *err);
void sandbox_close(struct sandbox *sb);
enum tier sandbox_tier(const struct sandbox *sb);
/* In the helper tier, the admin's ceilings on a run's --timeout and --cpu
 * (helper.conf's max_timeout, max_cpu; `sbx-helper --probe`): 1 with them
 * set, 0 (both 0) in other tiers or when the helper does not say. A run
 * that asks more is refused by the helper. */
int sandbox_helper_ceilings(struct sandbox *sb, double *timeout_s, double *cpu_s);
/* --probe: sets up a session without choosing a tier, probes every tier
 * and writes which work and why not (JSON or text) to fp. Returns 0 when
 * one works, 1 when none does, -1 (err set) when the session cannot be
 * set up. */
int sandbox_probe_report(const struct sandbox_opts *opts, bool json, FILE *fp,
                         struct sbx_err *err);
/* Absolute path of the interpreter that runs will exec (venv's or base). */
/* Where a bare argv[0] is looked up (the sandbox's own PATH). */
#define SANDBOX_PATH "/usr/bin:/bin"

const char *sandbox_python(const struct sandbox *sb);
/* argv[0] as the sandbox sees it: "python"/"python3" is the sandbox's
 * interpreter (the venv's with --venv), other bare names search
 * /usr/bin:/bin; malloc'd, or NULL for a relative path with a slash. */
char *sandbox_resolve_argv0(const struct sandbox *sb, const char *arg0);
/* A fresh private directory (mode 0700) under the session's scratch root;
 * removed by sandbox_close. Returns a malloc'd path. */
char *sandbox_mkdtemp(struct sandbox *sb, struct sbx_err *err);
/* For a session of one private-workdir run (--file): the scratch root
 * itself (mode 0700, sbx's own, nothing in it yet) as the run's workdir,
 * one inode less than a directory in it; a sandbox_mkdtemp directory when
 * something was made in the root before. The root is the run's, removed
 * by sandbox_close; sandbox_mkdtemp fails after it. Returns a malloc'd
 * path. */
char *sandbox_sole_workdir(struct sandbox *sb, struct sbx_err *err);
/* Whether the session's tier copies a run's file in itself (binds_data),
 * so that a --file run needs no host workdir: run_spec.workdir_data. */
bool sandbox_binds_data(const struct sandbox *sb);
/* A workdir path for such a run, made nowhere: TMPDIR (or /tmp) and
 * sbx-run-XXXXXX. malloc'd, or NULL with err. */
char *sandbox_inner_workdir(struct sbx_err *err);
/* Removes a sandbox_mkdtemp directory holding the file name (NULL: none):
 * unlink and rmdir, a directory walk only when the run left more there
 * (a weak tier's program wrote in it). Best effort: sandbox_close removes
 * what is left. */
void sandbox_rmdtemp(const char *dir, const char *name);

struct run_spec {
        char *const *argv;              /* argv[0] absolute path inside the sandbox */
        const char *workdir;            /* host directory, absolute */
        /* true: workdir is sbx's own; the program sees an empty, size-capped
         * tmpfs at workdir's path (where the tier allows it) with the files
         * listed in workdir_files bound read-only into it. false: the user's
         * directory, bound read-write, survives the run. */
        bool private_workdir;
        const char *const *workdir_files;  /* names relative to workdir, NULL-terminated or NULL */
        /* true: workdir_files[0]'s bytes are in data_fd (read from its
         * start), workdir exists only inside the sandbox, and only a tier
         * that copies files in (binds_data: bwrap) may run the spec */
        bool workdir_data;
        int data_fd;
        const char *const *env_extra;   /* NAME=VALUE added for this run only, or NULL */
        int64_t timeout_ms;             /* wall clock; 0 = DEFAULT_TIMEOUT_MS */
        int64_t cpu_limit_s;            /* 0 = timeout + DEFAULT_CPU_SLACK_S */
        /* The program's stdin: the host file stdin_path (a regular file,
         * at most RUN_STDIN_MAX_BYTES) or the bytes stdin_data[0..stdin_len),
         * copied into a sealed memfd of the run's own (docs/suites.md: a
         * file it may read and seek, named alike in every run, that no run
         * can change, and no path of the host); neither: /dev/null. Never
         * on argv. */
        const char *stdin_path;
        const char *stdin_data;
        size_t stdin_len;
        /* stdout written in full to stdout_fd too (the caller's regular
         * file, from its offset; 0: none), for outputs too large to hold:
         * res.out keeps the session's cap in memory as always. Past
         * stdout_limit_bytes (> 0) the run is stopped and res.output_limited
         * set; the file then holds the first stdout_limit_bytes. */
        int stdout_fd;
        int64_t stdout_limit_bytes;
        /* This run's own limits, 0 = the session's: a compile's (issue 32)
         * differ from the program's, and a --serve or HTTP request may
         * lower its memory (serve_exec.c clamps it to the session's). A
         * run with less memory stays warm; with more, or with any other of
         * them or ro_binds, it runs cold. */
        int64_t memory_bytes;           /* address space; -1 = none */
        int64_t fsize_bytes;
        size_t max_output_bytes;        /* per stream */
        /* More read-only paths for this run only (a compile's support
         * files), absolute and reached without symlinks, NULL-terminated
         * or NULL. The weak tiers show the host anyway. */
        const char *const *ro_binds;
};

/* A larger stdin is refused (the run is not started). */
#define RUN_STDIN_MAX_BYTES     (1LL << 30)

/* After a run, with probe_by_first_run: 1 when the run showed its tier
 * broken before the program started and another tier is chosen (run it
 * again), 0 when the result stands, -1 (err set) when no acceptable tier
 * is left. */
int sandbox_recheck_tier(struct sandbox *sb, const struct run_result *res,
                         struct sbx_err *err);

struct sbx_run;                         /* one run in flight */

int sbx_run_start(struct sandbox *sb, const struct run_spec *spec,
                  struct sbx_run **out, struct sbx_err *err);
/* Fills up to max pollfds to wait on (POLLIN); returns how many. */
size_t sbx_run_pollfds(const struct sbx_run *r, struct pollfd *pfds, size_t max);
/* Monotonic milliseconds (CLOCK_MONOTONIC) at which the run must be killed. */
int64_t sbx_run_deadline_ms(const struct sbx_run *r);
/* After poll() (pfds as returned by sbx_run_pollfds, revents filled) or at a
 * deadline: reads output, enforces the timeout, reaps. Returns 1 when the
 * run has ended, 0 when it goes on. Never blocks. */
int sbx_run_step(struct sbx_run *r, const struct pollfd *pfds, size_t n);
/* Once step returned 1: moves the result out and frees the run. */
void sbx_run_finish(struct sbx_run *r, struct run_result *res);
/* Kills the whole tree at once (used on SIGINT); finish still required. */
void sbx_run_kill(struct sbx_run *r);

/* --print-argv: the argv a run of spec would exec in the session's tier,
 * one word a line, to fp. Returns 0, or -1 when it cannot be built. */
int sandbox_print_argv(struct sandbox *sb, const struct run_spec *spec, FILE *fp);

/* With opts.warm: at most workers runs will be in flight at once. The first
 * warm run then starts that many zygotes together, so that their starts
 * overlap (each waits ~0.1 s for its interpreter) instead of each run
 * starting the next zygote only once the one before is ready. */
void sandbox_warm_expect(struct sandbox *sb, size_t workers);

/* With opts.warm: how many runs went warm and how many cold, and the
 * first reason one went cold (NULL: none did). */
void sandbox_warm_counts(const struct sandbox *sb, size_t *warm, size_t *cold,
                         const char **why);

/* Blocking: start, loop, finish. With stop (a signal handler's flag), the
 * run is killed, and recorded "interrupted", once *stop is non-zero. */
int sbx_run_sync(struct sandbox *sb, const struct run_spec *spec,
                 const volatile sig_atomic_t *stop, struct run_result *res,
                 struct sbx_err *err);
/* The loop and finish of sbx_run_sync, for a run already started. */
void sbx_run_wait(struct sbx_run *r, const volatile sig_atomic_t *stop,
                  struct run_result *res);

/* Whether each run of the session's tier gets a /tmp and home of its own
 * (helper, bwrap), or shares the host's (the weak tiers). */
bool sandbox_private_tmp(const struct sandbox *sb);
/* The session's address-space limit (-1: none): a run's unless its spec
 * sets its own. */
long long sandbox_memory_bytes(const struct sandbox *sb);

#endif
