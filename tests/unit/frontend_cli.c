/* cli.c's limit options, which come from limit.c's rows: each reaches its
 * field in every spelling getopt allows, and the ceilings are the rows'. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "cli.h"
#include "limit.h"

static int parse(struct cli_opts *o, struct sbx_err *e, int argc, char **argv)
{
        memset(e, 0, sizeof(*e));
        return cli_parse(argc, argv, o, e);
}
#define PARSE(o, e, ...) parse((o), (e), \
        (int)(sizeof((char *[]){ __VA_ARGS__ }) / sizeof(char *)), (char *[]){ __VA_ARGS__, NULL })

static void every_limit_reaches_its_field(void **state)
{
        struct cli_opts o;
        struct sbx_err e;

        assert_int_equal(PARSE(&o, &e, "sbx-run", "--suite", "humaneval", "--canonical",
                               "--timeout", "2.5", "--cpu", "2.1", "--memory", "1G",
                               "--fsize", "2M", "--max-output", "10K", "--jobs", "7"), 0);
        assert_int_equal(o.timeout_ms, 2500);
        assert_int_equal(o.cpu_limit_s, 3);
        assert_int_equal(o.sb.memory_bytes, 1LL << 30);
        assert_int_equal(o.sb.fsize_bytes, 2LL << 20);
        assert_int_equal(o.sb.max_output_bytes, 10240);
        assert_int_equal(o.jobs, 7);
        cli_opts_free(&o);
}

static void limits_take_every_getopt_spelling(void **state)
{
        struct cli_opts o;
        struct sbx_err e;

        assert_int_equal(PARSE(&o, &e, "sbx-run", "--file", "p.py", "-j8", "--timeout=3",
                               "--memory=none", "--max-out", "1M"), 0);
        assert_int_equal(o.jobs, 8);
        assert_int_equal(o.timeout_ms, 3000);
        assert_int_equal(o.sb.memory_bytes, -1);
        assert_int_equal(o.sb.max_output_bytes, 1 << 20);
        cli_opts_free(&o);
        /* the other short options still work beside the table's -j */
        assert_int_equal(PARSE(&o, &e, "sbx-run", "-q", "-j", "2", "--file", "p.py"), 0);
        assert_true(o.sb.quiet);
        assert_int_equal(o.jobs, 2);
        cli_opts_free(&o);
        assert_int_equal(PARSE(&o, &e, "sbx-run", "-h"), 0);
        assert_int_equal(o.mode, CLI_MODE_HELP);
        cli_opts_free(&o);
}

static void jobs_stop_at_the_one_ceiling(void **state)
{
        struct cli_opts o;
        struct sbx_err e;

        assert_int_equal(PARSE(&o, &e, "sbx-run", "--file", "p.py", "-j", "256"), 0);
        assert_int_equal(o.jobs, SBX_JOBS_MAX);
        cli_opts_free(&o);
        assert_int_equal(PARSE(&o, &e, "sbx-run", "--file", "p.py", "-j", "257"), -1);
        assert_int_equal(e.exit_code, SBX_EXIT_USAGE);
        assert_string_equal(e.msg, "--jobs: '257' is not an integer in [1, 256]");
        cli_opts_free(&o);
        assert_int_equal(PARSE(&o, &e, "sbx-run", "--file", "p.py", "--timeout"), -1);
        assert_non_null(strstr(e.msg, "missing value"));
        cli_opts_free(&o);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(every_limit_reaches_its_field),
                cmocka_unit_test(limits_take_every_getopt_spelling),
                cmocka_unit_test(jobs_stop_at_the_one_ceiling),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
