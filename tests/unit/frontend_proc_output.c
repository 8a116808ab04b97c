/* Output capture (bounded memory whatever the program writes), the seed's
 * summary, and the classification of how a run ended. */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <cmocka.h>

#include "output.h"
#include "run_internal.h"

static void capture_caps_and_keeps_tail(void **state)
{
        struct run_output out;
        struct output_capture c;
        char chunk[1000];

        output_capture_init(&c, &out, 2500);
        for (int i = 0; i < 10; i++) {
                memset(chunk, 'a' + i, sizeof(chunk));
                output_capture_append(&c, chunk, sizeof(chunk));
        }
        output_capture_append(&c, "END-MARK\n", 9);
        output_capture_finish(&c);
        assert_int_equal(out.len, 2500);
        assert_true(out.truncated);
        assert_int_equal(out.total, 10009);
        assert_int_equal(out.data[2499], 'c');
        assert_int_equal(out.data[2500], '\0');
        assert_int_equal(out.tail_len, OUTPUT_TAIL_BYTES);
        assert_memory_equal(out.tail + OUTPUT_TAIL_BYTES - 9, "END-MARK\n", 9);
        assert_int_equal(out.tail[0], 'f');     /* byte 10009 - 4096 is in chunk 6 */
        free(out.data);
}

static void capture_small_is_exact(void **state)
{
        struct run_output out;
        struct output_capture c;

        output_capture_init(&c, &out, 100);
        output_capture_append(&c, "hello ", 6);
        output_capture_append(&c, "world", 5);
        output_capture_finish(&c);
        assert_string_equal(out.data, "hello world");
        assert_string_equal(out.tail, "hello world");
        assert_false(out.truncated);
        free(out.data);
}

static void set_tail(struct run_output *o, const char *s)
{
        memset(o, 0, sizeof(*o));
        strcpy(o->tail, s);
        o->tail_len = strlen(s);
}

static void summary_rules(void **state)
{
        struct run_result r;
        char *s;

        memset(&r, 0, sizeof(r));
        r.status = RUN_OK;
        s = run_result_summary(&r);
        assert_string_equal(s, "ok");
        free(s);
        r.status = RUN_TIMEOUT;
        s = run_result_summary(&r);
        assert_string_equal(s, "timeout");
        free(s);
        r.status = RUN_FAILED;
        set_tail(&r.err, "Traceback\n  File x\nAssertionError: boom  \n\n");
        s = run_result_summary(&r);
        assert_string_equal(s, "AssertionError: boom");
        free(s);
        set_tail(&r.err, "\n \n");
        set_tail(&r.out, "only stdout\n");
        s = run_result_summary(&r);
        assert_string_equal(s, "only stdout");
        free(s);
        set_tail(&r.out, "");
        r.returncode = 7;
        s = run_result_summary(&r);
        assert_string_equal(s, "failed (rc=7)");
        free(s);
        char longline[1000];
        memset(longline, 'x', sizeof(longline) - 1);
        longline[sizeof(longline) - 1] = '\0';
        set_tail(&r.err, longline);
        s = run_result_summary(&r);
        assert_int_equal(strlen(s), 400);
        free(s);
}

#define EXITED(c) ((c) << 8)
#define SIGNALED(s) (s)

static void classify_cpu_limit(void **state)
{
        struct run_result r;

        memset(&r, 0, sizeof(r));
        run_classify(&r, TIER_RLIMIT, SIGXCPU, "", false, false, 3);
        assert_int_equal(r.status, RUN_TIMEOUT);
        assert_string_equal(r.detail, "cpu-limit");
        memset(&r, 0, sizeof(r));
        r.cpu_s = 4.0;
        run_classify(&r, TIER_UNSHARE, SIGKILL, START_MARKER "\n", false, false, 4);
        assert_int_equal(r.status, RUN_TIMEOUT);
        assert_string_equal(r.detail, "cpu-limit");
        memset(&r, 0, sizeof(r));
        r.cpu_s = 0.5;          /* killed by someone else, far from the limit */
        run_classify(&r, TIER_UNSHARE, SIGKILL, START_MARKER "\n", false, false, 4);
        assert_int_equal(r.status, RUN_FAILED);
        assert_int_equal(r.returncode, -SIGKILL);
        memset(&r, 0, sizeof(r));
        /* no start marker: unshare failed before the program; with it, the
         * program's own exit 1 (even with unshare's words on stderr) */
        run_classify(&r, TIER_UNSHARE, 1 << 8, "", false, false, 4);
        assert_int_equal(r.status, RUN_ERROR);
        assert_true(r.never_started);
        memset(&r, 0, sizeof(r));
        run_classify(&r, TIER_UNSHARE_ROOT, 1 << 8, START_MARKER "\n", false, false, 4);
        assert_int_equal(r.status, RUN_FAILED);
        assert_false(r.never_started);
        assert_int_equal(r.returncode, 1);
        memset(&r, 0, sizeof(r));
        run_classify(&r, TIER_RLIMIT, SIGKILL, "", true, false, 4);
        assert_int_equal(r.status, RUN_TIMEOUT);
        assert_string_equal(r.detail, "wall");
}

static void classify_exit_codes(void **state)
{
        struct run_result r;

        memset(&r, 0, sizeof(r));
        run_classify(&r, TIER_RLIMIT, EXITED(0), "", false, false, 4);
        assert_int_equal(r.status, RUN_OK);
        memset(&r, 0, sizeof(r));
        run_classify(&r, TIER_RLIMIT, EXITED(3), "", false, false, 4);
        assert_int_equal(r.status, RUN_FAILED);
        assert_int_equal(r.returncode, 3);
}

static void classify_bwrap(void **state)
{
        struct run_result r;

        memset(&r, 0, sizeof(r));
        run_classify(&r, TIER_BWRAP, EXITED(152),
                     "{ \"child-pid\": 3 }\n{ \"exit-code\": 152 }\n", false, false, 4);
        assert_int_equal(r.status, RUN_TIMEOUT);
        assert_string_equal(r.detail, "cpu-limit");
        assert_int_equal(r.signal, SIGXCPU);
        memset(&r, 0, sizeof(r));
        run_classify(&r, TIER_BWRAP, EXITED(1), "{ \"child-pid\": 3 }\n{ \"exit-code\": 1 }\n",
                     false, false, 4);
        assert_int_equal(r.status, RUN_FAILED);
        memset(&r, 0, sizeof(r));
        set_tail(&r.err, "bwrap: Creating new namespace failed: Operation not permitted\n");
        /* no child-pid: the sandbox never came up, whatever the exit code */
        run_classify(&r, TIER_BWRAP, EXITED(1), "", false, false, 4);
        assert_int_equal(r.status, RUN_ERROR);
        assert_non_null(strstr(r.detail, "Creating new namespace failed"));
        assert_true(r.never_started);
        /* a child-pid but no exit-code, bwrap exited of itself: its exec of
         * the run's init (sbx-run-init) failed, nothing of the program ran */
        memset(&r, 0, sizeof(r));
        set_tail(&r.err, "bwrap: execvp /proc/self/fd/6: Permission denied\n");
        run_classify(&r, TIER_BWRAP, EXITED(1), "{ \"child-pid\": 3 }\n", false, false, 4);
        assert_int_equal(r.status, RUN_ERROR);
        assert_true(r.never_started);
        assert_non_null(strstr(r.detail, "could not start the run's init"));
        /* killed by a signal (not ours): as the wait status says */
        memset(&r, 0, sizeof(r));
        run_classify(&r, TIER_BWRAP, SIGNALED(SIGSEGV), "{ \"child-pid\": 3 }\n", false, false, 4);
        assert_false(r.never_started);
        assert_int_equal(r.signal, SIGSEGV);
}

static void classify_helper(void **state)
{
        struct run_result r;

        memset(&r, 0, sizeof(r));
        run_classify(&r, TIER_HELPER, EXITED(0),
                     "{\"status\":\"exited\",\"exit_code\":0,\"signal\":0,\"cpu_s\":1.5,"
                     "\"max_rss_kb\":900}", false, false, 4);
        assert_int_equal(r.status, RUN_OK);
        assert_int_equal(r.max_rss_kb, 900);
        memset(&r, 0, sizeof(r));
        run_classify(&r, TIER_HELPER, EXITED(137),
                     "{\"status\":\"cpu-limit\",\"exit_code\":0,\"signal\":9}", false, false, 4);
        assert_int_equal(r.status, RUN_TIMEOUT);
        assert_string_equal(r.detail, "cpu-limit");
        memset(&r, 0, sizeof(r));
        run_classify(&r, TIER_HELPER, EXITED(3),
                     "{\"status\":\"setup-error\",\"message\":\"workdir refused\"}",
                     false, false, 4);
        assert_int_equal(r.status, RUN_ERROR);
        assert_non_null(strstr(r.detail, "workdir refused"));
        /* exit 0 without a status line is not a pass: the verdict comes from
         * the status fd, which the candidate cannot write */
        memset(&r, 0, sizeof(r));
        run_classify(&r, TIER_HELPER, EXITED(0), "", false, false, 4);
        assert_int_equal(r.status, RUN_ERROR);
        memset(&r, 0, sizeof(r));
        run_classify(&r, TIER_HELPER, EXITED(139),
                     "{\"status\":\"signaled\",\"exit_code\":0,\"signal\":11}", false, false, 4);
        assert_int_equal(r.status, RUN_FAILED);
        assert_int_equal(r.returncode, -11);
        /* The memory cgroup's OOM kill: a failure with its detail, not exit 0. */
        memset(&r, 0, sizeof(r));
        run_classify(&r, TIER_HELPER, EXITED(137),
                     "{\"status\":\"memory-limit\",\"exit_code\":0,\"signal\":9,\"memory_peak\":67108864,"
                     "\"oom_killed\":true}", false, false, 4);
        assert_int_equal(r.status, RUN_FAILED);
        assert_int_equal(r.returncode, -9);
        assert_string_equal(r.detail, "memory-limit");
}

static void sanitize_makes_valid_utf8(void **state)
{
        char *s = output_utf8_sanitize("ok \xc3\xa9 \xff\x00x \xed\xa0\x80", 13);

        assert_string_equal(s, "ok \xc3\xa9 \xef\xbf\xbd\xef\xbf\xbdx "
                            "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");
        free(s);
        s = output_utf8_sanitize("\xe2\x82", 2);     /* cut sequence at the end */
        assert_string_equal(s, "\xef\xbf\xbd\xef\xbf\xbd");
        free(s);
}

/* OSC 52 (clipboard), a title, CR overwriting, ESC[8m hiding, C1 CSI,
 * a bidi override, bad bytes and NUL: all shown, none acted on. */
static void terminal_escape_shows_controls(void **state)
{
        const char in[] = "a\x1b]52;c;ZXZpbA==\x07" "b\rc\x1b[8md\xc2\x9b" "2J\xe2\x80\xae" "e\xff\x00\x7f\tf\ng \xc3\xa9";
        char *s = output_terminal_escape(in, sizeof(in) - 1, true);

        assert_string_equal(s, "a\\x1b]52;c;ZXZpbA==\\x07b\\rc\\x1b[8md\\x9b2J\\u202e"
                            "e\\xff\\x00\\x7f\tf\ng \xc3\xa9");
        free(s);
        s = output_terminal_escape("x\ty\nz", 5, false);     /* one line: \n, \t escaped too */
        assert_string_equal(s, "x\\ty\\nz");
        free(s);
        /* the worst case: every byte grows fourfold */
        s = output_terminal_escape("\x1b\x1b\x1b", 3, false);
        assert_string_equal(s, "\\x1b\\x1b\\x1b");
        free(s);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(capture_caps_and_keeps_tail),
                cmocka_unit_test(terminal_escape_shows_controls),
                cmocka_unit_test(capture_small_is_exact),
                cmocka_unit_test(summary_rules),
                cmocka_unit_test(classify_cpu_limit),
                cmocka_unit_test(classify_exit_codes),
                cmocka_unit_test(classify_bwrap),
                cmocka_unit_test(classify_helper),
                cmocka_unit_test(sanitize_makes_valid_utf8),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
