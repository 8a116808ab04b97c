/* util.c's pure parts the syslog line and the supervisor's wait rely on:
 * json_write_string (every caller-chosen string in the syslog record) and
 * poll_timeout_ms (no int overflow past 24.8 days). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "helper.h"

/* A workdir with a newline and ESC cannot forge a second syslog record. */
static void test_escape_control_chars(void **state)
{
        char out[256];

        (void)state;
        json_write_string(out, sizeof(out), "/tmp/w\nsbx-helper[1]: user=root\x1b[8m\"\\\x7f");
        assert_null(strchr(out, '\n'));
        assert_null(strchr(out, '\x1b'));
        assert_null(strchr(out, '\x7f'));
        assert_string_equal(out, "/tmp/w\\u000asbx-helper[1]: user=root\\u001b[8m\\\"\\\\\\u007f");
}

/* Cut short rather than overflow, and never half an escape. */
static void test_escape_truncates(void **state)
{
        char out[16];

        (void)state;
        json_write_string(out, sizeof(out), "\n\n\n\n\n\n\n\n");
        assert_true(strlen(out) < sizeof(out));
        assert_int_equal(strlen(out) % 6, 0);
}

/* memory_peak is null without a memory cgroup; oom_killed a JSON boolean. */
static void test_outcome_memory_fields(void **state)
{
        struct outcome out = { .status = "memory-limit", .nproc_mode = "userns", .memory_peak = -1 };
        char line[3 * SBX_ERRLEN];

        (void)state;
        outcome_format(&out, line, sizeof(line));
        assert_non_null(strstr(line, "\"memory_peak\":null,\"oom_killed\":false,"));
        out.memory_peak = 67108864;
        out.oom_killed = true;
        outcome_format(&out, line, sizeof(line));
        assert_non_null(strstr(line, "\"status\":\"memory-limit\""));
        assert_non_null(strstr(line, "\"memory_peak\":67108864,\"oom_killed\":true,"));
}

static void test_poll_timeout(void **state)
{
        (void)state;
        assert_int_equal(poll_timeout_ms(0.5), 1);
        assert_int_equal(poll_timeout_ms(2.5), 3);
        assert_int_equal(poll_timeout_ms(1000.0), 1001);
        /* 30 days: an (int) cast would have overflowed to a negative wait. */
        assert_int_equal(poll_timeout_ms(30.0 * 86400000.0), 86400000);
        assert_int_equal(poll_timeout_ms(1e300), 86400000);
        assert_true(poll_timeout_ms(86399999.0) > 0);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_escape_control_chars),
                cmocka_unit_test(test_escape_truncates),
                cmocka_unit_test(test_poll_timeout),
                cmocka_unit_test(test_outcome_memory_fields),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
