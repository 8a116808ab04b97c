/* A test's verdict from its run, its checker or its comparison, and a
 * sample's from its tests. */
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io_verdict.h"

/* testlib.h's exit codes (resultExitCode, without the ejudge or
 * Contester variants). */
enum {
        TESTLIB_OK = 0,
        TESTLIB_WA = 1,
        TESTLIB_PE = 2,
        TESTLIB_FAIL = 3,
};

static const struct {
        const char *name, *words;
        char letter;
} verdicts[IO_VERDICTS] = {
        [IO_V_ACCEPTED] = { "accepted", "passed", 'A' },
        [IO_V_WRONG_ANSWER] = { "wrong_answer", "wrong answer", 'W' },
        [IO_V_TIME_LIMIT] = { "time_limit", "time limit exceeded", 'T' },
        [IO_V_MEMORY_LIMIT] = { "memory_limit", "memory limit exceeded", 'M' },
        [IO_V_RUNTIME_ERROR] = { "runtime_error", "runtime error", 'R' },
        [IO_V_OUTPUT_LIMIT] = { "output_limit", "output limit exceeded", 'O' },
        [IO_V_COMPILE_ERROR] = { "compile_error", "compile error", 'C' },
        [IO_V_JUDGE_ERROR] = { "judge_error", "judge error", 'J' },
        [IO_V_NOT_RUN] = { "not_run", "not run", '-' },
};

const char *io_verdict_name(enum io_verdict v)
{
        return (unsigned)v < IO_VERDICTS ? verdicts[v].name : "?";
}

char io_verdict_letter(enum io_verdict v)
{
        return (unsigned)v < IO_VERDICTS ? verdicts[v].letter : '?';
}

static enum io_verdict say(enum io_verdict v, char *why, size_t size, const char *fmt, ...)
        __attribute__((format(printf, 4, 5)));

static enum io_verdict say(enum io_verdict v, char *why, size_t size, const char *fmt, ...)
{
        va_list ap;

        if (size) {
                va_start(ap, fmt);
                vsnprintf(why, size, fmt, ap);
                va_end(ap);
        }
        return v;
}

/* Order matters: a run stopped for its output dies of the stop, so the
 * output cap is decided before the signal; limits before exit codes. */
enum io_verdict io_verdict_of_run(const struct io_run *r, char *why, size_t size)
{
        switch (r->end) {
        case IO_RUN_SETUP_ERROR:
                return say(IO_V_JUDGE_ERROR, why, size, "the sandbox could not run the test: %s",
                           r->detail ? r->detail : "setup error");
        case IO_RUN_TIMEOUT:
                return say(IO_V_TIME_LIMIT, why, size, "wall clock limit");
        case IO_RUN_CPU_LIMIT:
                return say(IO_V_TIME_LIMIT, why, size, "cpu time limit");
        case IO_RUN_MEMORY_LIMIT:
                return say(IO_V_MEMORY_LIMIT, why, size, "memory limit");
        default:
                break;
        }
        if (r->output_over_cap)
                return say(IO_V_OUTPUT_LIMIT, why, size, "output past the cap");
        if (r->end == IO_RUN_SIGNALED)
                return say(IO_V_RUNTIME_ERROR, why, size, "killed by signal %d (%s)", r->signal,
                           sigabbrev_np(r->signal) ? sigabbrev_np(r->signal) : "?");
        if (r->exit_code != 0)
                return say(IO_V_RUNTIME_ERROR, why, size, "exit code %d", r->exit_code);
        return say(IO_V_ACCEPTED, why, size, "%s", "");
}

enum io_verdict io_verdict_of_checker(const struct io_run *r, char *why, size_t size)
{
        const char *msg = r->detail && r->detail[0] ? r->detail : "";

        if (r->end != IO_RUN_EXITED || r->output_over_cap) {
                char run_why[128];
                io_verdict_of_run(r, run_why, sizeof(run_why));
                return say(IO_V_JUDGE_ERROR, why, size, "the checker did not finish: %s", run_why);
        }
        switch (r->exit_code) {
        case TESTLIB_OK:
                return say(IO_V_ACCEPTED, why, size, "%s", msg);
        case TESTLIB_WA:
                return say(IO_V_WRONG_ANSWER, why, size, "checker: %s", msg);
        case TESTLIB_PE:
                return say(IO_V_WRONG_ANSWER, why, size, "checker: presentation error: %s", msg);
        case TESTLIB_FAIL:
                return say(IO_V_JUDGE_ERROR, why, size, "the checker failed: %s", msg);
        default:
                return say(IO_V_JUDGE_ERROR, why, size, "the checker exited %d (not a testlib "
                           "verdict): %s", r->exit_code, msg);
        }
}

enum io_verdict io_verdict_of_compare(int rc, const struct io_diff *d, char *why, size_t size)
{
        if (rc < 0)
                return say(IO_V_JUDGE_ERROR, why, size, "the outputs could not be compared");
        if (rc == 0)
                return say(IO_V_ACCEPTED, why, size, "%s", "");
        if (d->expected[0] || d->found[0])
                return say(IO_V_WRONG_ANSWER, why, size, "line %ld: %s: expected \"%s\", found \"%s\"",
                           d->line, d->why, d->expected, d->found);
        return say(IO_V_WRONG_ANSWER, why, size, "line %ld: %s", d->line, d->why);
}

int io_sample_init(struct io_sample *s, size_t n_tests, bool run_all)
{
        memset(s, 0, sizeof(*s));
        s->n_tests = n_tests;
        s->run_all = run_all;
        s->first_failed = -1;
        if (!run_all)
                return 0;
        if (!(s->letters = malloc(n_tests + 1)))
                return -1;
        memset(s->letters, io_verdict_letter(IO_V_NOT_RUN), n_tests);
        s->letters[n_tests] = '\0';
        return 0;
}

void io_sample_free(struct io_sample *s)
{
        free(s->letters);
        s->letters = NULL;
}

bool io_sample_record(struct io_sample *s, size_t i, enum io_verdict v,
                      const struct io_run *r, const char *why)
{
        s->n_run++;
        s->counts[v]++;
        if (s->letters && i < s->n_tests)
                s->letters[i] = io_verdict_letter(v);
        if (r) {
                s->max_wall_s = r->wall_s > s->max_wall_s ? r->wall_s : s->max_wall_s;
                s->total_cpu_s += r->cpu_s;
                s->max_rss_kb = r->max_rss_kb > s->max_rss_kb ? r->max_rss_kb : s->max_rss_kb;
        }
        if (v == IO_V_ACCEPTED) {
                s->n_passed++;
                return true;
        }
        if (s->first_failed < 0) {
                s->first_failed = (long)i;
                s->verdict = v;
                snprintf(s->why, sizeof(s->why), "%s", why ? why : "");
        }
        /* a judge error leaves the sample unscored: nothing after it counts */
        return s->run_all && v != IO_V_JUDGE_ERROR;
}

void io_sample_compile_error(struct io_sample *s, const char *why)
{
        s->verdict = IO_V_COMPILE_ERROR;
        s->counts[IO_V_COMPILE_ERROR]++;
        snprintf(s->why, sizeof(s->why), "%s", why ? why : "");
}

bool io_sample_passed(const struct io_sample *s)
{
        return s->verdict == IO_V_ACCEPTED && s->n_passed == s->n_tests && s->n_tests > 0;
}

bool io_sample_scored(const struct io_sample *s)
{
        return s->counts[IO_V_JUDGE_ERROR] == 0;
}

int io_sample_to_json(const struct io_sample *s, cJSON *obj)
{
        bool ok = cJSON_AddStringToObject(obj, "verdict", io_verdict_name(s->verdict)) &&
                  (s->first_failed < 0 ? cJSON_AddNullToObject(obj, "failed_test") != NULL
                   : cJSON_AddNumberToObject(obj, "failed_test", (double)s->first_failed) != NULL) &&
                  cJSON_AddNumberToObject(obj, "tests_passed", (double)s->n_passed) &&
                  cJSON_AddNumberToObject(obj, "tests_run", (double)s->n_run) &&
                  cJSON_AddNumberToObject(obj, "tests_total", (double)s->n_tests) &&
                  cJSON_AddNumberToObject(obj, "time_s", s->max_wall_s) &&
                  cJSON_AddNumberToObject(obj, "cpu_s", s->total_cpu_s) &&
                  cJSON_AddNumberToObject(obj, "max_rss_kb", (double)s->max_rss_kb);

        if (ok && s->letters)
                ok = cJSON_AddStringToObject(obj, "test_verdicts", s->letters) != NULL;
        return ok ? 0 : -1;
}

void io_sample_result(const struct io_sample *s, char *buf, size_t size)
{
        if (io_sample_passed(s))
                snprintf(buf, size, "passed");
        else if (s->verdict == IO_V_TIME_LIMIT)
                snprintf(buf, size, "timed out");
        else if (s->verdict == IO_V_COMPILE_ERROR)
                snprintf(buf, size, "failed: compile error: %s", s->why);
        else if (s->first_failed < 0)
                snprintf(buf, size, "failed: no test ran");
        else if (s->verdict == IO_V_JUDGE_ERROR)   /* not scored: no "failed" */
                snprintf(buf, size, "judge error on test %ld: %s", s->first_failed, s->why);
        else
                snprintf(buf, size, "failed: %s on test %ld%s%s", verdicts[s->verdict].words,
                         s->first_failed, s->why[0] ? ": " : "", s->why);
}
