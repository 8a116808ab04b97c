/* The suite table (suite_table.c, suite_ops.h): the built-in rows, and a
 * suite kind that exists only here, to show that a new suite is its ops
 * and a row: loading checks its required fields, --canonical reads its
 * canonical field, programs are its builder's, verdicts its scorer's, and
 * the summary gets its section, with no other code knowing of it. */
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

#include "results.h"
#include "strbuf.h"
#include "suite.h"
#include "suite_ops.h"
#include "suite_score.h"
#include "suite_summary.h"
#include "util.h"

/* ---- the example kind: "assert (<completion>) == <expected>" ---- */

static char *example_build(const struct suite *s, const struct suite_sample *smp,
                           struct sbx_err *err)
{
        const struct suite_task *t = &s->tasks[smp->task];
        struct strbuf b = { 0 };

        if (!json_get_str(t->problem, "expected", NULL))
                return suite_field_not_string(s, t, err);
        strbuf_add(&b, "assert (");
        strbuf_add(&b, smp->code);
        strbuf_add(&b, ") == ");
        strbuf_add(&b, json_get_str(t->problem, "expected", NULL));
        strbuf_add(&b, "\n");
        return suite_program_done(&b, err);
}

/* Its summary section: how many tasks had a passing sample. */
struct example_state {
        size_t tasks_passed;
};

static void *example_begin(size_t max_tasks)
{
        return calloc(1, sizeof(struct example_state));
}

static int example_add_task(void *state, cJSON *const *lines, size_t n)
{
        struct example_state *st = state;
        bool any = false;

        for (size_t i = 0; i < n; i++)
                any = any || cJSON_IsTrue(cJSON_GetObjectItem(lines[i], "passed"));
        st->tasks_passed += any;
        return 0;
}

static void example_finish(void *state, cJSON *sum, const struct summary_opts *o)
{
        const struct example_state *st = state;
        cJSON *ex = cJSON_AddObjectToObject(sum, "example");

        cJSON_AddNumberToObject(ex, "tasks_passed", (double)st->tasks_passed);
}

static const struct summary_extra example_summary = {
        example_begin, example_add_task, example_finish, free,
};

static const char *const example_required[] = { "expected", NULL };

static const struct suite_ops example_ops = {
        .required_fields = example_required,
        .canonical_field = "expected",
        .build_program = example_build,
        .score = suite_score_script,
        .summary = &example_summary,
};

/* ---- and its row ---- */

static const struct suite_row example_row = {
        .name = "example", .ops = &example_ops, .timeout_ms = 1000,
};

static void builtin_rows_name_their_kind_and_timeout(void **state)
{
        struct suite_def def;
        struct sbx_err err = { 0 };

        assert_ptr_equal(suite_row_find("humanevalplus")->ops, &suite_humaneval_ops);
        assert_int_equal(suite_row_find("humanevalplus")->timeout_ms, HUMANEVALPLUS_TIMEOUT_MS);
        assert_ptr_equal(suite_row_find("mbppplus")->ops, &suite_mbpp_ops);
        assert_true(suite_row_find("mbppplus")->evalplus_only);
        assert_ptr_equal(suite_row_find("classeval")->ops, &suite_classeval_ops);
        assert_non_null(suite_row_find("classeval")->ops->summary);
        assert_null(suite_row_find("example"));         /* not built in */
        assert_null(suite_row_find("HumanEval"));
        assert_int_equal(suite_def_load(&def, "classeval", &err), 0);
        assert_ptr_equal(def.row, suite_row_find("classeval"));
        assert_int_equal(def.timeout_ms, CLASSEVAL_CLASS_TIMEOUT_MS);
        suite_def_free(&def);
        assert_int_equal(suite_def_load(&def, "nope", &err), -1);
        assert_string_equal(err.msg, "unknown suite \"nope\" (humaneval, humanevalplus, mbpp, "
                            "mbppplus, classeval, humaneval-x-python, humaneval-x-cpp, "
                            "humaneval-x-java, humaneval-x-js, humaneval-x-go, humaneval-x-rust, "
                            "codecontests, livecodebench, apps, taco, io, "
                            "or a suite FILE.json)");
        /* HumanEval-X: a row per language, lang/'s row and the support set */
        const struct suite_row *go = suite_row_find("humaneval-x-go");
        assert_ptr_equal(go->ops, &suite_humanevalx_ops);
        assert_string_equal(go->language, "go-test");
        assert_string_equal(go->support_set, "humaneval-x");
        assert_int_equal(go->timeout_ms, HUMANEVALX_TIMEOUT_MS);
        assert_string_equal(suite_row_find("humaneval-x-rust")->language, "rust-test");
        assert_string_equal(suite_row_find("humaneval-x-python")->language, "python");
        /* the io rows: one kind, the harnesses' own time limits a test */
        assert_ptr_equal(suite_row_find("codecontests")->ops, &suite_io_ops);
        assert_int_equal(suite_row_find("codecontests")->timeout_ms, SANDBOXFUSION_TEST_TIMEOUT_MS);
        assert_int_equal(suite_row_find("livecodebench")->timeout_ms, LIVECODEBENCH_TEST_TIMEOUT_MS);
        assert_int_equal(suite_row_find("apps")->timeout_ms, APPS_TEST_TIMEOUT_MS);
        assert_ptr_equal(suite_row_find("taco")->ops, &suite_io_ops);
        assert_non_null(suite_row_find("io")->ops->judge_step);
}

static void load_example(struct suite *s, const char *problems)
{
        struct sbx_err err = { 0 };

        memset(s, 0, sizeof(*s));
        assert_int_equal(suite_def_from_row(&s->def, &example_row, &err), 0);
        assert_int_equal(suite_load_problems(s, problems, &err), 0);
        assert_ptr_equal(s->ops, &example_ops);
}

static void example_row_loads_builds_and_canonicalises(void **state)
{
        char *bad = unit_write_tmp("bad.jsonl", "{\"task_id\": \"E/0\"}\n");
        char *pb = unit_write_tmp("ex.jsonl", "{\"task_id\": \"E/0\", \"expected\": \"2\"}\n"
                             "{\"task_id\": \"E/1\", \"expected\": \"[1]\"}\n");
        char *sm = unit_write_tmp("ex_s.jsonl", "{\"task_id\": \"E/1\", \"completion\": \"[1][:1]\"}\n");
        struct suite s = { 0 };
        struct sbx_err err = { 0 };

        assert_int_equal(suite_def_from_row(&s.def, &example_row, &err), 0);
        assert_int_equal(s.def.timeout_ms, 1000);
        assert_int_equal(suite_load_problems(&s, bad, &err), -1);
        assert_non_null(strstr(err.msg, "missing field \"expected\" for suite example"));
        suite_free(&s);

        load_example(&s, pb);
        assert_int_equal(suite_load_samples(&s, sm, &err), 0);
        char *p = suite_build_program(&s, &s.samples[0], &err);
        assert_string_equal(p, "assert ([1][:1]) == [1]\n");
        free(p);
        suite_free(&s);

        load_example(&s, pb);
        assert_int_equal(suite_make_canonical(&s, &err), 0);
        assert_int_equal(s.n_samples, 2);
        p = suite_build_program(&s, &s.samples[0], &err);
        assert_string_equal(p, "assert (2) == 2\n");
        free(p);
        suite_free(&s);
        free(bad);
        free(pb);
        free(sm);
}

#define NONCE "0123456789abcdef0123456789abcdef"

static void example_row_scores_and_summarises(void **state)
{
        static char head[] = "@@SBX-BEGIN " NONCE "@@\n";
        static const char *const tails[] = {
                "\n@@SBX-END " NONCE " ok null@@\n",
                "\n@@SBX-END " NONCE " exc {\"type\": \"AssertionError\", \"msg\": \"\"}@@\n",
                "",
        };
        static const enum run_status status[] = { RUN_OK, RUN_FAILED, RUN_TIMEOUT };
        char *pb = unit_write_tmp("ex2.jsonl", "{\"task_id\": \"E/0\", \"expected\": \"2\"}\n"
                             "{\"task_id\": \"E/1\", \"expected\": \"3\"}\n");
        char *sm = unit_write_tmp("ex2_s.jsonl", "{\"task_id\": \"E/0\", \"completion\": \"1 + 1\"}\n"
                             "{\"task_id\": \"E/1\", \"completion\": \"1\"}\n"
                             "{\"task_id\": \"E/1\", \"completion\": \"while 1: pass\"}\n");
        const struct result_meta m = { "example", "0123456789abcdef", 3, 0, 1 };
        struct run_result *r = calloc(1, sizeof(*r));
        struct verdict *v = calloc(1, sizeof(*v));
        struct suite s;
        struct sbx_err err = { 0 };
        cJSON *lines[3];

        load_example(&s, pb);
        assert_int_equal(suite_load_samples(&s, sm, &err), 0);
        for (size_t i = 0; i < 3; i++) {
                memset(r, 0, sizeof(*r));
                r->status = status[i];
                r->out.data = head;
                r->out.len = strlen(head);
                r->out.tail_len = strlen(tails[i]);
                memcpy(r->out.tail, tails[i], r->out.tail_len);
                suite_score(&s, &s.samples[i], r, v);
                lines[i] = results_line_json(s.samples[i].fields, i, s.samples[i].line, v, &m);
                assert_non_null(lines[i]);
        }
        struct summary_opts o = { .suite = "example", .ks = { 1 }, .nk = 1, .wall_s = -1,
                                  .total = 3, .extra = s.ops->summary };
        cJSON *sum = suite_summary(lines, 3, &o, &err);
        assert_non_null(sum);
        assert_int_equal(cJSON_GetObjectItem(sum, "passed")->valueint, 1);
        assert_int_equal(cJSON_GetObjectItem(sum, "failed")->valueint, 1);
        assert_int_equal(cJSON_GetObjectItem(sum, "timed_out")->valueint, 1);
        assert_int_equal(cJSON_GetObjectItem(cJSON_GetObjectItem(sum, "example"),
                                             "tasks_passed")->valueint, 1);
        cJSON_Delete(sum);
        for (size_t i = 0; i < 3; i++)
                cJSON_Delete(lines[i]);
        suite_free(&s);
        free(r);
        free(v);
        free(pb);
        free(sm);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(builtin_rows_name_their_kind_and_timeout),
                cmocka_unit_test(example_row_loads_builds_and_canonicalises),
                cmocka_unit_test(example_row_scores_and_summarises),
        };
        return cmocka_run_group_tests(tests, unit_tmpdir_setup, unit_tmpdir_teardown);
}
