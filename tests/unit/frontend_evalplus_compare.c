/* evalplus's comparison rules on serialized values (the driver's format,
 * written out by hand here as frontend/suites/evalplus/evalplus_driver.py writes it):
 * Python's ==, np.allclose with evalplus's atol/rtol, and each special
 * oracle. Expected answers are what Python and evalplus give. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "cleanup.h"

#include "evalplus.h"

static bool judge_full(enum evalplus_oracle oracle, double atol, const char *out,
                       const char *exp, const char *args)
{
        struct evalplus_judge j = { oracle, atol };
        cJSON *o = cJSON_Parse(out), *e = cJSON_Parse(exp);
        cJSON *a = args ? cJSON_Parse(args) : NULL;
        char why[256];

        assert_non_null(o);
        assert_non_null(e);
        bool ok = evalplus_judge_value(&j, o, e, a, why, sizeof(why));
        cJSON_Delete(o);
        cJSON_Delete(e);
        cJSON_Delete(a);
        return ok;
}

static bool judge(double atol, const char *out, const char *exp)
{
        return judge_full(EP_ORACLE_NONE, atol, out, exp, NULL);
}

static bool eq(const char *a, const char *b)
{
        cJSON *x = cJSON_Parse(a), *y = cJSON_Parse(b);
        assert_non_null(x);
        assert_non_null(y);
        bool r = evalplus_py_eq(x, y);
        cJSON_Delete(x);
        cJSON_Delete(y);
        return r;
}

static void exact_values(void **state)
{
        assert_true(eq("\"abc\"", "\"abc\""));
        assert_false(eq("\"abc\"", "\"abd\""));
        assert_true(eq("null", "null"));
        assert_false(eq("null", "false"));
        assert_true(eq("[\"i\",\"0x1f\"]", "[\"i\",\"0x1f\"]"));
        assert_false(eq("[\"i\",\"-0x1f\"]", "[\"i\",\"0x1f\"]"));
        assert_true(eq("[\"b\",\"00ff\"]", "[\"b\",\"00ff\"]"));
        assert_false(eq("[\"b\",\"00ff\"]", "\"00ff\""));          /* bytes != str */
        assert_true(eq("[\"d\",[\"a\",[\"i\",\"0x1\"]],[\"b\",null]]",
                       "[\"d\",[\"b\",null],[\"a\",[\"i\",\"0x1\"]]]")); /* order-free */
        assert_false(eq("[\"d\",[\"a\",[\"i\",\"0x1\"]]]", "[\"d\",[\"a\",[\"i\",\"0x2\"]]]"));
        assert_true(eq("[\"s\",[\"i\",\"0x1\"],[\"i\",\"0x2\"]]",
                       "[\"z\",[\"i\",\"0x2\"],[\"i\",\"0x1\"]]"));  /* set == frozenset */
        assert_false(eq("[\"s\",[\"i\",\"0x1\"]]", "[\"l\",[\"i\",\"0x1\"]]"));
}

/* 1 == 1.0 == True, 2**70 == float(2**70), 2**53+1 != float(2**53) */
static void int_float_bool_as_python(void **state)
{
        assert_true(eq("[\"i\",\"0x1\"]", "[\"f\",\"1.0\"]"));
        assert_true(eq("true", "[\"i\",\"0x1\"]"));
        assert_true(eq("true", "[\"f\",\"1.0\"]"));
        assert_true(eq("false", "[\"f\",\"-0.0\"]"));
        assert_false(eq("[\"i\",\"0x1\"]", "[\"f\",\"1.5\"]"));
        assert_true(eq("[\"i\",\"0x400000000000000000\"]", "[\"f\",\"1.1805916207174113e+21\"]"));
        assert_false(eq("[\"i\",\"0x20000000000001\"]", "[\"f\",\"9007199254740992.0\"]"));
        assert_true(eq("[\"i\",\"0x20000000000000\"]", "[\"f\",\"9007199254740992.0\"]"));
        assert_true(eq("[\"c\",\"2.0\",\"0.0\"]", "[\"i\",\"0x2\"]"));
        assert_false(eq("[\"c\",\"2.0\",\"1.0\"]", "[\"i\",\"0x2\"]"));
        assert_false(eq("[\"f\",\"inf\"]", "[\"i\",\"0x1\"]"));
}

static void nan_never_equal(void **state)
{
        assert_false(eq("[\"f\",\"nan\"]", "[\"f\",\"nan\"]"));
        assert_false(judge(1e-6, "[\"f\",\"nan\"]", "[\"f\",\"nan\"]"));
        assert_false(eq("[\"ln\",\"1.0 nan\"]", "[\"ln\",\"1.0 nan\"]"));
        assert_true(eq("[\"f\",\"inf\"]", "[\"f\",\"inf\"]"));
        assert_false(eq("[\"f\",\"inf\"]", "[\"f\",\"-inf\"]"));
}

static void list_is_not_tuple(void **state)
{
        assert_false(eq("[\"l\",[\"i\",\"0x1\"]]", "[\"t\",[\"i\",\"0x1\"]]"));
        assert_false(eq("[\"ln\",\"0x1 0x2\"]", "[\"tn\",\"0x1 0x2\"]"));
        assert_true(eq("[\"l\"]", "[\"l\"]"));
        assert_false(eq("[\"l\"]", "[\"t\"]"));
        /* tolerance does not help either: type(out) == type(exp) is asserted */
        assert_false(judge(1e-6, "[\"tn\",\"1.0 2.0\"]", "[\"ln\",\"1.0 2.0\"]"));
}

static void packed_and_plain_agree(void **state)
{
        assert_true(eq("[\"ln\",\"1.0 2.5\"]", "[\"l\",[\"f\",\"1.0\"],[\"f\",\"2.5\"]]"));
        assert_true(eq("[\"ln\",\"0x1 0x2\"]", "[\"ln\",\"1.0 2.0\"]"));    /* [1, 2] == [1.0, 2.0] */
        assert_true(eq("[\"ln\",\"0x1 2.5\"]", "[\"l\",[\"f\",\"1.0\"],[\"f\",\"2.5\"]]"));
        assert_false(eq("[\"ln\",\"0x1 2.5\"]", "[\"ln\",\"1.5 2.5\"]"));
        assert_true(eq("[\"ln\",\"0x20000000000000 1.0\"]", "[\"ln\",\"9007199254740992.0 0x1\"]"));
        assert_false(eq("[\"ln\",\"0x20000000000001 1.0\"]", "[\"ln\",\"9007199254740992.0 0x1\"]"));
        assert_true(eq("[\"ln\",\"0.0 1.0\"]", "[\"ln\",\"-0.0 1.0\"]"));
        assert_false(eq("[\"ln\",\"0x1 0x2\"]", "[\"ln\",\"0x1 0x2 0x3\"]"));
        assert_true(eq("[\"l\",[\"i\",\"0x1\"],true]", "[\"ln\",\"0x1 0x1\"]"));
}

static void float_tolerance(void **state)
{
        /* atol 0 and a float expected: 1e-6 enforced */
        assert_true(judge(0, "[\"f\",\"0.1000001\"]", "[\"f\",\"0.1\"]"));
        assert_false(judge(0, "[\"f\",\"0.1001\"]", "[\"f\",\"0.1\"]"));
        assert_true(judge(0, "[\"ln\",\"1.0 2.0000005\"]", "[\"ln\",\"1.0 2.0\"]"));
        /* rtol 1e-7 of the expected value */
        assert_true(judge(1e-6, "[\"f\",\"1000000.05\"]", "[\"f\",\"1000000.0\"]"));
        assert_false(judge(1e-6, "[\"f\",\"1000000.5\"]", "[\"f\",\"1000000.0\"]"));
        /* an int expected: exact, no tolerance */
        assert_false(judge(0, "[\"f\",\"1.0000001\"]", "[\"i\",\"0x1\"]"));
        /* a task's atol applies to ints too, types equal */
        assert_false(judge(0.5, "[\"i\",\"0x2\"]", "[\"i\",\"0x3\"]"));
        assert_true(judge(2, "[\"i\",\"0x2\"]", "[\"i\",\"0x3\"]"));
        /* different lengths fail before any tolerance */
        assert_false(judge(1e-6, "[\"ln\",\"1.0 2.0\"]", "[\"ln\",\"1.0 2.0 3.0\"]"));
        /* strings are never close */
        assert_false(judge(1e-6, "[\"l\",\"a\",\"b\"]", "[\"l\",\"a\",\"c\"]"));
}

static void sticky_atol(void **state)
{
        /* evalplus sets atol = 1e-6 once and keeps it for later inputs */
        struct evalplus_judge j = { EP_ORACLE_NONE, 0 };
        cJSON *f1 = cJSON_Parse("[\"f\",\"1.0\"]"), *i1 = cJSON_Parse("[\"i\",\"0x1\"]");
        cJSON *i2 = cJSON_Parse("[\"l\",[\"i\",\"0x1\"],[\"f\",\"2.0\"]]");
        cJSON *i3 = cJSON_Parse("[\"l\",[\"i\",\"0x1\"],[\"f\",\"2.0000001\"]]");
        struct evalplus_judge fresh = { EP_ORACLE_NONE, 0 };
        char why[128];

        assert_true(evalplus_judge_value(&j, f1, f1, NULL, why, sizeof(why)));
        assert_true(j.atol == EVALPLUS_FLOAT_ATOL);
        /* a mixed list is not "floats": only the sticky atol lets it pass */
        assert_true(evalplus_judge_value(&j, i3, i2, NULL, why, sizeof(why)));
        assert_false(evalplus_judge_value(&fresh, i3, i2, NULL, why, sizeof(why)));
        assert_true(evalplus_judge_value(&j, i1, f1, NULL, why, sizeof(why)));
        cJSON_Delete(f1);
        cJSON_Delete(i1);
        cJSON_Delete(i2);
        cJSON_Delete(i3);
}

static void oracle_find_zero(void **state)
{
        /* xs = [-6, 11, -6, 1]: roots 1, 2, 3 */
        const char *args = "[[-6, 11, -6, 1]]";
        assert_true(judge_full(EP_ORACLE_FIND_ZERO, 1e-4, "[\"f\",\"1.0000000001\"]", "[\"f\",\"3.0\"]", args));
        assert_true(judge_full(EP_ORACLE_FIND_ZERO, 1e-4, "[\"i\",\"0x2\"]", "[\"f\",\"3.0\"]", args));
        assert_false(judge_full(EP_ORACLE_FIND_ZERO, 1e-4, "[\"f\",\"1.5\"]", "[\"f\",\"1.0\"]", args));
        assert_false(judge_full(EP_ORACLE_FIND_ZERO, 1e-4, "\"1.0\"", "[\"f\",\"1.0\"]", args));
        assert_false(judge_full(EP_ORACLE_FIND_ZERO, 1e-4, "[\"f\",\"nan\"]", "[\"f\",\"1.0\"]", args));
}

static void oracle_mbpp(void **state)
{
        /* Mbpp/164: any value passes */
        assert_true(judge_full(EP_ORACLE_ALWAYS, 0, "\"x\"", "true", "[1, 2]"));
        /* Mbpp/295: or 0 */
        assert_true(judge_full(EP_ORACLE_SUM_DIV, 0, "[\"i\",\"0x0\"]", "[\"i\",\"0x7\"]", "[5]"));
        assert_false(judge_full(EP_ORACLE_SUM_DIV, 0, "[\"i\",\"0x1\"]", "[\"i\",\"0x7\"]", "[5]"));
        /* Mbpp/581: base 3, height 4: 9 + 2*3*sqrt(18.25) = 34.63 -> 35 */
        assert_true(judge_full(EP_ORACLE_SURFACE_AREA, 0, "[\"i\",\"0x23\"]", "[\"i\",\"0x21\"]", "[3, 4]"));
        assert_false(judge_full(EP_ORACLE_SURFACE_AREA, 0, "[\"i\",\"0x22\"]", "[\"i\",\"0x21\"]", "[3, 4]"));
        /* Mbpp/558: 123 vs 56 -> 123 vs 056: 1 + 3 + 3 = 7 */
        assert_true(judge_full(EP_ORACLE_DIGIT_DISTANCE, 0, "[\"i\",\"0x7\"]", "[\"i\",\"0x5\"]", "[123, 56]"));
        assert_false(judge_full(EP_ORACLE_DIGIT_DISTANCE, 0, "[\"i\",\"0x5\"]", "[\"i\",\"0x6\"]", "[123, 56]"));
        /* set equality ignores order and repeats, not content */
        assert_true(judge_full(EP_ORACLE_SET_EQ, 0, "[\"ln\",\"0x2 0x1 0x1\"]", "[\"tn\",\"0x1 0x2\"]", NULL));
        assert_false(judge_full(EP_ORACLE_SET_EQ, 0, "[\"ln\",\"0x2 0x3\"]", "[\"tn\",\"0x1 0x2\"]", NULL));
        assert_false(judge_full(EP_ORACLE_SET_EQ, 0, "[\"l\",[\"l\"]]", "[\"l\",[\"l\"]]", NULL)); /* unhashable */
        /* not-None: the reference's value is reduced to "returned not None" */
        assert_true(judge_full(EP_ORACLE_NOT_NONE, 0, "\"match\"", "true", NULL));
        assert_false(judge_full(EP_ORACLE_NOT_NONE, 0, "null", "true", NULL));
        assert_true(judge_full(EP_ORACLE_NOT_NONE, 0, "false", "false", NULL));
        assert_false(judge_full(EP_ORACLE_NOT_NONE, 0, "true", "false", NULL));
}

static void oracle_table(void **state)
{
        assert_int_equal(evalplus_oracle_for(EVALPLUS_HUMANEVAL, "find_zero"), EP_ORACLE_FIND_ZERO);
        assert_int_equal(evalplus_oracle_for(EVALPLUS_MBPP, "find_zero"), EP_ORACLE_NONE);
        assert_int_equal(evalplus_oracle_for(EVALPLUS_MBPP, "Diff"), EP_ORACLE_SET_EQ);
        assert_int_equal(evalplus_oracle_for(EVALPLUS_MBPP, "text_starta_endb"), EP_ORACLE_NOT_NONE);
        assert_int_equal(evalplus_oracle_for(EVALPLUS_HUMANEVAL, "are_equivalent"), EP_ORACLE_NONE);
}

static void junk_never_matches(void **state)
{
        assert_false(eq("[\"q\",\"1\"]", "[\"q\",\"1\"]"));
        assert_false(eq("[]", "[]"));
        assert_false(eq("{}", "{}"));
        assert_false(eq("7", "7"));             /* a bare number is not the format */
}

/* The canonical digest is Python's ==: the same digest exactly for the
 * pairs eq() calls equal (a value with NaN has none, and equals nothing). */
static void digest_is_python_eq(void **state)
{
        static const char *const pairs[][2] = {
                { "[\"i\",\"0x1\"]", "[\"f\",\"1.0\"]" },
                { "true", "[\"c\",\"1.0\",\"0.0\"]" },
                { "false", "[\"f\",\"-0.0\"]" },
                { "[\"i\",\"0x1\"]", "[\"f\",\"1.5\"]" },
                { "[\"i\",\"0x400000000000000000\"]", "[\"f\",\"1.1805916207174113e+21\"]" },
                { "[\"i\",\"0x20000000000001\"]", "[\"f\",\"9007199254740992.0\"]" },
                { "[\"c\",\"-0.0\",\"2.0\"]", "[\"c\",\"0.0\",\"2.0\"]" },
                { "[\"f\",\"inf\"]", "[\"f\",\"inf\"]" },
                { "[\"f\",\"inf\"]", "[\"f\",\"-inf\"]" },
                { "[\"f\",\"nan\"]", "[\"f\",\"nan\"]" },
                { "[\"ln\",\"1.0 nan\"]", "[\"ln\",\"1.0 nan\"]" },
                { "\"abc\"", "\"abc\"" },
                { "\"abc\"", "[\"b\",\"616263\"]" },
                { "[\"ln\",\"0x1 0x2\"]", "[\"l\",[\"f\",\"1.0\"],true,[\"i\",\"0x2\"]]" },
                { "[\"ln\",\"0x1 0x2\"]", "[\"l\",true,[\"f\",\"2.0\"]]" },
                { "[\"ln\",\"0x1 0x2\"]", "[\"tn\",\"0x1 0x2\"]" },
                { "[\"l\"]", "[\"t\"]" },
                { "[\"s\",[\"i\",\"0x1\"],[\"i\",\"0x2\"]]", "[\"z\",[\"f\",\"2.0\"],true]" },
                { "[\"s\",[\"i\",\"0x1\"]]", "[\"l\",[\"i\",\"0x1\"]]" },
                { "[\"d\",[\"a\",[\"i\",\"0x1\"]],[\"b\",null]]",
                  "[\"d\",[\"b\",null],[\"a\",[\"f\",\"1.0\"]]]" },
                { "[\"d\",[\"a\",[\"i\",\"0x1\"]]]", "[\"d\",[\"a\",[\"i\",\"0x2\"]]]" },
                { "[\"d\",[\"a\",[\"i\",\"0x1\"]]]", "[\"s\",\"a\"]" },
                { "null", "null" },
                { "null", "false" },
        };
        cJSON *text_digest = cJSON_Parse("[\"h\",\"00\"]");
        char d[65];

        for (size_t i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++) {
                cJSON *a = cJSON_Parse(pairs[i][0]), *b = cJSON_Parse(pairs[i][1]);
                char da[65], db[65];
                assert_non_null(a);
                assert_non_null(b);
                bool same = evalplus_canon_digest(a, da) && evalplus_canon_digest(b, db) &&
                            !strcmp(da, db);
                if (same != evalplus_py_eq(a, b))
                        fail_msg("pair %zu: the digests %s, == says the opposite", i,
                                 same ? "agree" : "differ");
                cJSON_Delete(a);
                cJSON_Delete(b);
        }
        /* the driver's digest of a text has no canonical form */
        assert_false(evalplus_canon_digest(text_digest, d));
        cJSON_Delete(text_digest);
}

/* ["ln", "0x0 0x1 ... "] of n ints from start, or of floats. */
static char *packed_range(int n, int start, bool floats, char tag)
{
        size_t cap = (size_t)n * 24 + 32, len;
        char *s = malloc(cap);

        assert_non_null(s);
        len = (size_t)snprintf(s, cap, "[\"%cn\",\"", tag);
        for (int i = 0; i < n; i++)
                len += (size_t)snprintf(s + len, cap - len, floats ? "%s%d.0" : "%s0x%x",
                                        i ? " " : "", start + i);
        snprintf(s + len, cap - len, "\"]");
        return s;
}

static cJSON *values_of(const char *const *texts, size_t n)
{
        cJSON *arr = cJSON_CreateArray();

        for (size_t i = 0; i < n; i++)
                cJSON_AddItemToArray(arr, cJSON_Parse(texts[i]));
        return arr;
}

static const char *kind_tag(const cJSON *arr, int i)
{
        return cJSON_GetArrayItem(cJSON_GetArrayItem(arr, i), 0)->valuestring ?: "";
}

/* Large expected values become digests only where == is all the judge
 * asks, and the verdicts stay those of the full values. */
static void compact_truth_keeps_verdicts(void **state)
{
        auto_free char *ints = packed_range(500, 0, false, 'l');
        auto_free char *as_floats = packed_range(500, 0, true, 'l');
        auto_free char *shifted = packed_range(500, 1, false, 'l');
        auto_free char *as_tuple = packed_range(500, 0, false, 't');
        const char *const texts[] = { "[\"i\",\"0x1\"]", ints, "[\"f\",\"0.5\"]", ints };
        cJSON *vals = values_of(texts, 4);
        struct evalplus_judge j = { EP_ORACLE_NONE, 0 };
        char why[128];

        evalplus_truth_compact(vals, EP_ORACLE_NONE, 0, 1024);
        assert_string_equal(kind_tag(vals, 0), "i");     /* small: kept */
        assert_string_equal(kind_tag(vals, 1), "k");     /* large, ints: a digest */
        assert_string_equal(kind_tag(vals, 2), "f");
        assert_string_equal(kind_tag(vals, 3), "ln");    /* after a float: atol 1e-6, kept */
        const cJSON *k = cJSON_GetArrayItem(vals, 1);
        cJSON *o = cJSON_Parse(as_floats), *bad = cJSON_Parse(shifted), *tup = cJSON_Parse(as_tuple);
        assert_true(evalplus_judge_value(&j, o, k, NULL, why, sizeof(why)));  /* [0, 1.0 ...] == */
        assert_false(evalplus_judge_value(&j, bad, k, NULL, why, sizeof(why)));
        assert_false(evalplus_judge_value(&j, tup, k, NULL, why, sizeof(why)));
        assert_true(j.atol == 0);
        assert_false(evalplus_py_eq(k, k));     /* two digests are never compared */
        cJSON_Delete(vals);

        /* a task's atol, an oracle, or NaN: nothing is digested */
        const char *const nan_list[] = { "[\"ln\",\"0x1 nan\"]" };
        vals = values_of(texts + 1, 1);
        evalplus_truth_compact(vals, EP_ORACLE_NONE, 1e-3, 1024);
        assert_string_equal(kind_tag(vals, 0), "ln");
        evalplus_truth_compact(vals, EP_ORACLE_SET_EQ, 0, 1024);
        assert_string_equal(kind_tag(vals, 0), "ln");
        cJSON_Delete(vals);
        vals = values_of(nan_list, 1);
        evalplus_truth_compact(vals, EP_ORACLE_NONE, 0, 4);
        assert_string_equal(kind_tag(vals, 0), "ln");
        cJSON_Delete(vals);
        cJSON_Delete(o);
        cJSON_Delete(bad);
        cJSON_Delete(tup);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(exact_values),
                cmocka_unit_test(int_float_bool_as_python),
                cmocka_unit_test(nan_never_equal),
                cmocka_unit_test(list_is_not_tuple),
                cmocka_unit_test(packed_and_plain_agree),
                cmocka_unit_test(float_tolerance),
                cmocka_unit_test(sticky_atol),
                cmocka_unit_test(oracle_find_zero),
                cmocka_unit_test(oracle_mbpp),
                cmocka_unit_test(oracle_table),
                cmocka_unit_test(junk_never_matches),
                cmocka_unit_test(digest_is_python_eq),
                cmocka_unit_test(compact_truth_keeps_verdicts),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
