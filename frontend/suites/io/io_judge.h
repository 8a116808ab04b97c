/* Judging one sample of an input/output problem (docs/suites.md, "io
 * suites"): its program is built once (Python: the program file in the sample's
 * private workdir, as every suite's), then run once a test, each run fresh in the sandbox
 * (warm where the session is: a fresh candidate from the zygote a test),
 * with identical argv, environment, paths and working directory, the
 * test's input on stdin and nothing else of the problem in its sandbox;
 * its stdout goes to a file of the judge's (outside the sandbox), capped,
 * and is compared there, or by a checker in a sandboxed run of its own.
 * The runs are the scheduler's, one at a time a sample: the judge starts
 * the next when it is told the last one's end.
 *
 * A program in another language of the language table (C++, Java, Go,
 * Rust, JavaScript...) is built by lang/ instead (io_judge_lang.c): its
 * compile the first run, then one run a test of the built artifact.
 *
 * Layer: suites/io. It calls the run engine (sandbox.h), lang/ (a build),
 * results/ (the verdict a line records), formats/ and compare/. */
#ifndef SBX_IO_JUDGE_H
#define SBX_IO_JUDGE_H

#include <stdbool.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "io.h"
#include "io_verdict.h"
#include "sandbox.h"
#include "suite.h"
#include "verdict.h"

#define IO_OUTPUT_MIN_CAP_BYTES (64LL << 20)    /* a test's stdout cap, at least */
#define IO_CHECKER_TIMEOUT_MS   10000
#define IO_BUILD_TIMEOUT_MS     10000
#define IO_CHECKER_OUTPUT_BYTES (64LL << 10)
/* A native CodeContests problem's limits are a C++ solution's: times this
 * for a Python program, unless --time-scale says otherwise (docs/suites.md). */
#define IO_CPP_LIMIT_SCALE      3.0

struct lang_job;
struct lang_row;
struct lang_session;

/* The sample's program: Python's file in the sample's workdir, or
 * another language's source for lang/ to build. */
struct io_judge_program {
        const char *workdir;            /* the sample's: the program, bound read-only */
        const char *path;               /* the program file in it (Python) */
        const struct lang_row *row;     /* NULL: Python (the path above) */
        struct lang_session *ls;        /* row's builds' session */
        const char *source;             /* row's program text */
        int64_t compile_timeout_ms;     /* 0: the language's */
};

struct io_judge {
        const struct suite_judge_opts *o;
        const struct io_problem *p;
        struct sandbox *sb;
        const char *workdir;            /* the sample's: the program, bound read-only */
        char *program;                  /* the program's name in it */
        const char *files[2];           /* { program, NULL } */
        char *scratch;                  /* ours, never in a sandbox: the output, the checker's files */
        char *checker_dir;              /* the checker's workdir (in scratch), or NULL */
        int out_fd;                     /* the running test's stdout */
        size_t test;                    /* the test running (or whose checker is) */
        bool in_build;                  /* the run in flight is the build */
        bool in_checker;                /* the run in flight is test's checker */
        struct io_run test_run;         /* meanwhile, the test's own run */
        int64_t limit_ms;               /* a test's time limit */
        struct lang_job *job;           /* another language's build, or NULL */
        const struct run_spec *built;   /* its program's run spec, once built: a test's */
        const struct lang_row *row;     /* its language (NULL: Python) */
        struct io_sample sample;
        struct run_result kept;         /* the first failure's run, else the last test's */
        bool have_kept, kept_failure;
        double wall_s, cpu_s;           /* every run's, summed */
        cJSON *fields;                  /* the line's io fields (the verdict's extra) */
        char why[256];
};

/* A judge for one sample (*out), and its first run (1, *run) or its verdict
 * (0, v). -1 with err when sbx-run cannot go on (out of memory, no scratch). */
int io_judge_begin(const struct suite_judge_opts *o, const struct io_problem *p,
                   struct sandbox *sb, const struct io_judge_program *prog,
                   struct io_judge **out, struct sbx_run **run, struct verdict *v,
                   struct sbx_err *err);
/* The run in flight ended with res (taken): the next run (1) or the verdict (0). */
int io_judge_step(struct io_judge *j, struct run_result *res, struct sbx_run **run,
                  struct verdict *v, struct sbx_err *err);
void io_judge_free(struct io_judge *j);

/* ---- io_judge_run.c: the runs and what is read of them ---- */

/* The program's build (Python: compiled, in its sandbox): 1, or -1 with err. */
int io_judge_start_build(struct io_judge *j, struct sbx_run **run, struct sbx_err *err);
/* A test's run of the program (1 started, 0 not: the test is judged, its
 * verdict in *tv and why in j->why; -1 with err). */
int io_judge_start_test(struct io_judge *j, struct sbx_run **run, enum io_verdict *tv,
                        struct sbx_err *err);
/* The checker's run on the test just run (same returns). */
int io_judge_start_checker(struct io_judge *j, struct sbx_run **run, enum io_verdict *tv,
                           struct sbx_err *err);
/* The checker's workdir in the judge's scratch, with the checker in it. */
int io_judge_checker_dir(struct io_judge *j, struct sbx_err *err);
/* The test's output against its answer, outside the sandbox. */
enum io_verdict io_judge_compare(struct io_judge *j);
/* What the sandbox said of a run, as io_verdict.c reads it. */
void io_judge_run_of(const struct run_result *res, struct io_run *r);
/* A test's time limit: --test-timeout, else the problem's own times the
 * scale (CodeContests' own limits are C++'s: times IO_CPP_LIMIT_SCALE for
 * Python, row NULL), else the suite's timeout. */
int64_t io_judge_limit_ms(const struct suite_judge_opts *o, const struct io_problem *p,
                          const struct lang_row *row);
/* A test's stdout cap. */
int64_t io_judge_output_cap(const struct io_test *t);
/* A run's address space: want (a problem's limit, with a runtime's reserve)
 * where it is below the session's --memory, else the session's (0). The
 * engine gives a run what its spec asks, more too: --memory is the user's
 * ceiling, which no problem lifts. */
int64_t io_judge_memory(const struct sandbox *sb, int64_t want);

/* ---- io_judge_lang.c: a program of another language, built by lang/ ---- */

/* Its build (or, from the compile cache, test 0's run) started: 0 with
 * *run (j->in_build while it is the compile), 1 when the cache knew a
 * compile error (no run), -1 with err. */
int io_judge_lang_start(struct io_judge *j, const struct io_judge_program *prog,
                        struct sbx_run **run, struct sbx_err *err);
/* The compile ended with res: 1 test 0's run started (res freed), 0 it
 * did not build (res the compile's), -1 with err. */
int io_judge_lang_next(struct io_judge *j, struct run_result *res, struct sbx_run **run,
                       struct sbx_err *err);
bool io_judge_lang_compile_error(const struct io_judge *j);
/* Why it did not build: the detail and the compiler's first error line. */
void io_judge_lang_why(const struct io_judge *j, char *why, size_t size);
/* The line's "compile" (strings borrowed until io_judge_free). */
void io_judge_lang_verdict(const struct io_judge *j, struct verdict *v);
void io_judge_lang_free(struct io_judge *j);

#endif
