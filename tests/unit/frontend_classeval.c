/* ClassEval: code extraction on tricky model outputs (expected strings
 * computed with ClassEval's own test_pipeline.py rules), @staticmethod
 * insertion, per-test-class answers and the four metrics. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "classeval.h"

static void check_extract(const char *in, const char *code, const char *with_static)
{
        char *e = classeval_extract_code(in);
        assert_non_null(e);
        assert_string_equal(e, code);
        char *s = classeval_add_staticmethod(e);
        assert_non_null(s);
        assert_string_equal(s, with_static);
        free(e);
        free(s);
}

static void fenced_python_block_wins_over_prose(void **state)
{
        check_extract("Here is the code:\n```python\nclass A:\n    pass\n```\nDone.",
                      "\nclass A:\n    pass\n", "\nclass A:\n    pass\n");
}

static void response_marker_then_bare_fence(void **state)
{
        check_extract("### Response:\n```\nclass B:\n    x = 1\n```",
                      "\nclass B:\n    x = 1\n", "\nclass B:\n    x = 1\n");
}

static void inst_marker_and_python_tags(void **state)
{
        check_extract("[INST] write [/INST] Sure!\n[PYTHON]\nclass C:\n    pass\n[/PYTHON]",
                      "\nclass C:\n    pass\n", "\nclass C:\n    pass\n");
}

/* Prose lines are removed by value, so the blank line between methods goes
 * too; the indented class is shifted left; g gets @staticmethod. */
static void prose_dropped_and_class_reindented(void **state)
{
        check_extract("Sure, here you go:\n\nimport os\n  class D:\n      def f(self):\n"
                      "          return 1\n\n      def g(x):\n          return x\n",
                      "import os\nclass D:\n    def f(self):\n        return 1\n"
                      "    def g(x):\n        return x",
                      "import os\nclass D:\n    def f(self):\n        return 1\n"
                      "    @staticmethod\n    def g(x):\n        return x");
}

static void unclosed_python_fence_gives_empty_code(void **state)
{
        check_extract("```python\nclass E:\n    def f(self):\n        pass\n", "", "");
}

static void staticmethod_lines_are_normalised(void **state)
{
        check_extract("Some prose\nclass F:\n    def g(a, b):\n        return a\n"
                      "    @staticmethod\n    def h(x):\n        return x\nSome prose\n",
                      "class F:\n    def g(a, b):\n        return a\n    @staticmethod\n"
                      "    def h(x):\n        return x",
                      "class F:\n    @staticmethod\n    def g(a, b):\n        return a\n"
                      "    @staticmethod\n    def h(x):\n        return x");
}

static void text_between_first_two_markers(void **state)
{
        check_extract("@@ Response: class G:\n    pass\n@@ Response: ignored",
                      "class G:\n   pass\n", "class G:\n   pass\n");
}

static void other_fence_language_kept_verbatim(void **state)
{
        check_extract("```py\nclass H: pass\n```", "py\nclass H: pass\n", "py\nclass H: pass\n");
}

static void test_answers_follow_get_test_answer(void **state)
{
        struct classeval_counts none = { 0, 0, 0 }, all_err = { 3, 3, 0 },
                ok = { 3, 0, 0 }, partial = { 3, 1, 1 }, fail = { 3, 1, 2 };

        assert_int_equal(classeval_test_answer(&none), CLASSEVAL_ERROR);
        assert_int_equal(classeval_test_answer(&all_err), CLASSEVAL_ERROR);
        assert_int_equal(classeval_test_answer(&ok), CLASSEVAL_SUCCESS);
        assert_int_equal(classeval_test_answer(&partial), CLASSEVAL_PARTIAL);
        assert_int_equal(classeval_test_answer(&fail), CLASSEVAL_FAIL);
}

static void class_result_needs_every_test_class(void **state)
{
        enum classeval_answer all_ok[] = { CLASSEVAL_SUCCESS, CLASSEVAL_SUCCESS };
        enum classeval_answer part[] = { CLASSEVAL_SUCCESS, CLASSEVAL_PARTIAL };
        enum classeval_answer bad[] = { CLASSEVAL_SUCCESS, CLASSEVAL_ERROR };

        assert_int_equal(classeval_class_result(all_ok, 2), CLASSEVAL_CLASS_SUCCESS);
        assert_int_equal(classeval_class_result(part, 2), CLASSEVAL_CLASS_PARTIAL);
        assert_int_equal(classeval_class_result(bad, 2), CLASSEVAL_CLASS_FAIL);
}

static void metrics_average_tasks_and_functions(void **state)
{
        size_t fs0[] = { 1, 0, 1 }, fp0[] = { 1, 1, 1 };
        size_t fs1[] = { 1 }, fp1[] = { 1 };
        struct classeval_task_tally t[] = {
                { .n = 1, .n_classes = 3, .fun_success = fs0, .fun_partial = fp0,
                  .class_success = 0, .class_partial = 1 },
                { .n = 1, .n_classes = 1, .fun_success = fs1, .fun_partial = fp1,
                  .class_success = 1, .class_partial = 1 },
        };
        struct classeval_metrics m;

        assert_true(classeval_metrics(t, 2, 1, &m));
        assert_float_equal(m.class_success, 0.5, 1e-12);
        assert_float_equal(m.class_partial_success, 1.0, 1e-12);
        assert_float_equal(m.fun_success, 3.0 / 4, 1e-12);
        assert_float_equal(m.fun_partial_success, 1.0, 1e-12);
        assert_false(classeval_metrics(t, 2, 3, &m));
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(fenced_python_block_wins_over_prose),
                cmocka_unit_test(response_marker_then_bare_fence),
                cmocka_unit_test(inst_marker_and_python_tags),
                cmocka_unit_test(prose_dropped_and_class_reindented),
                cmocka_unit_test(unclosed_python_fence_gives_empty_code),
                cmocka_unit_test(staticmethod_lines_are_normalised),
                cmocka_unit_test(text_between_first_two_markers),
                cmocka_unit_test(other_fence_language_kept_verbatim),
                cmocka_unit_test(test_answers_follow_get_test_answer),
                cmocka_unit_test(class_result_needs_every_test_class),
                cmocka_unit_test(metrics_average_tasks_and_functions),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
