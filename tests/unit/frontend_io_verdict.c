/* Verdicts of input/output problems (frontend/suites/io/io_verdict.c,
 * checker.c): how a test's run, its checker's run and its comparison map
 * to a verdict, the precedence among them (a run stopped for its output
 * is an output limit, not the signal that stopped it; a crash after a
 * correct answer is a runtime error), a checker's failure being the
 * judge's error, and a sample's first failure, letters and fields. */
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "checker.h"
#include "io_verdict.h"

static void expect_run(struct io_run r, enum io_verdict want, const char *words)
{
        char why[256];
        enum io_verdict got = io_verdict_of_run(&r, why, sizeof(why));

        if (got != want || !strstr(why, words))
                fail_msg("run end %d exit %d signal %d: %s \"%s\", want %s \"%s\"", r.end, r.exit_code,
                         r.signal, io_verdict_name(got), why, io_verdict_name(want), words);
}

static void a_run_decides_before_its_output(void **state)
{
        expect_run((struct io_run){ .end = IO_RUN_EXITED }, IO_V_ACCEPTED, "");
        expect_run((struct io_run){ .end = IO_RUN_TIMEOUT }, IO_V_TIME_LIMIT, "wall clock");
        expect_run((struct io_run){ .end = IO_RUN_CPU_LIMIT }, IO_V_TIME_LIMIT, "cpu");
        expect_run((struct io_run){ .end = IO_RUN_MEMORY_LIMIT }, IO_V_MEMORY_LIMIT, "memory");
        expect_run((struct io_run){ .end = IO_RUN_SIGNALED, .signal = SIGSEGV }, IO_V_RUNTIME_ERROR,
                   "killed by signal 11 (SEGV)");
        /* prints the right answer, then exits 1 or raises: a runtime error */
        expect_run((struct io_run){ .end = IO_RUN_EXITED, .exit_code = 1 }, IO_V_RUNTIME_ERROR,
                   "exit code 1");
        /* stopped at the output cap: the kill is not the verdict */
        expect_run((struct io_run){ .end = IO_RUN_SIGNALED, .signal = SIGKILL, .output_over_cap = true },
                   IO_V_OUTPUT_LIMIT, "output");
        expect_run((struct io_run){ .end = IO_RUN_EXITED, .output_over_cap = true }, IO_V_OUTPUT_LIMIT, "");
        /* slow and too much output: the time limit */
        expect_run((struct io_run){ .end = IO_RUN_TIMEOUT, .output_over_cap = true }, IO_V_TIME_LIMIT, "");
        expect_run((struct io_run){ .end = IO_RUN_SETUP_ERROR, .detail = "no tier" }, IO_V_JUDGE_ERROR,
                   "could not run the test: no tier");
}

static void expect_checker(struct io_run r, enum io_verdict want, const char *words)
{
        char why[256];
        enum io_verdict got = io_verdict_of_checker(&r, why, sizeof(why));

        if (got != want || !strstr(why, words))
                fail_msg("checker end %d exit %d: %s \"%s\", want %s \"%s\"", r.end, r.exit_code,
                         io_verdict_name(got), why, io_verdict_name(want), words);
}

static void a_checker_maps_by_testlib_exit_codes(void **state)
{
        expect_checker((struct io_run){ .exit_code = 0, .detail = "ok 3 tokens" }, IO_V_ACCEPTED, "ok");
        expect_checker((struct io_run){ .exit_code = 1, .detail = "wrong answer 1st words differ" },
                       IO_V_WRONG_ANSWER, "checker: wrong answer 1st words differ");
        expect_checker((struct io_run){ .exit_code = 2 }, IO_V_WRONG_ANSWER, "presentation error");
        expect_checker((struct io_run){ .exit_code = 3, .detail = "bad answer file" }, IO_V_JUDGE_ERROR,
                       "the checker failed: bad answer file");
        expect_checker((struct io_run){ .exit_code = 7 }, IO_V_JUDGE_ERROR, "not a testlib verdict");
        expect_checker((struct io_run){ .exit_code = 127 }, IO_V_JUDGE_ERROR, "exited 127");
        /* a checker that loops or crashes is the judge's error, not the sample's */
        expect_checker((struct io_run){ .end = IO_RUN_TIMEOUT }, IO_V_JUDGE_ERROR, "did not finish: wall clock");
        expect_checker((struct io_run){ .end = IO_RUN_SIGNALED, .signal = SIGABRT }, IO_V_JUDGE_ERROR,
                       "did not finish: killed by signal 6");
        expect_checker((struct io_run){ .end = IO_RUN_MEMORY_LIMIT }, IO_V_JUDGE_ERROR, "memory");
        expect_checker((struct io_run){ .output_over_cap = true }, IO_V_JUDGE_ERROR, "output");
}

static void a_comparison_says_where(void **state)
{
        struct io_diff d = { .line = 2, .why = "tokens differ", .expected = "5", .found = "6" };
        char why[256];

        assert_int_equal(io_verdict_of_compare(0, &d, why, sizeof(why)), IO_V_ACCEPTED);
        assert_int_equal(io_verdict_of_compare(1, &d, why, sizeof(why)), IO_V_WRONG_ANSWER);
        assert_string_equal(why, "line 2: tokens differ: expected \"5\", found \"6\"");
        assert_int_equal(io_verdict_of_compare(-1, &d, why, sizeof(why)), IO_V_JUDGE_ERROR);
}

static void a_sample_stops_at_its_first_failure(void **state)
{
        struct io_sample s;
        struct io_run r = { .wall_s = 0.5, .cpu_s = 0.25, .max_rss_kb = 9000 };
        char res[512];
        cJSON *obj = cJSON_CreateObject();

        assert_int_equal(io_sample_init(&s, 5, false), 0);
        assert_true(io_sample_record(&s, 0, IO_V_ACCEPTED, &r, NULL));
        assert_false(io_sample_record(&s, 1, IO_V_WRONG_ANSWER, &r, "line 1: tokens differ"));
        assert_int_equal(s.verdict, IO_V_WRONG_ANSWER);
        assert_int_equal(s.first_failed, 1);
        assert_false(io_sample_passed(&s));
        assert_true(io_sample_scored(&s));
        io_sample_result(&s, res, sizeof(res));
        assert_string_equal(res, "failed: wrong answer on test 1: line 1: tokens differ");
        assert_int_equal(io_sample_to_json(&s, obj), 0);
        char *text = cJSON_PrintUnformatted(obj);
        assert_string_equal(text, "{\"verdict\":\"wrong_answer\",\"failed_test\":1,\"tests_passed\":1,"
                            "\"tests_run\":2,\"tests_total\":5,\"time_s\":0.5,\"cpu_s\":0.5,\"max_rss_kb\":9000}");
        free(text);
        cJSON_Delete(obj);
        io_sample_free(&s);
}

static void all_tests_run_on_request_and_are_lettered(void **state)
{
        struct io_sample s;
        char res[512];
        enum io_verdict v[] = { IO_V_ACCEPTED, IO_V_TIME_LIMIT, IO_V_ACCEPTED, IO_V_RUNTIME_ERROR };

        assert_int_equal(io_sample_init(&s, 5, true), 0);
        for (size_t i = 0; i < 4; i++)
                assert_true(io_sample_record(&s, i, v[i], NULL, "why"));
        assert_string_equal(s.letters, "ATAR-");
        assert_int_equal(s.verdict, IO_V_TIME_LIMIT);
        assert_int_equal(s.first_failed, 1);
        assert_int_equal(s.n_passed, 2);
        assert_int_equal(s.counts[IO_V_RUNTIME_ERROR], 1);
        io_sample_result(&s, res, sizeof(res));
        assert_string_equal(res, "timed out");
        /* a judge error stops even a full run, and leaves it unscored */
        assert_false(io_sample_record(&s, 4, IO_V_JUDGE_ERROR, NULL, "the checker failed"));
        assert_false(io_sample_scored(&s));
        io_sample_free(&s);

        assert_int_equal(io_sample_init(&s, 2, true), 0);
        assert_true(io_sample_record(&s, 0, IO_V_ACCEPTED, NULL, NULL));
        assert_true(io_sample_record(&s, 1, IO_V_ACCEPTED, NULL, NULL));
        assert_true(io_sample_passed(&s));
        io_sample_result(&s, res, sizeof(res));
        assert_string_equal(res, "passed");
        io_sample_free(&s);
}

static void a_judge_error_is_not_a_failure(void **state)
{
        struct io_sample s;
        char res[512];

        assert_int_equal(io_sample_init(&s, 3, false), 0);
        assert_true(io_sample_record(&s, 0, IO_V_ACCEPTED, NULL, NULL));
        assert_false(io_sample_record(&s, 1, IO_V_JUDGE_ERROR, NULL, "the checker did not finish"));
        assert_false(io_sample_scored(&s));
        assert_false(io_sample_passed(&s));
        io_sample_result(&s, res, sizeof(res));
        assert_string_equal(res, "judge error on test 1: the checker did not finish");
        io_sample_free(&s);
}

static void a_compile_error_runs_no_test(void **state)
{
        struct io_sample s;
        char res[512];

        assert_int_equal(io_sample_init(&s, 3, false), 0);
        io_sample_compile_error(&s, "main.cpp:1: error: expected ';'");
        assert_int_equal(s.n_run, 0);
        assert_false(io_sample_passed(&s));
        assert_true(io_sample_scored(&s));
        io_sample_result(&s, res, sizeof(res));
        assert_string_equal(res, "failed: compile error: main.cpp:1: error: expected ';'");
        io_sample_free(&s);
        /* no tests at all is never a pass */
        assert_int_equal(io_sample_init(&s, 0, false), 0);
        assert_false(io_sample_passed(&s));
}

static void checker_argv_and_message(void **state)
{
        struct strvec argv = { 0 };
        struct sbx_err err = { 0 };
        char msg[256];

        assert_int_equal(io_checker_argv("/p/check.py", "/usr/bin/python3", "/w", true, &argv, &err), 0);
        assert_int_equal(argv.len, 9);
        assert_string_equal(argv.items[0], "/usr/bin/python3");
        assert_string_equal(argv.items[3], "-c");
        assert_string_equal(argv.items[5], "checker.py");
        assert_string_equal(argv.items[8], IO_CHECKER_ANSWER);
        strvec_free(&argv);
        assert_int_equal(io_checker_argv("/p/wcmp", "/usr/bin/python3", "/w", true, &argv, &err), 0);
        assert_string_equal(argv.items[0], "/w/checker");
        assert_int_equal(argv.len, 4);
        strvec_free(&argv);
        /* large files: a cold run's shape, no runner */
        assert_int_equal(io_checker_argv("/p/check.py", "/usr/bin/python3", "/w", false, &argv, &err), 0);
        assert_int_equal(argv.len, 7);
        assert_string_equal(argv.items[3], "checker.py");
        assert_string_equal(io_checker_name("/p/wcmp"), "checker");
        strvec_free(&argv);
        io_checker_message("\n  \nwrong answer 2nd words differ\r\nmore", 38, "x", 1, msg, sizeof(msg));
        assert_string_equal(msg, "wrong answer 2nd words differ");
        io_checker_message("", 0, "ok\n", 3, msg, sizeof(msg));
        assert_string_equal(msg, "ok");
        char big[600];
        memset(big, 'w', sizeof(big));
        io_checker_message(big, sizeof(big), NULL, 0, msg, sizeof(msg));
        assert_int_equal(strlen(msg), IO_CHECKER_MSG_BYTES);
}

static void verdict_names_and_letters(void **state)
{
        const char letters[] = "AWTMROCJ-";

        for (int v = 0; v < IO_VERDICTS; v++) {
                assert_int_equal(io_verdict_letter((enum io_verdict)v), letters[v]);
                assert_string_not_equal(io_verdict_name((enum io_verdict)v), "?");
        }
        assert_string_equal(io_verdict_name(IO_V_MEMORY_LIMIT), "memory_limit");
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(a_run_decides_before_its_output),
                cmocka_unit_test(a_checker_maps_by_testlib_exit_codes),
                cmocka_unit_test(a_comparison_says_where),
                cmocka_unit_test(a_sample_stops_at_its_first_failure),
                cmocka_unit_test(all_tests_run_on_request_and_are_lettered),
                cmocka_unit_test(a_judge_error_is_not_a_failure),
                cmocka_unit_test(a_compile_error_runs_no_test),
                cmocka_unit_test(checker_argv_and_message),
                cmocka_unit_test(verdict_names_and_letters),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
