/* Building (cached) and running a program of any language in the sandbox:
 * the one call the suites and the faces use (issue 32).
 *
 * A compiled language's program is two runs of the session's tier. The
 * compile: a fresh directory of sbx's own (the source, links to the
 * support files) bound read-write, the row's compile argv, env and limits
 * (time, address space, file size, output), the toolchain read-only from
 * the system, a private /tmp and home in the strong tiers. Its artifact
 * goes into the compile cache (cache.h); a compiler that says no is a
 * compile error (cached too, with the tail of its message); one killed by
 * its limits (a template bomb) is a compile error not cached. The run: a
 * fresh private workdir with the artifact bound read-only, the row's run
 * argv and env, the program's limits. A language that is not compiled
 * (js) runs its source so. With a warm cache the compile is a lookup.
 *
 * Asynchronous as sbx_run is, so one event loop (sched.c: its `next`)
 * drives -j programs: lang_job_start gives the first run, lang_job_next
 * the second once the first ended. lang_build_and_run is the blocking
 * form. */
#ifndef SBX_LANG_RUN_H
#define SBX_LANG_RUN_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "err.h"
#include "lang.h"
#include "sandbox.h"

/* What a session of builds needs besides its sandbox. Strings are
 * borrowed: they must outlive the session. */
struct lang_opts {
        /* The user's cache directory (the compile cache is
         * <cache_root>/compile/); NULL: $SBX_CACHE, else ~/.cache/sbx. */
        const char *cache_root;
        int64_t cache_max_bytes;        /* its bound; 0: no compile cache */
        /* toolchains' search path; NULL: LANG_DEFAULT_TOOL_PATH
         * (lang_opts_init: $SBX_TOOL_PATH when set) */
        const char *tool_path;
        /* A suite's support files (its Go module, js-md5, Cargo.toml: the
         * shipped suites/humaneval-x) and the name of their set; NULL: none */
        const char *support_dir, *support_set;
};

/* The defaults: the cache bound from SBX_COMPILE_CACHE_MAX (or 1 GiB),
 * the tool path from SBX_TOOL_PATH (a colon list of absolute
 * directories); -1 with err for a bad value. */
int lang_opts_init(struct lang_opts *o, struct sbx_err *err);

struct lang_session;

/* sb must outlive the session and be the only one its jobs run in. */
int lang_session_open(struct lang_session **out, struct sandbox *sb,
                      const struct lang_opts *o, struct sbx_err *err);
void lang_session_close(struct lang_session *ls);

/* Before anything runs (no session needed: a suite checks before its
 * results file is opened): the row's toolchain is on tool_path
 * (SBX_EXIT_SANDBOX, naming the tool and its Debian package) and
 * memory_bytes (-1: none) is not below its runtime's floor
 * (SBX_EXIT_USAGE, with the figure). */
int lang_check(const struct lang_row *row, const char *tool_path, int64_t memory_bytes,
               struct sbx_err *err);
/* Readies the row in the session: its toolchains found and their versions
 * read, its support files copied, its seeds (Go's build cache, Rust's
 * crates) built once per user or taken from the cache. Blocking (runs in
 * the sandbox); the first job of a row does it too, so a suite calls it
 * before its event loop. */
int lang_session_prepare(struct lang_session *ls, const struct lang_row *row,
                         struct sbx_err *err);

/* One program. Borrowed only during lang_job_start. */
struct lang_program {
        const struct lang_row *row;
        const char *source;             /* its text (never on argv) */
        size_t source_len;
        const char *source_name;        /* NULL: the row's (lang_source_name_ok) */
        const char *const *flags;       /* compile flags; NULL: the row's default ones */
        const char *const *libs;        /* after the source (-lcrypto); NULL: none */
        /* The program's run; 0: the defaults (the session's memory). */
        int64_t timeout_ms, cpu_limit_s, memory_bytes;
        int64_t compile_timeout_ms;     /* 0: the row's */
        const char *const *env_extra;   /* NAME=VALUE for the run, or NULL */
        /* The run's stdin (struct run_spec's): a host file's path (copied),
         * or bytes, which must outlive the job; neither: /dev/null. */
        const char *stdin_path;
        const char *stdin_data;
        size_t stdin_len;
        /* The run's stdout also into the caller's file, and the run stopped
         * past stdout_limit_bytes (struct run_spec's; 0: neither): an io
         * judge's first test (issue 33). */
        int stdout_fd;
        int64_t stdout_limit_bytes;
};

enum lang_build {
        LANG_BUILD_NONE = 0,            /* not compiled (js, python) */
        LANG_BUILD_COMPILED,
        LANG_BUILD_CACHED,              /* the compile cache had the artifact */
        LANG_BUILD_COMPILE_ERROR,       /* the verdict compile_error */
        LANG_BUILD_SANDBOX_ERROR,       /* the compile could not run: its result says why */
};
const char *lang_build_name(enum lang_build b);  /* "none", "compiled", "cached", ... */

/* What the build came to. */
struct lang_build_info {
        enum lang_build status;
        bool from_cache;                /* COMPILE_ERROR: the cache's */
        double duration_s, cpu_s;       /* the compile run's (0 when none ran) */
        long max_rss_kb;
        /* COMPILE_ERROR: "exit status 1", "timeout (30 s)", "memory-limit",
         * "killed by signal 9"; else "" */
        char detail[128];
        char *message;                  /* the tail of the compiler's output, or NULL */
};

struct lang_job;

/* Starts a program: a cache hit (or a language not compiled) starts its
 * run, a miss its compile. 0 with *run set: drive it (sbx_run.h) and hand
 * its result to lang_job_next. 1: the job ended without a run (a compile
 * error the cache had: lang_job_result says so). -1 with err: nothing was
 * started (a missing toolchain: SBX_EXIT_SANDBOX; a memory limit under
 * the runtime's floor: SBX_EXIT_USAGE). */
int lang_job_start(struct lang_session *ls, const struct lang_program *p,
                   struct lang_job **job, struct sbx_run **run, struct sbx_err *err);
/* The job's run ended with res. 1: the compile was fine and the program's
 * run started (*run; res was the compile's and is freed). 0: res is the
 * job's last (the program's, or the compile's when it failed). -1 with
 * err (res freed). */
int lang_job_next(struct lang_job *job, struct run_result *res, struct sbx_run **run,
                  struct sbx_err *err);
/* The build so far. */
const struct lang_build_info *lang_job_build(const struct lang_job *job);
/* After lang_job_start returned 1: the result that stands for the run
 * that did not happen (failed, the session's tier, nothing captured). */
void lang_job_result(const struct lang_job *job, struct run_result *res);
/* Once the build is done and the program's run started: its spec (the
 * artifact in its private workdir), to start again as often as wanted
 * (one run per test: issue 33). Valid until lang_job_free. */
const struct run_spec *lang_job_run_spec(const struct lang_job *job);
/* Removes the job's directories; NULL: nothing. */
void lang_job_free(struct lang_job *job);

/* Blocking: builds then runs p. 0 with *build (lang_build_info_free it)
 * and *res (the program's run, or the compile's when it did not build),
 * -1 with err when nothing could be run. With stop, a run is killed once
 * *stop is set (res then says "interrupted"). */
int lang_build_and_run(struct lang_session *ls, const struct lang_program *p,
                       const volatile sig_atomic_t *stop, struct lang_build_info *build,
                       struct run_result *res, struct sbx_err *err);
void lang_build_info_free(struct lang_build_info *b);
/* {"status", "cached", "duration", "cpu", "max_rss_kb", "detail",
 * "message"}: a result line's and --json's "compile". */
struct cJSON;
struct cJSON *lang_build_json(const struct lang_build_info *b);

#endif
