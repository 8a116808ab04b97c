/* The results line (results.c): the sample's own fields, then ours in a
 * fixed order (the file is compared byte for byte across versions), the
 * failure fields only on a failure, evalplus's and ClassEval's only for
 * them; results_append writes the line it is given and keeps that same
 * object, which --resume reads back identically. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "results.h"
#include "suite.h"
#include "verdict.h"

static const struct result_meta meta = { "humaneval", "0123456789abcdef", 3, 1, 2 };

static cJSON *sample(const char *task_id)
{
        cJSON *f = cJSON_CreateObject();

        assert_non_null(f);
        cJSON_AddStringToObject(f, "task_id", task_id);
        cJSON_AddStringToObject(f, "completion", "    return 1\n");
        return f;
}

static struct run_result *run(enum run_status st, int rc)
{
        struct run_result *r = calloc(1, sizeof(*r));

        assert_non_null(r);
        r->status = st;
        r->returncode = rc;
        r->duration_s = 0.123456;
        r->cpu_s = 0.1;
        r->max_rss_kb = 9000;
        r->tier = TIER_BWRAP;
        return r;
}

static void passed_line_has_our_fields_in_order(void **state)
{
        cJSON *f = sample("HumanEval/0");
        struct run_result *r = run(RUN_OK, 0);
        struct verdict *v = calloc(1, sizeof(*v));

        v->run = r;
        verdict_set(v, VERDICT_PASSED, NULL);
        /* a field of ours already in the sample is replaced, not repeated */
        cJSON_AddBoolToObject(f, "passed", false);
        char *line = results_line(f, 1, 2, v, &meta);
        assert_string_equal(line,
                "{\"task_id\":\"HumanEval/0\",\"completion\":\"    return 1\\n\","
                "\"result\":\"passed\",\"passed\":true,\"status\":\"ok\",\"returncode\":0,"
                "\"duration\":0.1234,\"cpu\":0.1,\"max_rss_kb\":9000,\"tier\":\"bwrap\","
                "\"sbx_index\":1,\"sbx_line\":2,\"sbx_suite\":\"humaneval\","
                "\"sbx_samples\":\"0123456789abcdef\",\"sbx_total\":3,\"sbx_shard\":\"1/2\"}");
        /* the object and its print are the same line */
        cJSON *o = results_line_json(f, 1, 2, v, &meta);
        char *again = cJSON_PrintUnformatted(o);
        assert_string_equal(again, line);
        free(again);
        cJSON_Delete(o);
        free(line);
        free(v);
        free(r);
        cJSON_Delete(f);
}

static void failed_line_keeps_exception_detail_and_stderr(void **state)
{
        cJSON *f = sample("T/1");
        struct run_result *r = run(RUN_FAILED, 1);
        struct verdict *v = calloc(1, sizeof(*v));

        snprintf(r->detail, sizeof(r->detail), "memory-limit");
        r->err.tail_len = (size_t)snprintf(r->err.tail, sizeof(r->err.tail), "Traceback\nMemoryError\n");
        v->run = r;
        verdict_set(v, VERDICT_FAILED, "%s", "");
        snprintf(v->exception, sizeof(v->exception), "MemoryError");
        cJSON *o = results_line_json(f, 0, 1, v, &meta);
        assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(o, "result")), "failed: ");
        assert_false(cJSON_IsTrue(cJSON_GetObjectItem(o, "passed")));
        assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(o, "detail")), "memory-limit");
        assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(o, "exception")), "MemoryError");
        assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(o, "stderr_tail")),
                            "Traceback\nMemoryError\n");
        assert_null(cJSON_GetObjectItem(o, "base_status"));
        assert_null(cJSON_GetObjectItem(o, "test_classes"));
        assert_null(cJSON_GetObjectItem(o, "sbx_invalid_utf8"));
        cJSON_Delete(o);
        free(v);
        free(r);
        cJSON_Delete(f);
}

static void evalplus_and_classeval_fields_only_for_them(void **state)
{
        cJSON *f = sample("T/2");
        struct verdict *v = calloc(1, sizeof(*v));
        char *names[] = { "TestA", NULL };

        /* never started (v->run NULL): no run fields, no stderr */
        verdict_set(v, VERDICT_TIMED_OUT, NULL);
        snprintf(v->base_status, sizeof(v->base_status), "pass");
        snprintf(v->plus_status, sizeof(v->plus_status), "timeout");
        v->fail_input[0] = -1;
        v->fail_input[1] = 7;
        v->counts = v->counts_store;
        v->n_classes = 1;
        v->class_names = names;
        v->counts[0] = (struct classeval_counts){ 4, 0, 1 };
        v->class_result = CLASSEVAL_CLASS_FAIL;
        cJSON *o = results_line_json(f, 0, 1, v, &meta);
        assert_null(cJSON_GetObjectItem(o, "status"));
        assert_null(cJSON_GetObjectItem(o, "stderr_tail"));
        assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(o, "plus_status")), "timeout");
        assert_int_equal(cJSON_GetObjectItem(o, "plus_fail_input")->valueint, 7);
        assert_int_equal(cJSON_GetObjectItem(o, "base_fail_input")->valueint, -1);
        cJSON *a = cJSON_GetObjectItem(cJSON_GetObjectItem(o, "test_classes"), "TestA");
        assert_int_equal(cJSON_GetObjectItem(a, "testsRun")->valueint, 4);
        assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(a, "answer")),
                            "partial_success");
        assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(o, "class_result")),
                            "class_fail");
        cJSON_Delete(o);
        free(v);
        cJSON_Delete(f);
}

static char *slurp(const char *path)
{
        char *buf = NULL;
        size_t len;
        struct sbx_err err = { 0 };

        assert_int_equal(suite_read_file(path, &buf, &len, &err), 0);
        return buf;
}

static void appended_line_is_kept_as_given_and_resumes(void **state)
{
        char dir[] = "/tmp/sbx-unit-results.XXXXXX", path[64];
        cJSON *fields[3] = { sample("T/0"), sample("T/0"), sample("T/1") };
        const long lines[3] = { 1, 2, 3 };
        struct run_result *r = run(RUN_TIMEOUT, -9);
        struct verdict *v = calloc(1, sizeof(*v));
        struct results_file rf;
        struct sbx_err err = { 0 };

        assert_non_null(mkdtemp(dir));
        snprintf(path, sizeof(path), "%s/results.jsonl", dir);
        assert_int_equal(results_open(&rf, path, 3, false, &meta, (const cJSON *const *)fields,
                                      lines, &err), 0);
        v->run = r;
        verdict_set(v, VERDICT_TIMED_OUT, NULL);
        cJSON *o = results_line_json(fields[2], 2, 3, v, &meta);
        char *want = cJSON_PrintUnformatted(o);
        assert_int_equal(results_append(&rf, 2, o, &err), 0);
        assert_ptr_equal(rf.parsed[2], o);              /* kept, not parsed back */
        assert_string_equal(rf.lines[2], want);
        assert_int_equal(rf.done, 1);
        char *text = slurp(path);
        assert_int_equal(strlen(text), strlen(want) + 1);
        assert_memory_equal(text, want, strlen(want));
        assert_int_equal(text[strlen(want)], '\n');
        free(text);
        results_close(&rf);

        /* --resume adopts it: the same line, the same verdict */
        assert_int_equal(results_open(&rf, path, 3, true, &meta, (const cJSON *const *)fields,
                                      lines, &err), 0);
        assert_int_equal(rf.done, 1);
        assert_string_equal(rf.lines[2], want);
        assert_int_equal(verdict_kind_of(cJSON_GetStringValue(cJSON_GetObjectItem(rf.parsed[2], "result")),
                                         cJSON_GetStringValue(cJSON_GetObjectItem(rf.parsed[2], "status"))),
                         VERDICT_TIMED_OUT);
        results_close(&rf);
        unlink(path);
        assert_int_equal(rmdir(dir), 0);
        free(want);
        free(v);
        free(r);
        for (int i = 0; i < 3; i++)
                cJSON_Delete(fields[i]);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(passed_line_has_our_fields_in_order),
                cmocka_unit_test(failed_line_keeps_exception_detail_and_stderr),
                cmocka_unit_test(evalplus_and_classeval_fields_only_for_them),
                cmocka_unit_test(appended_line_is_kept_as_given_and_resumes),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
