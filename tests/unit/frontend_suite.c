/* Suites: program building as each reference harness does it, custom
 * templates, JSONL errors with file and line, shard selection, and the
 * driver's markers (only a begin+end pair with the same nonce counts). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "unit_tmpdir.h"

#include "driver.h"
#include "suite.h"

static const char *HE_PROBLEM =
        "{\"task_id\": \"t/0\", \"prompt\": \"def f():\\n\", \"canonical_solution\": \"    return 1\\n\","
        " \"test\": \"def check(c):\\n    assert c() == 1\", \"entry_point\": \"f\"}\n";

static void load(struct suite *s, const char *suite, const char *problems,
                 const char *samples, struct sbx_err *err, int want)
{
        memset(s, 0, sizeof(*s));
        assert_int_equal(suite_def_load(&s->def, suite, err), 0);
        int rc = suite_load_problems(s, problems, err);
        if (rc == 0)
                rc = samples ? suite_load_samples(s, samples, err) : suite_make_canonical(s, err);
        assert_int_equal(rc, want);
}

static void humaneval_program_is_human_evals(void **state)
{
        char *pb = unit_write_tmp("he.jsonl", HE_PROBLEM);
        char *sm = unit_write_tmp("he_s.jsonl", "{\"task_id\": \"t/0\", \"completion\": \"    return 1\"}\n"
                             "{\"task_id\": \"t/0\", \"solution\": \"def f():\\n    return 2\"}\n");
        struct suite s;
        struct sbx_err err = { 0 };

        load(&s, "humaneval", pb, sm, &err, 0);
        assert_int_equal(s.n_samples, 2);
        char *p0 = suite_build_program(&s, &s.samples[0], &err);
        char *p1 = suite_build_program(&s, &s.samples[1], &err);
        assert_string_equal(p0, "def f():\n    return 1\ndef check(c):\n    assert c() == 1\ncheck(f)");
        assert_string_equal(p1, "def f():\n    return 2\ndef check(c):\n    assert c() == 1\ncheck(f)");
        free(p0);
        free(p1);
        suite_free(&s);
        free(pb);
        free(sm);
}

static void mbpp_program_runs_setup_then_asserts(void **state)
{
        char *pb = unit_write_tmp("mbpp.jsonl",
                "{\"task_id\": 11, \"text\": \"t\", \"code\": \"def g(x): return x\","
                " \"test_setup_code\": \"import math\", \"test_list\": [\"assert g(1) == 1\", \"assert g(2) == 2\"],"
                " \"challenge_test_list\": []}\n");
        char *sm = unit_write_tmp("mbpp_s.jsonl", "{\"task_id\": 11, \"completion\": \"def g(x):\\n    return x\"}\n");
        struct suite s;
        struct sbx_err err = { 0 };

        load(&s, "mbpp", pb, sm, &err, 0);
        assert_string_equal(s.tasks[0].task_id, "11");
        char *p = suite_build_program(&s, &s.samples[0], &err);
        assert_string_equal(p, "def g(x):\n    return x\nimport math\nassert g(1) == 1\nassert g(2) == 2\n");
        free(p);
        suite_free(&s);
        free(pb);
        free(sm);
}

static void classeval_program_prepends_imports_and_extracts(void **state)
{
        char *pb = unit_write_tmp("ce.json",
                "[{\"task_id\": \"C_0\", \"test\": \"TEST\", \"test_classes\": [\" T1\", \"T2 \"],"
                " \"import_statement\": [\"import os\", \"import re\"], \"solution_code\": \"SOL\"}]");
        char *sm = unit_write_tmp("ce_s.json",
                "[{\"task_id\": \"C_0\", \"predict\": [\"Here:\\n```python\\nclass A:\\n    def s(x):\\n        pass\\n```\", \"x\"]}]");
        struct suite s;
        struct sbx_err err = { 0 };

        load(&s, "classeval", pb, sm, &err, 0);
        assert_int_equal(s.n_samples, 2);
        assert_int_equal(s.samples[1].predict_index, 1);
        assert_string_equal(s.tasks[0].test_classes[0], "T1");
        assert_string_equal(s.tasks[0].test_classes[1], "T2");
        char *p = suite_build_program(&s, &s.samples[0], &err);
        assert_string_equal(p, "import os\nimport re\n\nclass A:\n    @staticmethod\n    def s(x):\n        pass\n\nTEST");
        free(p);
        suite_free(&s);
        free(pb);
        free(sm);
}

static void template_expands_fields_and_leaves_other_braces(void **state)
{
        struct sbx_err err = { 0 };
        cJSON *pb = cJSON_Parse("{\"prompt\": \"P\", \"n\": 3, \"tests\": [\"a\", \"b\"]}");
        char *out = suite_expand_template("{prompt}{completion} d={'k': 1} {n} {tests} {{prompt}} f'{x!r}'",
                                          pb, "C", "suite.json", &err);

        assert_string_equal(out, "PC d={'k': 1} 3 a\nb {prompt} f'{x!r}'");
        free(out);
        assert_null(suite_expand_template("{nope}", pb, "C", "my.json (task 1)", &err));
        assert_string_equal(err.msg, "my.json (task 1): template field {nope} is not in the problem");
        cJSON_Delete(pb);
}

static void jsonl_errors_name_file_and_line(void **state)
{
        char *pb = unit_write_tmp("pb.jsonl", HE_PROBLEM);
        char *bad = unit_write_tmp("bad.jsonl", "{\"task_id\": \"t/0\", \"completion\": \"\"}\n\n{\"task_id\": \"t/0\", \n");
        char *unk = unit_write_tmp("unk.jsonl", "{\"task_id\": \"t/9\", \"completion\": \"\"}\n");
        char *dup = unit_write_tmp("dup.jsonl", "\n");
        struct suite s;
        struct sbx_err err = { 0 };
        char want[512];

        load(&s, "humaneval", pb, bad, &err, -1);
        snprintf(want, sizeof(want), "%s:3: invalid JSON", bad);
        assert_non_null(strstr(err.msg, want));
        suite_free(&s);
        load(&s, "humaneval", pb, unk, &err, -1);
        snprintf(want, sizeof(want), "%s:1: unknown task_id \"t/9\"", unk);
        assert_non_null(strstr(err.msg, want));
        suite_free(&s);
        load(&s, "humaneval", pb, dup, &err, -1);
        assert_non_null(strstr(err.msg, "empty file"));
        suite_free(&s);
        free(pb);
        free(bad);
        free(unk);
        free(dup);
}

static void shard_selection_is_index_mod_n(void **state)
{
        int count[3] = { 0 };

        for (size_t i = 0; i < 300; i++) {
                int hits = 0;
                for (int k = 0; k < 3; k++)
                        if (suite_in_shard(i, k, 3)) {
                                hits++;
                                count[k]++;
                                assert_int_equal((int)(i % 3), k);
                        }
                assert_int_equal(hits, 1);       /* every sample in exactly one shard */
                assert_true(suite_in_shard(i, 0, 0));
        }
        assert_int_equal(count[0], 100);
        assert_int_equal(count[2], 100);
}

static void set_output(struct run_output *o, const char *head, const char *tail)
{
        memset(o, 0, sizeof(*o));
        o->data = (char *)head;
        o->len = strlen(head);
        o->tail_len = strlen(tail);
        memcpy(o->tail, tail, o->tail_len);
}

#define NONCE "0123456789abcdef0123456789abcdef"

static void driver_markers_need_the_same_nonce(void **state)
{
        struct run_output o;
        struct driver_report r;
        const char *begin = "@@SBX-BEGIN " NONCE "@@\nhello";

        set_output(&o, begin, "hello\n@@SBX-END " NONCE " ok null@@\n");
        driver_parse(&o, &r);
        assert_int_equal(r.outcome, DRIVER_RETURNED);
        driver_report_free(&r);

        set_output(&o, begin, "x\n@@SBX-END " NONCE " exc {\"type\": \"EOFError\", \"msg\": \"EOF\"}@@\n");
        driver_parse(&o, &r);
        assert_int_equal(r.outcome, DRIVER_RAISED);
        assert_string_equal(cJSON_GetObjectItem(r.payload, "msg")->valuestring, "EOF");
        driver_report_free(&r);

        /* wrong nonce, marker not at the end, no begin marker: no verdict */
        set_output(&o, begin, "\n@@SBX-END ffffffffffffffffffffffffffffffff ok null@@\n");
        driver_parse(&o, &r);
        assert_int_equal(r.outcome, DRIVER_NONE);
        set_output(&o, begin, "\n@@SBX-END " NONCE " ok null@@\ntrailing");
        driver_parse(&o, &r);
        assert_int_equal(r.outcome, DRIVER_NONE);
        set_output(&o, "junk@@SBX-BEGIN " NONCE "@@\n", "\n@@SBX-END " NONCE " ok null@@\n");
        driver_parse(&o, &r);
        assert_int_equal(r.outcome, DRIVER_NONE);
        set_output(&o, begin, "\n@@SBX-END " NONCE " ok {\"x\": 1}@@\n");
        driver_parse(&o, &r);
        assert_int_equal(r.outcome, DRIVER_NONE);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(humaneval_program_is_human_evals),
                cmocka_unit_test(mbpp_program_runs_setup_then_asserts),
                cmocka_unit_test(classeval_program_prepends_imports_and_extracts),
                cmocka_unit_test(template_expands_fields_and_leaves_other_braces),
                cmocka_unit_test(jsonl_errors_name_file_and_line),
                cmocka_unit_test(shard_selection_is_index_mod_n),
                cmocka_unit_test(driver_markers_need_the_same_nonce),
        };
        return cmocka_run_group_tests(tests, unit_tmpdir_setup, unit_tmpdir_teardown);
}
