/* sbx-helper's command line: every option, bad values, missing "--". */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "helper.h"
#include "zygote.h"

#define ARGV(...) ((char *const[]){ "sbx-helper", __VA_ARGS__, NULL })
#define ARGC(...) ((int)(sizeof((char *[]){ "sbx-helper", __VA_ARGS__ }) / sizeof(char *)))
#define PARSE(rq, err, ...) request_parse(rq, ARGC(__VA_ARGS__), ARGV(__VA_ARGS__), err, sizeof(err))

static void test_every_option_parses(void **state)
{
        struct request rq;
        char err[SBX_ERRLEN] = "";

        assert_int_equal(PARSE(&rq, err, "--workdir", "/w", "--ro-bind", "/opt/a", "--ro-bind", "/opt/b",
                               "--timeout", "2.5", "--cpu", "3", "--memory", "300M", "--nproc", "33",
                               "--fsize", "1K", "--nofile", "64", "--tmpfs-size", "2G",
                               "--env", "A=1", "--env", "B=", "--status-fd", "5",
                               "--", "/usr/bin/python3", "-I", "x.py"), 0);
        assert_string_equal(rq.workdir, "/w");
        assert_false(rq.private_workdir);
        assert_int_equal(rq.n_ro_binds, 2);
        assert_string_equal(rq.ro_binds[1], "/opt/b");
        assert_int_equal(rq.limit[LIM_TIMEOUT], 2500);
        assert_int_equal(rq.limit[LIM_CPU], 3000);
        assert_int_equal(rq.limit[LIM_MEMORY], 300ULL << 20);
        assert_int_equal(rq.limit[LIM_NPROC], 33);
        assert_int_equal(rq.limit[LIM_FSIZE], 1024);
        assert_int_equal(rq.limit[LIM_NOFILE], 64);
        assert_int_equal(rq.limit[LIM_TMPFS], 2ULL << 30);
        for (int i = 0; i < LIM_COUNT; i++)
                assert_true(rq.limit_given[i]);
        assert_int_equal(rq.n_env, 2);
        assert_int_equal(rq.status_fd, 5);
        assert_string_equal(rq.argv[0], "/usr/bin/python3");
        assert_string_equal(rq.argv[2], "x.py");
        assert_null(rq.argv[3]);
}

static void test_private_workdir_and_memory_none(void **state)
{
        struct request rq;
        char err[SBX_ERRLEN];

        assert_int_equal(PARSE(&rq, err, "--private-workdir", "/tmp/run", "--memory", "none",
                               "--", "prog"), 0);
        assert_true(rq.private_workdir);
        assert_int_equal(rq.limit[LIM_MEMORY], SBX_LIMIT_NONE);
        assert_false(rq.limit_given[LIM_CPU]);
        assert_int_equal(rq.status_fd, -1);
}

static void test_probe_and_version_need_no_program(void **state)
{
        struct request rq;
        char err[SBX_ERRLEN];

        assert_int_equal(PARSE(&rq, err, "--probe"), 0);
        assert_int_equal(rq.mode, MODE_PROBE);
        assert_int_equal(PARSE(&rq, err, "--version"), 0);
        assert_int_equal(rq.mode, MODE_VERSION);
}

static void expect_refused(const char *why, int argc, char *const argv[])
{
        struct request rq;
        char err[SBX_ERRLEN] = "";

        if (request_parse(&rq, argc, argv, err, sizeof(err)) != -1)
                fail_msg("accepted: %s", why);
        assert_true(err[0] != '\0');
}
#define REFUSED(why, ...) expect_refused(why, ARGC(__VA_ARGS__), ARGV(__VA_ARGS__))

static void test_bad_numbers_are_refused(void **state)
{
        REFUSED("negative timeout", "--timeout", "-1", "--", "p");
        REFUSED("zero timeout", "--timeout", "0", "--", "p");
        REFUSED("four decimals", "--timeout", "1.0001", "--", "p");
        REFUSED("no digits before the dot", "--timeout", ".5", "--", "p");
        REFUSED("lone dot", "--timeout", ".", "--", "p");
        REFUSED("trailing dot", "--timeout", "1.", "--", "p");
        REFUSED("garbage after number", "--cpu", "3s", "--", "p");
        REFUSED("empty value", "--nproc", "", "--", "p");
        REFUSED("suffix on a count", "--nproc", "10K", "--", "p");
        REFUSED("unknown suffix", "--memory", "10T", "--", "p");
        REFUSED("two suffixes", "--memory", "10KK", "--", "p");
        REFUSED("overflow", "--fsize", "99999999999999999999", "--", "p");
        REFUSED("overflow with suffix", "--fsize", "18014398509481984K", "--", "p");
        REFUSED("none for nproc", "--nproc", "none", "--", "p");
        REFUSED("hex", "--nofile", "0x10", "--", "p");
        REFUSED("status fd 1", "--status-fd", "1", "--", "p");
        REFUSED("status fd text", "--status-fd", "x", "--", "p");
}

static void test_bad_paths_and_env_are_refused(void **state)
{
        REFUSED("relative workdir", "--workdir", "work", "--", "p");
        REFUSED("workdir with ..", "--workdir", "/a/../b", "--", "p");
        REFUSED("workdir with .", "--workdir", "/a/./b", "--", "p");
        REFUSED("workdir with //", "--workdir", "/a//b", "--", "p");
        REFUSED("workdir /", "--workdir", "/", "--", "p");
        REFUSED("two workdirs", "--workdir", "/a", "--private-workdir", "/b", "--", "p");
        REFUSED("relative ro-bind", "--ro-bind", "data", "--", "p");
        REFUSED("ro-bind with trailing ..", "--ro-bind", "/opt/..", "--", "p");
        REFUSED("env without =", "--env", "JUSTNAME", "--", "p");
        REFUSED("env with empty name", "--env", "=x", "--", "p");
        REFUSED("env name with space", "--env", "A B=1", "--", "p");
}

static void test_usage_errors(void **state)
{
        REFUSED("missing --", "/bin/true");
        REFUSED("nothing after --", "--workdir", "/w", "--");
        REFUSED("empty program", "--", "");
        REFUSED("unknown option", "--bogus", "--", "p");
        REFUSED("single dash option", "-w", "/w", "--", "p");
        REFUSED("option missing its value", "--workdir");
        REFUSED("value joined with =", "--workdir=/w", "--", "p");
        REFUSED("no arguments at all", "--");
}

static void test_ro_bind_count_is_capped(void **state)
{
        char *argv[2 * SBX_MAX_RO_BINDS + 8];
        struct request rq;
        char err[SBX_ERRLEN];
        int argc = 0;

        argv[argc++] = "sbx-helper";
        for (int i = 0; i <= SBX_MAX_RO_BINDS; i++) {
                argv[argc++] = "--ro-bind";
                argv[argc++] = "/opt/x";
        }
        argv[argc++] = "--";
        argv[argc++] = "p";
        argv[argc] = NULL;
        assert_int_equal(request_parse(&rq, argc, argv, err, sizeof(err)), -1);
        assert_non_null(strstr(err, "too many"));
}

/* --zygote: only PYTHON -I -B -c <the built-in source>, PYTHON absolute. */
static void test_zygote_runs_only_the_zygote(void **state)
{
        size_t len = strlen(sbx_zygote_source);
        char *changed = strdup(sbx_zygote_source), *longer = malloc(len + 2);
        char *src = (char *)sbx_zygote_source;        /* argv words are char * */
        struct request rq;
        char err[SBX_ERRLEN];

        assert_int_equal(PARSE(&rq, err, "--zygote", "--", "/usr/bin/python3", "-I", "-B", "-c", src), 0);
        assert_true(rq.zygote);
        assert_int_equal(PARSE(&rq, err, "--zygote", "--ro-bind", "/opt/v", "--env", "A=1", "--timeout", "300",
                               "--", "/opt/v/bin/python", "-I", "-B", "-c", src), 0);
        assert_int_equal(PARSE(&rq, err, "--", "/usr/bin/python3", "-I", "-B", "-c", src), 0);
        assert_false(rq.zygote);
        assert_non_null(changed);
        assert_non_null(longer);
        changed[len / 2] ^= 1;
        memcpy(longer, src, len);
        strcpy(longer + len, " ");
        REFUSED("another program", "--zygote", "--", "/bin/sh", "-c", src);
        REFUSED("other code", "--zygote", "--", "/usr/bin/python3", "-I", "-B", "-c", "print(1)");
        REFUSED("one byte changed", "--zygote", "--", "/usr/bin/python3", "-I", "-B", "-c", changed);
        REFUSED("one byte more", "--zygote", "--", "/usr/bin/python3", "-I", "-B", "-c", longer);
        REFUSED("a prefix of it", "--zygote", "--", "/usr/bin/python3", "-I", "-B", "-c", "");
        REFUSED("an extra word", "--zygote", "--", "/usr/bin/python3", "-I", "-B", "-c", src, "x");
        REFUSED("no -B", "--zygote", "--", "/usr/bin/python3", "-I", "-c", src);
        REFUSED("flags swapped", "--zygote", "--", "/usr/bin/python3", "-B", "-I", "-c", src);
        REFUSED("relative python", "--zygote", "--", "python3", "-I", "-B", "-c", src);
        REFUSED("python with ..", "--zygote", "--", "/usr/../usr/bin/python3", "-I", "-B", "-c", src);
        REFUSED("with --workdir", "--zygote", "--workdir", "/w", "--", "/usr/bin/python3", "-I", "-B", "-c", src);
        REFUSED("with --private-workdir", "--private-workdir", "/w", "--zygote", "--",
                "/usr/bin/python3", "-I", "-B", "-c", src);
        REFUSED("no program", "--zygote", "--");
        free(changed);
        free(longer);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_every_option_parses),
                cmocka_unit_test(test_private_workdir_and_memory_none),
                cmocka_unit_test(test_probe_and_version_need_no_program),
                cmocka_unit_test(test_bad_numbers_are_refused),
                cmocka_unit_test(test_bad_paths_and_env_are_refused),
                cmocka_unit_test(test_usage_errors),
                cmocka_unit_test(test_ro_bind_count_is_capped),
                cmocka_unit_test(test_zygote_runs_only_the_zygote),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
