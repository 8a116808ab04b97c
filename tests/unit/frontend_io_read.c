/* The input/output problem readers (frontend/suites/io): each benchmark's
 * row read as it is written, the format found by its fields, and bad rows
 * refused with the file and line named. The packed LiveCodeBench strings
 * were made with Python: base64.b64encode(zlib.compress(pickle.dumps(
 * json.dumps(tests), protocol=P))). */
#include <stdarg.h>
#include <errno.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <cmocka.h>

#include "io.h"
#include "unit_tmpdir.h"

/* [{"input": "1 2\n", "output": "3\n", "testtype": "stdin"},
 *  {"input": "5 5\n", "output": "10\n", "testtype": "stdin"}], protocol 4 */
#define LCB_PACKED_P4 "eJxrYJlayQABPaXR1UqZeQWlJUpWCkqGCkYxeUo6Ckr5pSVQIWOIQElqcUlJZUEqSKi4JCUzT6lWRwFJp6mCKbpOQwOcWmOn6AEAk/gmmQ=="
/* the same, protocol 2 (BINPUT instead of MEMOIZE) */
#define LCB_PACKED_P2 "eJxrYIooZWBgiK5WyswrKC1RslJQMlQwislT0lFQyi8tgQoZQwRKUotLSioLUkFCxSUpmXlKtToKSDpNFUzRdRoa4NQaW8igBwAVziUy"
/* [{"input": "[1, 2]\n3", "output": "[4]", "testtype": "functional"}] */
#define LCB_PACKED_FUNC "eJxrYJnqzgABPc7R1UqZeQWlJUpWCkrRhjoKRrExecZKOgpK+aUlMGGTWJBASWpxSUllQSpIKK00L7kkMz8vMUepNnaKHgB3LxfG"
/* SandboxFusion's form: {"input_output": json.dumps({"inputs": ["1\n"],
 * "outputs": ["2\n"], "fn_name": None})} */
#define SF_PACKED_DICT "eJxrYJnqxwABtVN6eDLzCkpL4vNLS4DUlB6LaiWwQLGSlUK0kmFMnlKsjoISRBYiZgQVS8uLz0vMTQWK5ZXm5NROKdYDAN8aHI0="
/* an object whose __reduce__ calls print("pwned"): GLOBAL + REDUCE */
#define PACKED_EVIL "eJxrYJmqxAABPRxJpZk5JZl5xVN6WAuKMvNKpkwGscrzUlOmtE4JmqIHAC4tD7c="

static int read_text(const char *json, enum io_format fmt, struct io_problem *p,
                     struct sbx_err *err)
{
        struct io_origin at = { .path = "p.jsonl", .line = 7, .index = 6 };
        cJSON *row = cJSON_Parse(json);
        int rc;

        assert_non_null(row);
        memset(p, 0, sizeof(*p));
        memset(err, 0, sizeof(*err));
        rc = io_read_row(row, fmt, &at, p, err);
        cJSON_Delete(row);
        return rc;
}

static void expect_test(const struct io_problem *p, size_t i, const char *in, const char *out)
{
        assert_true(i < p->n_tests);
        assert_string_equal(p->tests[i].input.text, in);
        assert_int_equal(p->tests[i].input.len, strlen(in));
        assert_string_equal(p->tests[i].output.text, out);
}

static void expect_refused(const char *json, enum io_format fmt, const char *words)
{
        struct io_problem p;
        struct sbx_err err;

        assert_int_equal(read_text(json, fmt, &p, &err), -1);
        assert_non_null(strstr(err.msg, "p.jsonl:7: "));
        if (!strstr(err.msg, words))
                fail_msg("error \"%s\" lacks \"%s\"", err.msg, words);
        assert_int_equal(p.n_tests, 0);
        assert_null(p.task_id);
}

static void apps_stdin_lists_join_with_newlines(void **state)
{
        struct io_problem p;
        struct sbx_err err;

        assert_int_equal(read_text("{\"problem_id\": 4182, \"input_output\": "
                                   "\"{\\\"inputs\\\": [\\\"1\\\\n\\\", [\\\"2\\\", \\\"3\\\"]], "
                                   "\\\"outputs\\\": [\\\"1\\\\n\\\", [\\\"5\\\"]]}\", "
                                   "\"solutions\": \"[\\\"print(1)\\\"]\"}",
                                   IO_FORMAT_AUTO, &p, &err), 0);
        assert_int_equal(p.format, IO_FORMAT_APPS);
        assert_string_equal(p.task_id, "4182");
        assert_int_equal(p.n_tests, 2);
        expect_test(&p, 0, "1\n", "1\n");
        expect_test(&p, 1, "2\n3", "5");
        assert_int_equal(p.call, IO_CALL_NONE);
        assert_int_equal(p.compare.kind, IO_CMP_LINES);
        assert_string_equal(p.canonical, "print(1)");
        io_problem_free(&p);
}

static void apps_fn_name_is_call_based_json(void **state)
{
        struct io_problem p;
        struct sbx_err err;

        assert_int_equal(read_text("{\"input_output\": {\"fn_name\": \"maxScore\", "
                                   "\"inputs\": [[[1, 2, 3], 3]], \"outputs\": [12]}}",
                                   IO_FORMAT_APPS, &p, &err), 0);
        assert_int_equal(p.call, IO_CALL_APPS);
        assert_string_equal(p.fn_name, "maxScore");
        assert_string_equal(p.task_id, "6");     /* no id: the row's index */
        expect_test(&p, 0, "[[1,2,3],3]", "12");
        io_problem_free(&p);
}

static void taco_limits_are_read(void **state)
{
        struct io_problem p;
        struct sbx_err err;

        assert_int_equal(read_text("{\"input_output\": {\"inputs\": [\"1\"], \"outputs\": [\"1\"]}, "
                                   "\"time_limit\": \"1.5 seconds\", \"memory_limit\": \"256.0 megabytes\"}",
                                   IO_FORMAT_AUTO, &p, &err), 0);
        assert_int_equal(p.time_limit_ms, 1500);
        assert_int_equal(p.memory_limit_bytes, 256 << 20);
        io_problem_free(&p);
        expect_refused("{\"input_output\": {\"inputs\": [\"1\"], \"outputs\": [\"1\"]}, "
                       "\"time_limit\": \"a while\"}", IO_FORMAT_AUTO, "time_limit");
}

static void codecontests_groups_in_order_with_limits(void **state)
{
        struct io_problem p;
        struct sbx_err err;

        assert_int_equal(read_text("{\"name\": \"1_A. Sum\", "
                                   "\"public_tests\": {\"input\": [\"1 2\\n\"], \"output\": [\"3\\n\"]}, "
                                   "\"private_tests\": {\"input\": [\"4 4\\n\"], \"output\": [\"8\\n\"]}, "
                                   "\"generated_tests\": {\"input\": [\"0 0\\n\"], \"output\": [\"0\\n\"]}, "
                                   "\"time_limit\": {\"seconds\": 2, \"nanos\": 500000000}, "
                                   "\"memory_limit_bytes\": 268435456, "
                                   "\"solutions\": {\"language\": [2, 3], \"solution\": [\"int main\", \"print(3)\"]}}",
                                   IO_FORMAT_AUTO, &p, &err), 0);
        assert_int_equal(p.format, IO_FORMAT_CODECONTESTS);
        assert_string_equal(p.task_id, "1_A. Sum");
        assert_int_equal(p.n_tests, 3);
        expect_test(&p, 0, "1 2\n", "3\n");
        assert_string_equal(p.tests[0].group, "public");
        assert_string_equal(p.tests[2].group, "generated");
        assert_int_equal(p.time_limit_ms, 2500);
        assert_int_equal(p.memory_limit_bytes, 268435456);
        assert_string_equal(p.canonical, "print(3)");   /* the PYTHON3 one */
        io_problem_free(&p);
}

static void lcb_packed_private_tests_are_read_without_unpickling(void **state)
{
        const char *packed[] = { LCB_PACKED_P4, LCB_PACKED_P2 };

        for (size_t i = 0; i < 2; i++) {
                struct io_problem p;
                struct sbx_err err;
                char *row;
                assert_true(asprintf(&row, "{\"question_id\": \"abc301_a\", \"public_test_cases\": "
                                     "\"[{\\\"input\\\": \\\"7\\\\n\\\", \\\"output\\\": \\\"8\\\\n\\\", "
                                     "\\\"testtype\\\": \\\"stdin\\\"}]\", \"private_test_cases\": \"%s\", "
                                     "\"metadata\": \"{}\"}", packed[i]) > 0);
                assert_int_equal(read_text(row, IO_FORMAT_AUTO, &p, &err), 0);
                free(row);
                assert_int_equal(p.format, IO_FORMAT_LCB);
                assert_int_equal(p.compare.kind, IO_CMP_LCB);
                assert_int_equal(p.n_tests, 3);
                expect_test(&p, 0, "7\n", "8\n");
                assert_string_equal(p.tests[0].group, "public");
                expect_test(&p, 2, "5 5\n", "10\n");
                assert_string_equal(p.tests[2].group, "private");
                io_problem_free(&p);
        }
}

static void lcb_functional_needs_func_name(void **state)
{
        struct io_problem p;
        struct sbx_err err;

        assert_int_equal(read_text("{\"question_id\": \"2727\", \"private_test_cases\": \""
                                   LCB_PACKED_FUNC "\", \"metadata\": \"{\\\"func_name\\\": \\\"f\\\"}\"}",
                                   IO_FORMAT_AUTO, &p, &err), 0);
        assert_int_equal(p.call, IO_CALL_LCB);
        assert_string_equal(p.fn_name, "f");
        expect_test(&p, 0, "[1, 2]\n3", "[4]");
        io_problem_free(&p);
        expect_refused("{\"private_test_cases\": \"" LCB_PACKED_FUNC "\", \"metadata\": \"{}\"}",
                       IO_FORMAT_AUTO, "func_name");
}

static void a_pickle_that_would_run_code_is_refused(void **state)
{
        expect_refused("{\"private_test_cases\": \"" PACKED_EVIL "\"}", IO_FORMAT_AUTO,
                       "refused: only a pickled str is read");
        expect_refused("{\"content\": \"x\", \"test\": \"" PACKED_EVIL "\"}", IO_FORMAT_AUTO,
                       "refused");
}

static void sandboxfusion_stdio_rows_and_packed_rows(void **state)
{
        struct io_problem p;
        struct sbx_err err;

        assert_int_equal(read_text("{\"id\": 17, \"content\": \"...\", \"labels\": \"{}\", \"test\": "
                                   "\"[{\\\"input\\\": {\\\"stdin\\\": \\\"4\\\\n5\\\"}, "
                                   "\\\"output\\\": {\\\"stdout\\\": \\\"WRONG_ANSWER\\\\n\\\"}}]\"}",
                                   IO_FORMAT_AUTO, &p, &err), 0);
        assert_int_equal(p.format, IO_FORMAT_SANDBOXFUSION);
        assert_string_equal(p.task_id, "17");
        assert_int_equal(p.compare.kind, IO_CMP_SANDBOXFUSION);
        expect_test(&p, 0, "4\n5", "WRONG_ANSWER\n");
        io_problem_free(&p);

        assert_int_equal(read_text("{\"id\": 1, \"content\": \"...\", \"canonical_solution\": \"pass\", "
                                   "\"test\": \"" SF_PACKED_DICT "\"}", IO_FORMAT_AUTO, &p, &err), 0);
        expect_test(&p, 0, "1\n", "2\n");
        assert_int_equal(p.call, IO_CALL_NONE);
        assert_string_equal(p.canonical, "pass");
        io_problem_free(&p);
}

static void sbx_rows_name_files_and_a_checker(void **state)
{
        struct io_problem p;
        struct sbx_err err;
        char *in = unit_write_tmp("a.in", "1 2\n"), *out = unit_write_tmp("a.out", "3\n");
        char *chk = unit_write_tmp("chk.py", "import sys\n"), *row;

        assert_true(asprintf(&row, "{\"task_id\": \"sum\", \"tests\": [{\"input\": \"0 0\", \"output\": \"0\"}, "
                             "{\"input_file\": \"%s\", \"output_file\": \"%s\"}], \"checker\": \"%s\", "
                             "\"time_limit_ms\": 1000, \"memory_limit_bytes\": 1048576}", in, out, chk) > 0);
        assert_int_equal(read_text(row, IO_FORMAT_AUTO, &p, &err), 0);
        assert_int_equal(p.format, IO_FORMAT_SBX);
        assert_int_equal(p.n_tests, 2);
        assert_null(p.tests[1].input.text);
        assert_string_equal(p.tests[1].input.path, in);
        assert_int_equal(p.tests[1].input.len, 4);
        assert_int_equal(p.compare.kind, IO_CMP_CHECKER);
        assert_string_equal(p.checker, chk);
        assert_int_equal(p.time_limit_ms, 1000);
        io_problem_free(&p);
        free(row);
        free(in);
        free(out);
        free(chk);
        expect_refused("{\"tests\": [{\"input_file\": \"/nonexistent/x.in\", \"output_file\": \"y\"}]}",
                       IO_FORMAT_SBX, "input_file /nonexistent/x.in: No such file");
        expect_refused("{\"tests\": [{\"input\": \"1\", \"output\": \"1\"}], \"compare\": \"float\"}",
                       IO_FORMAT_SBX, "comparison \"float\"");
}

static void sbx_tests_dir_pairs_in_natural_order(void **state)
{
        struct io_problem p;
        struct sbx_err err;
        char *row, *dir;

        assert_true(asprintf(&dir, "%s/td", unit_tmpdir) > 0);
        if (mkdir(dir, 0700) < 0)
                fail_msg("mkdir %s: %s", dir, strerror(errno));
        free(unit_write_tmp("td/10.in", "x"));
        free(unit_write_tmp("td/10.ans", "y"));
        free(unit_write_tmp("td/2.in", "a"));
        free(unit_write_tmp("td/2.out", "b"));
        assert_true(asprintf(&row, "{\"tests_dir\": \"%s\"}", dir) > 0);
        if (read_text(row, IO_FORMAT_AUTO, &p, &err) < 0)
                fail_msg("%s", err.msg);
        assert_int_equal(p.n_tests, 2);
        assert_non_null(strstr(p.tests[0].input.path, "/2.in"));
        assert_non_null(strstr(p.tests[1].output.path, "/10.ans"));
        io_problem_free(&p);
        free(row);
        free(dir);
}

static void bad_rows_name_the_file_and_line(void **state)
{
        expect_refused("{\"prompt\": \"x\"}", IO_FORMAT_AUTO, "not an input/output problem");
        expect_refused("[1]", IO_FORMAT_AUTO, "expected a JSON object");
        expect_refused("{\"input_output\": \"{\\\"inputs\\\": [\\\"1\\\"], \\\"outputs\\\": []}\"}",
                       IO_FORMAT_AUTO, "1 inputs but 0 outputs");
        expect_refused("{\"input_output\": \"not json\"}", IO_FORMAT_AUTO, "not valid JSON");
        expect_refused("{\"input_output\": {\"inputs\": [1], \"outputs\": [\"1\"]}}", IO_FORMAT_AUTO,
                       "neither a string nor a list");
        expect_refused("{\"input_output\": {\"inputs\": [], \"outputs\": []}}", IO_FORMAT_AUTO,
                       "has no tests");
        expect_refused("{\"public_tests\": {\"input\": [\"1\"]}}", IO_FORMAT_AUTO,
                       "public_tests has no input and output lists");
        expect_refused("{\"public_tests\": {\"input\": [\"1\"], \"output\": [\"1\"]}, "
                       "\"time_limit\": 3}", IO_FORMAT_AUTO, "time_limit");
        expect_refused("{\"private_test_cases\": \"!!!!\"}", IO_FORMAT_AUTO, "not base64");
        expect_refused("{\"private_test_cases\": \"eJzLSM3JyQcABiwCFQ==\"}", IO_FORMAT_AUTO,
                       "pickle: does not start with PROTO");
        expect_refused("{\"public_test_cases\": \"[{\\\"input\\\": \\\"1\\\", \\\"output\\\": \\\"1\\\", "
                       "\\\"testtype\\\": \\\"interactive\\\"}]\"}", IO_FORMAT_AUTO, "testtype");
        expect_refused("{\"content\": \"x\", \"test\": \"assert f(1) == 2\"}", IO_FORMAT_AUTO,
                       "neither a JSON list nor packed tests");
        expect_refused("{\"content\": \"x\", \"test\": \"{\\\"a\\\": 1}\"}", IO_FORMAT_AUTO,
                       "not a list of tests");
        expect_refused("{\"tests\": [{\"input\": \"1\"}]}", IO_FORMAT_SBX, "has no input and output");
}

static void format_names_round_trip(void **state)
{
        for (int f = 1; f < IO_FORMATS; f++)
                assert_int_equal(io_format_parse(io_format_name((enum io_format)f)), f);
        assert_int_equal(io_format_parse("taco"), IO_FORMAT_APPS);
        assert_int_equal(io_format_parse("lcb"), IO_FORMAT_LCB);
        assert_int_equal(io_format_parse("humaneval"), -1);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(apps_stdin_lists_join_with_newlines),
                cmocka_unit_test(apps_fn_name_is_call_based_json),
                cmocka_unit_test(taco_limits_are_read),
                cmocka_unit_test(codecontests_groups_in_order_with_limits),
                cmocka_unit_test(lcb_packed_private_tests_are_read_without_unpickling),
                cmocka_unit_test(lcb_functional_needs_func_name),
                cmocka_unit_test(a_pickle_that_would_run_code_is_refused),
                cmocka_unit_test(sandboxfusion_stdio_rows_and_packed_rows),
                cmocka_unit_test(sbx_rows_name_files_and_a_checker),
                cmocka_unit_test(sbx_tests_dir_pairs_in_natural_order),
                cmocka_unit_test(bad_rows_name_the_file_and_line),
                cmocka_unit_test(format_names_round_trip),
        };
        return cmocka_run_group_tests(tests, unit_tmpdir_setup, unit_tmpdir_teardown);
}
