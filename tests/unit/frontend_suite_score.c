/* suite_score: a run's status and the driver's report to a verdict, in the
 * reference harnesses' words, and the kind the summary counts (verdict.c):
 * only a returned program passes, a timeout is "timed out" whatever it
 * printed, a sandbox error counts as an error, ClassEval scores per class. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "suite.h"
#include "suite_ops.h"
#include "suite_score.h"
#include "verdict.h"

#define NONCE "0123456789abcdef0123456789abcdef"
#define BEGIN "@@SBX-BEGIN " NONCE "@@\n"

/* A suite of one task for ops, without files: what suite_score reads. */
struct fixture {
        struct suite s;
        struct suite_task task;
        char *classes[3];
        struct run_result r;
        struct verdict v;
};

static struct fixture *fixture(const struct suite_ops *ops)
{
        struct fixture *f = calloc(1, sizeof(*f));

        assert_non_null(f);
        f->s.ops = ops;
        f->s.tasks = &f->task;
        f->s.n_tasks = 1;
        f->task.task_id = "T/0";
        f->classes[0] = "TestA";
        f->classes[1] = "TestB";
        f->task.test_classes = f->classes;
        f->task.n_test_classes = 2;
        return f;
}

static void run_output(struct fixture *f, enum run_status st, int rc, const char *tail)
{
        static char head[] = BEGIN;

        f->r.status = st;
        f->r.returncode = rc;
        f->r.out.data = head;
        f->r.out.len = strlen(head);
        f->r.out.tail_len = strlen(tail);
        memcpy(f->r.out.tail, tail, f->r.out.tail_len);
}

static void score(struct fixture *f)
{
        struct suite_sample smp = { .task = 0 };

        suite_score(&f->s, &smp, &f->r, &f->v);
}

static void script_passes_only_when_the_driver_saw_it_return(void **state)
{
        struct fixture *f = fixture(&suite_humaneval_ops);

        run_output(f, RUN_OK, 0, "\n@@SBX-END " NONCE " ok null@@\n");
        score(f);
        assert_int_equal(f->v.kind, VERDICT_PASSED);
        assert_true(f->v.passed);
        assert_string_equal(f->v.result, "passed");
        assert_ptr_equal(f->v.run, &f->r);

        /* exit 0 without the end marker: it left before its checks */
        run_output(f, RUN_OK, 0, "no marker");
        score(f);
        assert_int_equal(f->v.kind, VERDICT_FAILED);
        assert_false(f->v.passed);
        assert_string_equal(f->v.result, "failed: program exited before its checks finished");

        /* an end marker with another nonce is the candidate's forgery */
        run_output(f, RUN_OK, 0, "\n@@SBX-END ffffffffffffffffffffffffffffffff ok null@@\n");
        score(f);
        assert_false(f->v.passed);
        free(f);
}

static void script_raise_gives_the_message_and_the_type(void **state)
{
        struct fixture *f = fixture(&suite_mbpp_ops);

        run_output(f, RUN_FAILED, 1, "\n@@SBX-END " NONCE
                   " exc {\"type\": \"AssertionError\", \"msg\": \"1 != 2\"}@@\n");
        score(f);
        assert_int_equal(f->v.kind, VERDICT_FAILED);
        assert_string_equal(f->v.result, "failed: 1 != 2");
        assert_string_equal(f->v.exception, "AssertionError");

        run_output(f, RUN_FAILED, 3, "x");
        snprintf(f->r.detail, sizeof(f->r.detail), "memory-limit");
        score(f);
        assert_string_equal(f->v.result, "failed: exit status 3, memory-limit");
        assert_string_equal(f->v.exception, "");        /* cleared from the last score */

        run_output(f, RUN_FAILED, -9, "x");
        f->r.signal = 9;
        f->r.detail[0] = '\0';
        score(f);
        assert_string_equal(f->v.result, "failed: killed by signal 9");
        free(f);
}

static void timeout_is_timed_out_whatever_was_printed(void **state)
{
        struct fixture *f = fixture(&suite_custom_ops);

        run_output(f, RUN_TIMEOUT, -9, "\n@@SBX-END " NONCE " ok null@@\n");
        score(f);
        assert_int_equal(f->v.kind, VERDICT_TIMED_OUT);
        assert_false(f->v.passed);
        assert_string_equal(f->v.result, "timed out");
        free(f);
}

static void sandbox_error_counts_as_an_error(void **state)
{
        struct fixture *f = fixture(&suite_humaneval_ops);

        run_output(f, RUN_ERROR, -1, "");
        f->r.out.data = NULL;
        f->r.out.len = 0;
        snprintf(f->r.detail, sizeof(f->r.detail), "setup-error: no /usr");
        score(f);
        assert_int_equal(f->v.kind, VERDICT_ERROR);
        assert_false(f->v.passed);
        assert_string_equal(f->v.result, "failed: sandbox error: setup-error: no /usr");
        /* and a results line that says so reads back as one */
        assert_int_equal(verdict_kind_of(f->v.result, run_status_name(f->r.status)),
                         VERDICT_ERROR);
        free(f);
}

static void classeval_scores_each_test_class(void **state)
{
        struct fixture *f = fixture(&suite_classeval_ops);

        run_output(f, RUN_OK, 0, "\n@@SBX-END " NONCE
                   " classes {\"TestA\": [3, 0, 0], \"TestB\": [2, 0, 0]}@@\n");
        score(f);
        assert_int_equal(f->v.kind, VERDICT_PASSED);
        assert_int_equal(f->v.n_classes, 2);
        assert_int_equal(f->v.class_result, CLASSEVAL_CLASS_SUCCESS);

        /* TestB: one of two failed (partial); a class not reported is an error */
        run_output(f, RUN_OK, 0, "\n@@SBX-END " NONCE " classes {\"TestB\": [2, 0, 1]}@@\n");
        score(f);
        assert_int_equal(f->v.kind, VERDICT_FAILED);
        assert_string_equal(f->v.result, "failed: 0 of 2 test classes succeeded");
        assert_int_equal(classeval_test_answer(&f->v.counts[0]), CLASSEVAL_ERROR);
        assert_int_equal(classeval_test_answer(&f->v.counts[1]), CLASSEVAL_PARTIAL);
        assert_int_equal(f->v.class_result, CLASSEVAL_CLASS_FAIL);

        /* a timeout drops what the driver reported */
        run_output(f, RUN_TIMEOUT, -9, "\n@@SBX-END " NONCE
                   " classes {\"TestA\": [3, 0, 0], \"TestB\": [2, 0, 0]}@@\n");
        score(f);
        assert_int_equal(f->v.kind, VERDICT_TIMED_OUT);
        assert_int_equal(f->v.counts[0].tests_run, 0);
        free(f);
}

static void verdict_words_truncate_as_one_snprintf(void **state)
{
        struct verdict *v = calloc(1, sizeof(*v));
        char long_why[2000];

        assert_non_null(v);
        memset(long_why, 'x', sizeof(long_why) - 1);
        long_why[sizeof(long_why) - 1] = '\0';
        verdict_set(v, VERDICT_FAILED, "%s", long_why);
        assert_int_equal(strlen(v->result), sizeof(v->result) - 1);
        assert_memory_equal(v->result, "failed: xxx", 11);
        verdict_set(v, VERDICT_TIMED_OUT, "ignored %d", 1);
        assert_string_equal(v->result, "timed out");
        assert_false(v->passed);
        verdict_set(v, VERDICT_PASSED, NULL);
        assert_true(v->passed);
        assert_int_equal(verdict_kind_of("passed", "ok"), VERDICT_PASSED);
        assert_int_equal(verdict_kind_of("timed out", "timeout"), VERDICT_TIMED_OUT);
        assert_int_equal(verdict_kind_of("failed: ", "failed"), VERDICT_FAILED);
        assert_int_equal(verdict_kind_of("passed", "error"), VERDICT_ERROR);
        assert_int_equal(verdict_kind_of("", ""), VERDICT_FAILED);
        free(v);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(script_passes_only_when_the_driver_saw_it_return),
                cmocka_unit_test(script_raise_gives_the_message_and_the_type),
                cmocka_unit_test(timeout_is_timed_out_whatever_was_printed),
                cmocka_unit_test(sandbox_error_counts_as_an_error),
                cmocka_unit_test(classeval_scores_each_test_class),
                cmocka_unit_test(verdict_words_truncate_as_one_snprintf),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
