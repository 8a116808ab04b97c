/* The output comparisons (frontend/suites/io/compare/): each kind on the
 * cases that tell them apart, LiveCodeBench's and SandboxFusion's rules as
 * their Python code decides them (the expected answers were checked
 * against that code: tests/suites/io-fidelity/compare_cases.py), the same
 * answers when both sides are read from files through an 8-byte buffer
 * (every refill boundary, a UTF-8 space split across two), and
 * multi-megabyte outputs. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <math.h>
#include <cmocka.h>

#include "compare.h"

struct cmp_case {
        const char *spec, *out, *ans;
        int want;                       /* 0 same, 1 different */
};

static const struct cmp_case cases[] = {
        { "exact", "3\n", "3\n", 0 },
        { "exact", "3", "3\n", 1 },
        { "exact", "3 \n", "3\n", 1 },
        { "lines", "1 2\n3\n", "1  2 \n3", 0 },
        { "lines", "1 2\n3\n\n\n", "1 2\n3", 0 },
        { "lines", "1\r\n2\r\n", "1\n2", 0 },
        { "lines", "\t1 2", "1 2", 0 },
        { "lines", "1\n2", "1 2", 1 },
        { "lines", "1 2", "1\n2", 1 },
        { "lines", "1\n\n2", "1\n2", 1 },
        { "lines", "\n1", "1", 1 },
        { "lines", "1 2 3", "1 2", 1 },
        { "lines", "1 2", "1 2 3", 1 },
        { "lines", "", "", 0 },
        { "lines", "\n\n", "", 0 },
        { "lines", "", "0", 1 },
        { "lines", "YES", "yes", 1 },
        { "tokens", "1\n2", "1 2", 0 },
        { "tokens", "1\n\n\n2 ", "1 2", 0 },
        { "tokens", "1 2 3", "1 2", 1 },
        { "floats", "1.0000001", "1.0", 0 },
        { "floats", "1.1", "1.0", 1 },
        { "floats", "abc 0.5000001", "abc 0.5", 0 },
        { "floats", "abd 0.5", "abc 0.5", 1 },
        { "floats", "0.0000005", "0", 0 },
        { "floats", "1000000100", "1e9", 0 },
        { "floats", "1000001100", "1e9", 1 },
        { "floats", "x", "1.0", 1 },
        { "floats", "nan", "nan", 0 },
        { "floats", "1e999", "1e999", 0 },      /* both infinity, as testlib */
        { "floats", "-1e999", "1e999", 1 },
        { "floats:abs=0,rel=1e-3", "1000.9", "1000", 0 },
        { "floats:abs=0,rel=1e-3", "0.0001", "0", 1 },
        { "floats:abs=0.5", "1.4", "1", 0 },
        { "lcb", "1.50 2\n", "1.5 2.0", 0 },
        { "lcb", "YES", "yes", 1 },
        { "lcb", "a  b", "a b", 1 },
        { "lcb", "1  2", "1 2", 0 },
        { "lcb", "\n\n5\n", "5", 0 },
        { "lcb", "5\n\n6", "5\n6", 1 },
        { "lcb", "5\n  \n6", "5\n\n6", 0 },
        { "lcb", "1e2", "100", 0 },
        { "lcb", "-0", "0", 0 },
        { "lcb", "NaN", "NaN", 0 },
        { "lcb", "NaN 1", "NaN  1", 1 },
        { "lcb", "1_000", "1000", 0 },
        { "lcb", "Infinity", "inf", 0 },
        { "lcb", "-inf", "inf", 1 },
        { "lcb", "5\xe3\x80\x80", "5", 0 },          /* U+3000 is stripped */
        { "lcb", "5\x1c", "5", 0 },
        { "lcb", "\xc2\xa0" "5", "5", 0 },
        { "lcb", "5\xe2\x80\x8b", "5", 1 },          /* U+200B is not whitespace */
        { "lcb", "1.0", "1", 0 },
        { "lcb", "1.0 x", "1 x", 1 },
        { "lcb", "1 2", "1 2 3", 1 },
        { "lcb", "1\n2", "1 2", 1 },
        { "lcb", "", "", 0 },
        { "lcb", "", "0", 1 },
        { "lcb", "0.1", "0.10000000000000001", 1 },  /* Decimals, not floats */
        { "sandboxfusion", "YES", "yes", 0 },
        { "sandboxfusion", "1.000001", "1.0", 0 },
        { "sandboxfusion", "1.0001", "1.0", 1 },
        { "sandboxfusion", "1 2", "1  2", 1 },
        { "sandboxfusion", "1.0 2.0", "1 2", 1 },
        { "sandboxfusion", "inf", "inf", 0 },
        { "sandboxfusion", "inf", "INF", 0 },
        { "sandboxfusion", "1e-11", "0", 1 },
        { "sandboxfusion", "nan", "nan", 0 },
        { "sandboxfusion", "nan", "NaN ", 0 },
        { "sandboxfusion", "1_0", "10", 0 },
        { "sandboxfusion", "1__0", "10", 1 },
        { "sandboxfusion", " 3 \n4\n\n", "3\n4", 0 },
        { "sandboxfusion", "3\n\n4", "3\n4", 1 },
        { "sandboxfusion", "0.30000000000000004", "0.3", 0 },
        { "sandboxfusion", "Wrong_Answer", "WRONG_ANSWER", 0 },
        /* a call's value, as Python's == compares what json.loads gives */
        { "json", "[1, 2]\n", "[1,2]", 0 },
        { "json", "[1.0, 2]", "[1,2]", 0 },
        { "json", "true", "1", 0 },
        { "json", "[true, false]", "[1, 0]", 0 },
        { "json", "[1, 2]", "[2, 1]", 1 },
        { "json", "{\"b\": 1, \"a\": [2]}", "{\"a\":[2],\"b\":1}", 0 },
        { "json", "{\"a\": 1}", "{\"a\": 1, \"b\": 2}", 1 },
        { "json", "\"ab\"", "\"ab\"", 0 },
        { "json", "\"ab\"", "\"Ab\"", 1 },
        { "json", "null", "null", 0 },
        { "json", "null", "0", 1 },
        { "json", "0.30000000000000004", "0.3", 1 },
        { "json", "[[1, 2], [3]]", "[[1,2],[3]]", 0 },
        { "json", "not json", "1", 1 },
        { "json", "", "[]", 1 },
        { "json", "[5]", "5", 1 },
        { "json-apps", "5", "[5]", 0 },         /* APPS: the answer's first item */
        { "json-apps", "[5]", "[5]", 0 },
        { "json-apps", "6", "[5]", 1 },
        { "json-apps", "5", "[]", 1 },
};

static int compare_mem(const struct cmp_case *c, struct io_diff *d)
{
        struct io_compare how;
        struct sbx_err err = { 0 };

        assert_int_equal(io_compare_parse(c->spec, &how, &err), 0);
        return io_compare_mem(&how, c->out, strlen(c->out), c->ans, strlen(c->ans), d, &err);
}

static int memfd_with(const char *text, size_t len)
{
        int fd = memfd_create("io-compare", MFD_CLOEXEC);

        assert_true(fd >= 0);
        assert_int_equal(write(fd, text, len), (ssize_t)len);
        assert_int_equal(lseek(fd, 0, SEEK_SET), 0);
        return fd;
}

/* Both sides read from files through a buffer of buf bytes. */
static int compare_fds(const char *spec, const char *out, size_t out_len, const char *ans,
                       size_t ans_len, size_t buf, struct io_diff *d)
{
        struct io_compare how;
        struct sbx_err err = { 0 };
        struct io_stream o, a;
        int ofd = memfd_with(out, out_len), afd = memfd_with(ans, ans_len), rc;

        assert_int_equal(io_compare_parse(spec, &how, &err), 0);
        assert_int_equal(io_stream_fd_buf(&o, ofd, "output", buf, &err), 0);
        assert_int_equal(io_stream_fd_buf(&a, afd, "answer", buf, &err), 0);
        rc = io_compare_streams(&how, &o, &a, d, &err);
        io_stream_done(&o);
        io_stream_done(&a);
        close(ofd);
        close(afd);
        return rc;
}

static void each_kind_decides_its_cases(void **state)
{
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                struct io_diff d;
                int got = compare_mem(&cases[i], &d);
                if (got != cases[i].want)
                        fail_msg("%s: out \"%s\" answer \"%s\": got %d, want %d", cases[i].spec,
                                 cases[i].out, cases[i].ans, got, cases[i].want);
        }
}

static void streams_through_a_small_buffer_decide_the_same(void **state)
{
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                for (size_t buf = 8; buf <= 11; buf++) {
                        struct io_diff d;
                        const struct cmp_case *c = &cases[i];
                        /* pad in front so the case's bytes cross refill boundaries */
                        char out[128], ans[128];
                        snprintf(out, sizeof(out), "0 0 0 0 0 %s", c->out);
                        snprintf(ans, sizeof(ans), "0 0 0 0 0 %s", c->ans);
                        int got = compare_fds(c->spec, out, strlen(out), ans, strlen(ans), buf, &d);
                        int want = compare_mem(&(struct cmp_case){ c->spec, out, ans, 0 }, &d);
                        if (got != want)
                                fail_msg("%s buffer %zu: \"%s\" vs \"%s\": %d, in memory %d",
                                         c->spec, buf, out, ans, got, want);
                }
        }
}

static void the_diff_says_where(void **state)
{
        struct io_diff d;

        assert_int_equal(compare_mem(&(struct cmp_case){ "lines", "1\n2 3\n4 6", "1\n2 3\n4 5", 1 }, &d), 1);
        assert_int_equal(d.line, 3);
        assert_int_equal(d.token, 5);
        assert_string_equal(d.expected, "5");
        assert_string_equal(d.found, "6");
        assert_int_equal(compare_mem(&(struct cmp_case){ "lcb", "1\n2\n", "1\n2\n3", 1 }, &d), 1);
        assert_int_equal(d.line, 3);
        assert_string_equal(d.why, "output has fewer lines");
        assert_int_equal(compare_mem(&(struct cmp_case){ "exact", "ab\ncd", "ab\nce", 1 }, &d), 1);
        assert_int_equal(d.line, 2);
        assert_string_equal(d.expected, "e");
        assert_string_equal(d.found, "d");
}

/* 4 MB of numbers a side, one differing at the very end: linear in the
 * size (a quadratic comparison would take minutes), and the difference
 * found on the last line. */
static void megabytes_compare_and_the_last_difference_is_found(void **state)
{
        const char *specs[] = { "exact", "lines", "tokens", "floats", "lcb", "sandboxfusion" };
        size_t lines = 400000, len = lines * 10;
        char *a = malloc(len + 1), *o = malloc(len + 1);

        assert_non_null(a);
        assert_non_null(o);
        for (size_t i = 0; i < lines; i++)
                snprintf(a + i * 10, 11, "%09zu\n", i);
        memcpy(o, a, len + 1);
        for (size_t k = 0; k < 6; k++) {
                struct io_diff d;
                o[len - 2] = a[len - 2];
                assert_int_equal(compare_fds(specs[k], o, len, a, len, IO_STREAM_BUF_BYTES, &d), 0);
                o[len - 2] = 'x';
                assert_int_equal(compare_fds(specs[k], o, len, a, len, IO_STREAM_BUF_BYTES, &d), 1);
                assert_int_equal(d.line, (long)lines);
        }
        free(a);
        free(o);
}

/* A single token longer than IO_TOKEN_MAX_BYTES is compared as text to
 * its end, never cut. */
static void tokens_longer_than_the_buffer_compare_in_full(void **state)
{
        const char *specs[] = { "lines", "tokens", "floats", "lcb", "sandboxfusion" };
        size_t n = IO_TOKEN_MAX_BYTES * 3;
        char *a = malloc(n + 1), *o = malloc(n + 1);

        memset(a, '7', n);
        a[n] = '\0';
        memcpy(o, a, n + 1);
        for (size_t k = 0; k < 5; k++) {
                struct io_diff d;
                o[n - 1] = '7';
                assert_int_equal(compare_fds(specs[k], o, n, a, n, 4096, &d), 0);
                o[n - 1] = '8';
                assert_int_equal(compare_fds(specs[k], o, n, a, n, 4096, &d), 1);
                assert_int_equal(compare_fds(specs[k], o, n - 1, a, n, 4096, &d), 1);
        }
        free(a);
        free(o);
}

static void specs_parse_and_junk_is_refused(void **state)
{
        struct io_compare how;
        struct sbx_err err = { 0 };

        assert_int_equal(io_compare_parse("floats", &how, &err), 0);
        assert_int_equal(how.kind, IO_CMP_FLOATS);
        assert_true(how.abs_tol == IO_FLOATS_DEFAULT_EPS && how.rel_tol == IO_FLOATS_DEFAULT_EPS);
        assert_int_equal(io_compare_parse("floats:1e-4", &how, &err), 0);
        assert_true(how.abs_tol == 1e-4 && how.rel_tol == 1e-4);
        assert_int_equal(io_compare_parse("floats:rel=1e-9", &how, &err), 0);
        assert_true(how.abs_tol == 0 && how.rel_tol == 1e-9);
        assert_int_equal(io_compare_parse("checker", &how, &err), 0);
        assert_int_equal(how.kind, IO_CMP_CHECKER);
        const char *bad[] = { "float", "lines:2", "floats:", "floats:-1", "floats:abs=x",
                              "floats:nan", "floats:abs=1,tol=2", "", "LINES" };
        for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
                err.msg[0] = '\0';
                assert_int_equal(io_compare_parse(bad[i], &how, &err), -1);
                assert_non_null(strstr(err.msg, "expected lines, exact"));
        }
        for (int k = 0; k < IO_CMP_KINDS; k++)
                assert_int_equal(io_compare_parse(io_compare_name((enum io_compare_kind)k), &how, &err), 0);
}

/* An answer that is not JSON is the problem's data, not the program:
 * the judge's failure (-1), whatever the output. */
static void an_answer_that_is_not_json_is_the_judges_failure(void **state)
{
        struct io_compare how;
        struct io_diff d;
        struct sbx_err err = { 0 };

        assert_int_equal(io_compare_parse("json", &how, &err), 0);
        assert_int_equal(io_compare_mem(&how, "1", 1, "[1", 2, &d, &err), -1);
        assert_non_null(strstr(err.msg, "the answer is not JSON"));
}

static void numbers_read_as_each_judge_reads_them(void **state)
{
        double v;
        char buf[64], buf2[64];
        struct io_decimal a, b;

        assert_int_equal(io_number_strict("1e5", 3, &v), 1);
        assert_true(v == 1e5);
        assert_int_equal(io_number_strict("0x10", 4, &v), 0);
        assert_int_equal(io_number_strict("1_0", 3, &v), 0);
        assert_int_equal(io_number_strict("inf", 3, &v), 0);
        assert_int_equal(io_number_strict(".5", 2, &v), 1);
        assert_int_equal(io_number_strict(".", 1, &v), 0);
        assert_int_equal(io_number_pyfloat("1_000.5", 7, &v), 1);
        assert_true(v == 1000.5);
        assert_int_equal(io_number_pyfloat("_1", 2, &v), 0);
        assert_int_equal(io_number_pyfloat("1_e5", 4, &v), 0);
        assert_int_equal(io_number_pyfloat("-Infinity", 9, &v), 1);
        assert_int_equal(io_number_pyfloat("0x10", 4, &v), 0);
        strcpy(buf, "00120.500e-1");
        assert_int_equal(io_decimal_parse(buf, strlen(buf), &a), 1);
        strcpy(buf2, "12.05");
        assert_int_equal(io_decimal_parse(buf2, strlen(buf2), &b), 1);
        assert_true(io_decimal_equal(&a, &b));
        strcpy(buf, "sNaN12");
        assert_int_equal(io_decimal_parse(buf, strlen(buf), &a), 1);
        assert_false(io_decimal_equal(&a, &a));
        const char *bad[] = { "1.2.3", "1e", "e5", "0x10", "", "-", "1e99999999999999999999", "inf1" };
        for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
                strcpy(buf, bad[i]);
                assert_int_equal(io_decimal_parse(buf, strlen(buf), &a), 0);
        }
        assert_false(io_sandboxfusion_float_equal(NAN, NAN));
        assert_true(io_double_close(NAN, NAN, 0, 0));
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(each_kind_decides_its_cases),
                cmocka_unit_test(streams_through_a_small_buffer_decide_the_same),
                cmocka_unit_test(the_diff_says_where),
                cmocka_unit_test(megabytes_compare_and_the_last_difference_is_found),
                cmocka_unit_test(tokens_longer_than_the_buffer_compare_in_full),
                cmocka_unit_test(specs_parse_and_junk_is_refused),
                cmocka_unit_test(numbers_read_as_each_judge_reads_them),
                cmocka_unit_test(an_answer_that_is_not_json_is_the_judges_failure),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
