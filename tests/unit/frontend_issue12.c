/* Issue 12's user-facing fixes, without a sandbox: shipped problem files
 * found (or a clear error), other harnesses' sample formats, a truncated
 * gzip named as such, results that are always valid UTF-8 and keep a
 * bounded stderr tail, partial runs and left-out pass@k flagged in the
 * summary, per_task in natural order, and SHA-256 against FIPS vectors. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <cmocka.h>

#include "results.h"
#include "sha256.h"
#include "suite.h"
#include "suite_summary.h"
#include "encoding.h"

static char tmpdir[] = "/tmp/sbx-unit-issue12.XXXXXX";

static char *tmp_path(const char *name)
{
        char *path;

        assert_true(asprintf(&path, "%s/%s", tmpdir, name) > 0);
        return path;
}

static char *write_tmp(const char *name, const char *text)
{
        char *path = tmp_path(name);
        FILE *fp = fopen(path, "w");

        assert_non_null(fp);
        fputs(text, fp);
        fclose(fp);
        return path;
}

static int setup(void **state) { return mkdtemp(tmpdir) ? 0 : -1; }

static int teardown(void **state)
{
        char cmd[128];
        snprintf(cmd, sizeof(cmd), "rm -rf %s", tmpdir);
        return system(cmd);
}

static const char *PROBLEMS =
        "{\"task_id\": \"T/0\", \"prompt\": \"def f():\\n\", \"canonical_solution\": \"    return 1\\n\","
        " \"test\": \"def check(c):\\n    assert c() == 1\", \"entry_point\": \"f\"}\n"
        "{\"task_id\": \"T/1\", \"prompt\": \"def g():\\n\", \"canonical_solution\": \"    return 2\\n\","
        " \"test\": \"def check(c):\\n    assert c() == 2\", \"entry_point\": \"g\"}\n";

static void load_problems(struct suite *s)
{
        struct sbx_err err = { 0 };
        char *pb = write_tmp("problems.jsonl", PROBLEMS);

        memset(s, 0, sizeof(*s));
        assert_int_equal(suite_def_load(&s->def, "humaneval", &err), 0);
        assert_int_equal(suite_load_problems(s, pb, &err), 0);
        free(pb);
}

static void shipped_problems_are_found_or_named(void **state)
{
        struct sbx_err err = { 0 };
        char *path = NULL, *dir = tmp_path("suites"), *he = tmp_path("suites/humaneval");

        assert_int_equal(mkdir(dir, 0755), 0);
        setenv("SBX_SUITES_DIR", dir, 1);
        /* missing: the error names the path looked at and --problems */
        assert_int_equal(suite_default_problems("humaneval", &path, &err), -1);
        assert_null(path);
        assert_non_null(strstr(err.msg, "suites/humaneval/HumanEval.jsonl.gz"));
        assert_non_null(strstr(err.msg, "--problems"));
        assert_int_equal(mkdir(he, 0755), 0);
        free(write_tmp("suites/humaneval/HumanEval.jsonl.gz", PROBLEMS));
        assert_int_equal(suite_default_problems("humaneval", &path, &err), 0);
        assert_non_null(strstr(path, "/suites/humaneval/HumanEval.jsonl.gz"));
        free(path);
        /* ClassEval is not shipped: its licence, where to get it, --problems */
        assert_int_equal(suite_default_problems("classeval", &path, &err), -1);
        assert_non_null(strstr(err.msg, "CC BY-NC"));
        assert_non_null(strstr(err.msg, "github.com/FudanSELab/ClassEval"));
        assert_non_null(strstr(err.msg, "--problems"));
        unsetenv("SBX_SUITES_DIR");
        free(dir);
        free(he);
}

static void bigcode_generations_are_solutions_in_problem_order(void **state)
{
        struct suite s;
        struct sbx_err err = { 0 };
        char *gen = write_tmp("generations.json",
                "[[\"def f():\\n    return 1\", \"def f():\\n    return 0\"], [\"def g():\\n    return 2\"]]");

        load_problems(&s);
        assert_int_equal(suite_load_samples(&s, gen, &err), 0);
        assert_string_equal(s.samples_format, "bigcode-generations");
        assert_int_equal(s.n_samples, 3);
        assert_string_equal(s.tasks[s.samples[2].task].task_id, "T/1");
        assert_true(s.samples[0].is_solution);
        char *p = suite_build_program(&s, &s.samples[2], &err);
        assert_string_equal(p, "def g():\n    return 2\ndef check(c):\n    assert c() == 2\ncheck(g)");
        free(p);
        suite_free(&s);
        free(gen);

        /* more lists than problems is refused, naming both counts */
        gen = write_tmp("gen3.json", "[[\"a\"], [\"b\"], [\"c\"]]");
        load_problems(&s);
        assert_int_equal(suite_load_samples(&s, gen, &err), -1);
        assert_non_null(strstr(err.msg, "3 lists of generations for 2 problems"));
        suite_free(&s);
        free(gen);
}

static void evalplus_directory_is_read_in_natural_order(void **state)
{
        struct suite s;
        struct sbx_err err = { 0 };
        char *dir = tmp_path("evalplus"), *t0 = tmp_path("evalplus/T_0");

        assert_int_equal(mkdir(dir, 0755), 0);
        assert_int_equal(mkdir(t0, 0755), 0);
        free(write_tmp("evalplus/T_0/10.py", "def f():\n    return 10\n"));
        free(write_tmp("evalplus/T_0/2.py", "def f():\n    return 1\n"));
        free(write_tmp("evalplus/T_0/notes.txt", "not a sample"));
        load_problems(&s);
        assert_int_equal(suite_load_samples(&s, dir, &err), 0);
        assert_string_equal(s.samples_format, "evalplus-samples-dir");
        assert_int_equal(s.n_samples, 2);
        assert_string_equal(s.samples[0].code, "def f():\n    return 1\n");
        assert_true(s.samples[0].is_solution);
        assert_int_equal(s.tasks[1].n_samples, 0);
        suite_free(&s);
        free(t0);
        free(dir);
}

static void unknown_sample_shape_lists_the_formats(void **state)
{
        struct suite s;
        struct sbx_err err = { 0 };
        char *bad = write_tmp("bad.json", "[\"just a string\"]");

        load_problems(&s);
        assert_int_equal(suite_load_samples(&s, bad, &err), -1);
        assert_non_null(strstr(err.msg, "bad.json: element 1"));
        assert_non_null(strstr(err.msg, "generations.json"));
        assert_non_null(strstr(err.msg, "evalplus samples directory"));
        suite_free(&s);
        free(bad);
}

static void truncated_gzip_names_the_line(void **state)
{
        char *full = tmp_path("full.jsonl.gz"), *cut = tmp_path("cut.jsonl.gz");
        char *buf = NULL;
        size_t len;
        struct sbx_err err = { 0 };
        gzFile gz = gzopen(full, "wb");

        assert_non_null(gz);
        for (int i = 0; i < 2000; i++)
                gzprintf(gz, "{\"task_id\": \"T/%d\", \"pad\": \"%0200d\"}\n", i, i);
        gzclose(gz);
        FILE *in = fopen(full, "rb"), *out = fopen(cut, "wb");
        char chunk[4096];
        size_t n = fread(chunk, 1, sizeof(chunk), in);
        fwrite(chunk, 1, n / 2, out);
        fclose(in);
        fclose(out);
        assert_int_equal(suite_read_file(cut, &buf, &len, &err), -1);
        assert_non_null(strstr(err.msg, "cut.jsonl.gz: gzip stream ended early at line "));
        assert_int_equal(suite_read_file(full, &buf, &len, &err), 0);
        free(buf);
        free(full);
        free(cut);
}

static void utf8_repair_replaces_each_bad_byte(void **state)
{
        size_t r;
        char *s = utf8_repair("a\xff" "b\xc3\xa9" "\xed\xa0\x80" "\xe2\x82", 11, &r);

        /* \xff, a surrogate's 3 bytes and a cut-short sequence's 2: 6 bytes */
        assert_int_equal(r, 6);
        assert_string_equal(s, "a\xef\xbf\xbd" "b\xc3\xa9"
                            "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");
        free(s);
        assert_int_equal(utf8_seq_len((const unsigned char *)"\xf0\x9f\x98\x80", 4), 4);
        assert_int_equal(utf8_seq_len((const unsigned char *)"\xc0\x80", 2), 0); /* overlong */
        assert_int_equal(utf8_seq_len((const unsigned char *)"\xf4\x90\x80\x80", 4), 0);
}

static void results_line_is_valid_utf8_and_keeps_a_stderr_tail(void **state)
{
        cJSON *fields = cJSON_CreateObject();
        struct run_result run = { .status = RUN_FAILED, .returncode = 1 };
        struct verdict v = { .passed = false, .run = &run };
        struct result_meta m = { "humaneval", "0123456789abcdef", 1, 0, 1 };

        cJSON_AddStringToObject(fields, "task_id", "T/0");
        cJSON_AddStringToObject(fields, "completion", "x = '\xff\xfe'");
        snprintf(v.result, sizeof(v.result), "failed: ");
        snprintf(v.exception, sizeof(v.exception), "AssertionError");
        for (size_t i = 0; i < 3000; i++)       /* 3000 bytes of "line NNNN\n" */
                run.err.tail[i] = i % 10 == 9 ? '\n' : 'x';
        run.err.tail_len = 3000;
        char *line = results_line(fields, 0, 1, &v, &m);
        cJSON *o = cJSON_Parse(line);
        assert_non_null(o);
        assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(o, "completion")),
                            "x = '\xef\xbf\xbd\xef\xbf\xbd'");
        assert_int_equal(cJSON_GetObjectItem(o, "sbx_invalid_utf8")->valueint, 2);
        assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(o, "exception")),
                            "AssertionError");
        const char *tail = cJSON_GetStringValue(cJSON_GetObjectItem(o, "stderr_tail"));
        assert_true(strlen(tail) <= RESULT_STDERR_TAIL_BYTES && strlen(tail) > 2000);
        assert_true(tail[0] == 'x' && tail[strlen(tail) - 1] == '\n');  /* whole lines */
        cJSON_Delete(o);
        cJSON_Delete(fields);
        free(line);
}

static cJSON *result(const char *task, bool passed)
{
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "task_id", task);
        cJSON_AddStringToObject(o, "result", passed ? "passed" : "failed: ");
        cJSON_AddBoolToObject(o, "passed", passed);
        return o;
}

static void summary_flags_partial_runs_and_left_out_k(void **state)
{
        cJSON *lines[] = { result("T/10", true), result("T/2", false), result("T/2", true) };
        struct summary_opts o = { .suite = "humaneval", .ks = { 1, 2 }, .nk = 2,
                                  .wall_s = -1, .total = 3, .problem_tasks = 5,
                                  .tasks_without_samples = 3 };
        struct sbx_err err = { 0 };
        cJSON *sum = suite_summary(lines, 3, &o, &err);

        assert_non_null(sum);
        assert_false(cJSON_IsTrue(cJSON_GetObjectItem(sum, "complete")));
        assert_int_equal(cJSON_GetObjectItem(sum, "tasks_without_samples")->valueint, 3);
        assert_non_null(cJSON_GetObjectItem(cJSON_GetObjectItem(sum, "pass_at_k"), "pass@1"));
        assert_null(cJSON_GetObjectItem(cJSON_GetObjectItem(sum, "pass_at_k"), "pass@2"));
        assert_non_null(strstr(cJSON_GetStringValue(cJSON_GetObjectItem(
                cJSON_GetObjectItem(sum, "pass_at_k_left_out"), "pass@2")), "only 1 sample"));
        cJSON *rows = cJSON_GetObjectItem(sum, "per_task");
        assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(
                cJSON_GetArrayItem(rows, 0), "task_id")), "T/2");
        cJSON_Delete(sum);
        o.tasks_without_samples = 0;
        sum = suite_summary(lines, 3, &o, &err);
        assert_true(cJSON_IsTrue(cJSON_GetObjectItem(sum, "complete")));
        cJSON_Delete(sum);
        for (int i = 0; i < 3; i++)
                cJSON_Delete(lines[i]);
}

static void natural_order_compares_digit_runs_as_numbers(void **state)
{
        assert_true(suite_natural_cmp("HumanEval/2", "HumanEval/10") < 0);
        assert_true(suite_natural_cmp("HumanEval/10", "HumanEval/9") > 0);
        assert_true(suite_natural_cmp("Mbpp/2", "HumanEval/10") > 0);
        assert_int_equal(suite_natural_cmp("T/007", "T/7"), 0);
        assert_true(suite_natural_cmp("a", "a1") < 0);
}

static void sha256_matches_fips_vectors(void **state)
{
        struct sha256 c;
        char hex[SHA256_HEX_LEN + 1];

        sha256_init(&c);
        sha256_hex(&c, hex);
        assert_string_equal(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
        sha256_init(&c);
        sha256_update(&c, "abc", 3);
        sha256_hex(&c, hex);
        assert_string_equal(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
        sha256_init(&c);
        char a[1000];
        memset(a, 'a', sizeof(a));
        for (size_t done = 0, step = 1; done < 1000000; done += step, step = step % 997 + 1)
                sha256_update(&c, a, step < 1000000 - done ? step : 1000000 - done);   /* uneven pieces */
        sha256_hex(&c, hex);
        assert_string_equal(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(shipped_problems_are_found_or_named),
                cmocka_unit_test(bigcode_generations_are_solutions_in_problem_order),
                cmocka_unit_test(evalplus_directory_is_read_in_natural_order),
                cmocka_unit_test(unknown_sample_shape_lists_the_formats),
                cmocka_unit_test(truncated_gzip_names_the_line),
                cmocka_unit_test(utf8_repair_replaces_each_bad_byte),
                cmocka_unit_test(results_line_is_valid_utf8_and_keeps_a_stderr_tail),
                cmocka_unit_test(summary_flags_partial_runs_and_left_out_k),
                cmocka_unit_test(natural_order_compares_digit_runs_as_numbers),
                cmocka_unit_test(sha256_matches_fips_vectors),
        };
        return cmocka_run_group_tests(tests, setup, teardown);
}
