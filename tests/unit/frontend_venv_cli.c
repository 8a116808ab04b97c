/* Pure parts of the venv cache (stamp, names), the binds computed for an
 * interpreter, and the command line's strictness (its limit options come
 * from limit.c's rows: each reaches its field in every spelling getopt
 * allows, and the ceilings are the rows'). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "cli.h"
#include "interp.h"
#include "limit.h"
#include "venv.h"

static void stamp_sorts_and_dedups_packages(void **state)
{
        const char *a[] = { "numpy==1.26", "attrs", "numpy==1.26", NULL };
        const char *b[] = { "attrs", "numpy==1.26", NULL };
        uint64_t h[] = { 0x1234 };
        char *sa = venv_stamp_text("/usr/bin/python3", "3.11.2 (main)", a, h, 1);
        char *sb = venv_stamp_text("/usr/bin/python3", "3.11.2 (main)", b, h, 1);

        assert_string_equal(sa, sb);
        assert_non_null(strstr(sa, "package attrs\npackage numpy==1.26\n"));
        assert_non_null(strstr(sa, "version 3.11.2 (main)\n"));
        assert_non_null(strstr(sa, "provision 0000000000001234\n"));
        free(sb);
        /* any change of packages, version or provisioning changes the stamp */
        const char *c[] = { "attrs", NULL };
        sb = venv_stamp_text("/usr/bin/python3", "3.11.2 (main)", c, h, 1);
        assert_string_not_equal(sa, sb);
        free(sb);
        sb = venv_stamp_text("/usr/bin/python3", "3.11.3 (main)", a, h, 1);
        assert_string_not_equal(sa, sb);
        free(sb);
        sb = venv_stamp_text("/usr/bin/python3", "3.11.2 (main)", a, NULL, 0);
        assert_string_not_equal(sa, sb);
        free(sb);
        free(sa);
}

static void hash_and_names(void **state)
{
        assert_true(venv_hash("a", 1) != venv_hash("b", 1));
        assert_true(venv_hash("", 0) == 0xcbf29ce484222325ULL);
        assert_true(venv_name_valid("eval-3.12_numpy"));
        assert_false(venv_name_valid(""));
        assert_false(venv_name_valid(".."));
        assert_false(venv_name_valid("a/b"));
        assert_false(venv_name_valid(".hidden"));
}

static void binds_normalize_drops_nested(void **state)
{
        struct strvec v = { 0 };

        strvec_push(&v, "/a/b/c");
        strvec_push(&v, "/a/b-c");
        strvec_push(&v, "/a/b");
        strvec_push(&v, "/a/b");
        strvec_push(&v, "/z");
        binds_normalize(&v);
        assert_int_equal(v.len, 3);
        assert_string_equal(v.items[0], "/a/b");
        assert_string_equal(v.items[1], "/a/b-c");
        assert_string_equal(v.items[2], "/z");
        strvec_free(&v);
}

static void install_roots(void **state)
{
        char *r = interp_install_root("/opt/x/python3.12/bin/python3.12");
        assert_string_equal(r, "/opt/x/python3.12");
        free(r);
        r = interp_install_root("/tmp/cache/venv/bin/python");
        assert_string_equal(r, "/tmp/cache/venv");
        free(r);
        assert_true(path_is_system("/usr/lib/python3.11"));
        assert_true(path_is_system("/"));
        assert_false(path_is_system("/usrlocal"));
        assert_false(path_is_system("/tmp/x"));
}

static int parse(struct cli_opts *o, struct sbx_err *e, int argc, char **argv)
{
        memset(e, 0, sizeof(*e));
        return cli_parse(argc, argv, o, e);
}
#define PARSE(o, e, ...) parse((o), (e), \
        (int)(sizeof((char *[]){ __VA_ARGS__ }) / sizeof(char *)), (char *[]){ __VA_ARGS__, NULL })

static void cli_modes(void **state)
{
        struct cli_opts o;
        struct sbx_err e;

        assert_int_equal(PARSE(&o, &e, "sbx-run", "--file", "p.py", "--timeout", "2.5",
                               "--json", "--tier", "bwrap", "--env", "A={venv}/x"), 0);
        assert_int_equal(o.mode, CLI_MODE_FILE);
        assert_int_equal(o.timeout_ms, 2500);
        assert_int_equal(o.sb.force_tier, TIER_BWRAP);
        assert_string_equal(o.sb.env[0], "A={venv}/x");
        cli_opts_free(&o);
        assert_int_equal(PARSE(&o, &e, "sbx-run", "--workdir", "/w", "--", "python3",
                               "-c", "x"), 0);
        assert_int_equal(o.mode, CLI_MODE_ARGV);
        assert_string_equal(o.argv[0], "python3");
        cli_opts_free(&o);
        assert_int_equal(PARSE(&o, &e, "sbx-run", "--suite", "humaneval", "--problems",
                               "p", "--samples", "s", "-j", "4", "--shard", "1/3",
                               "--k", "1,10", "--no-progress"), 0);
        assert_int_equal(o.mode, CLI_MODE_SUITE);
        assert_int_equal(o.jobs, 4);
        assert_int_equal(o.shard_index, 1);
        assert_int_equal(o.shard_count, 3);
        assert_int_equal(o.progress, 0);
        cli_opts_free(&o);
        assert_int_equal(PARSE(&o, &e, "sbx-run", "merge", "--out", "m.jsonl", "a", "b"), 0);
        assert_int_equal(o.mode, CLI_MODE_MERGE);
        assert_string_equal(o.merge_out, "m.jsonl");
        assert_string_equal(o.merge_files[1], "b");
        cli_opts_free(&o);
}

static void cli_rejects_bad_numbers_naming_the_option(void **state)
{
        struct cli_opts o;
        struct sbx_err e;

        assert_int_equal(PARSE(&o, &e, "sbx-run", "--file", "p", "--timeout", "5x"), -1);
        assert_int_equal(e.exit_code, SBX_EXIT_USAGE);
        assert_non_null(strstr(e.msg, "--timeout"));
        cli_opts_free(&o);
        assert_int_equal(PARSE(&o, &e, "sbx-run", "--file", "p", "-j", "0"), -1);
        assert_non_null(strstr(e.msg, "--jobs"));
        cli_opts_free(&o);
        assert_int_equal(PARSE(&o, &e, "sbx-run", "--file", "p", "--memory", "-1"), -1);
        assert_non_null(strstr(e.msg, "--memory"));
        cli_opts_free(&o);
        assert_int_equal(PARSE(&o, &e, "sbx-run", "--file", "p", "--shard", "3/3"), -1);
        assert_non_null(strstr(e.msg, "--shard"));
        cli_opts_free(&o);
        assert_int_equal(PARSE(&o, &e, "sbx-run", "--file", "p", "--tier", "docker"), -1);
        assert_non_null(strstr(e.msg, "--tier"));
        cli_opts_free(&o);
        assert_int_equal(PARSE(&o, &e, "sbx-run", "--file", "p", "--max-output", "1M"), 0);
        assert_int_equal(o.sb.max_output_bytes, 1 << 20);
        cli_opts_free(&o);
        assert_int_equal(PARSE(&o, &e, "sbx-run", "--file", "p", "--probe"), -1);
        cli_opts_free(&o);
        assert_int_equal(PARSE(&o, &e, "sbx-run", "--", "python3"), -1);
        assert_non_null(strstr(e.msg, "--workdir"));
        cli_opts_free(&o);
        assert_int_equal(PARSE(&o, &e, "sbx-run", "--file", "p", "--package", "x"), -1);
        assert_non_null(strstr(e.msg, "--venv"));
        cli_opts_free(&o);
        assert_int_equal(PARSE(&o, &e, "sbx-run", "stray"), -1);
        cli_opts_free(&o);
}

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
                cmocka_unit_test(stamp_sorts_and_dedups_packages),
                cmocka_unit_test(hash_and_names),
                cmocka_unit_test(binds_normalize_drops_nested),
                cmocka_unit_test(install_roots),
                cmocka_unit_test(cli_modes),
                cmocka_unit_test(cli_rejects_bad_numbers_naming_the_option),
                cmocka_unit_test(every_limit_reaches_its_field),
                cmocka_unit_test(limits_take_every_getopt_spelling),
                cmocka_unit_test(jobs_stop_at_the_one_ceiling),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
