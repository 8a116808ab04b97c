/* err.c: messages with strerror, exit codes by kind (out of memory is
 * always SBX_EXIT_SANDBOX), context put before a message and cut to fit. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "err.h"

static void fail_is_usage_with_strerror(void **state)
{
        struct sbx_err err = { 0 };

        assert_int_equal(sbx_fail(&err, ENOENT, "%s", "samples.jsonl"), -1);
        assert_int_equal(err.exit_code, SBX_EXIT_USAGE);
        assert_int_equal(err.errnum, ENOENT);
        assert_string_equal(err.msg, "samples.jsonl: No such file or directory");
        assert_int_equal(sbx_fail_code(&err, SBX_EXIT_SANDBOX, 0, "no tier"), -1);
        assert_int_equal(err.exit_code, SBX_EXIT_SANDBOX);
        assert_string_equal(err.msg, "no tier");
        assert_int_equal(sbx_fail(NULL, 0, "nobody listens"), -1);
}

static void out_of_memory_is_one_exit_code(void **state)
{
        struct sbx_err err = { .exit_code = SBX_EXIT_USAGE };

        assert_int_equal(sbx_fail_oom(&err, "results %d", 3), -1);
        assert_int_equal(err.exit_code, SBX_EXIT_SANDBOX);
        assert_int_equal(err.errnum, ENOMEM);
        assert_string_equal(err.msg, "results 3: Cannot allocate memory");
        assert_int_equal(sbx_fail_oom(NULL, "x"), -1);
}

static void wrap_puts_context_first_and_keeps_the_code(void **state)
{
        struct sbx_err err = { 0 };

        sbx_fail_code(&err, SBX_EXIT_SANDBOX, EACCES, "%s", "/x");
        assert_int_equal(sbx_err_wrap(&err, "--shard %s: ", "auto"), -1);
        assert_string_equal(err.msg, "--shard auto: /x: Permission denied");
        assert_int_equal(err.exit_code, SBX_EXIT_SANDBOX);
        assert_int_equal(err.errnum, EACCES);
        assert_int_equal(sbx_err_wrap(NULL, "ctx: "), -1);
}

static void wrap_cuts_the_end_of_a_full_message(void **state)
{
        struct sbx_err err = { 0 };
        char big[sizeof(err.msg) + 10];

        memset(big, 'm', sizeof(big) - 1);
        big[sizeof(big) - 1] = '\0';
        sbx_fail(&err, 0, "%s", big);
        assert_int_equal(strlen(err.msg), sizeof(err.msg) - 1);
        sbx_err_wrap(&err, "ctx: ");
        assert_int_equal(strlen(err.msg), sizeof(err.msg) - 1);
        assert_memory_equal(err.msg, "ctx: mmm", 8);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(fail_is_usage_with_strerror),
                cmocka_unit_test(out_of_memory_is_one_exit_code),
                cmocka_unit_test(wrap_puts_context_first_and_keeps_the_code),
                cmocka_unit_test(wrap_cuts_the_end_of_a_full_message),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
