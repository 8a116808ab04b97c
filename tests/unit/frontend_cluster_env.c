/* cluster_shard_from_env: the shard an array-job task is, from Slurm's or
 * Kubernetes' environment; every malformed or ambiguous environment is
 * refused with a message naming the variable, and leaves the outputs alone. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../../frontend/cli/cluster_env.h"

static const char *const shard_vars[] = {
        "SLURM_ARRAY_TASK_ID", "SLURM_ARRAY_TASK_COUNT", "SLURM_ARRAY_TASK_MIN",
        "SLURM_ARRAY_TASK_MAX", "SLURM_ARRAY_TASK_STEP", "JOB_COMPLETION_INDEX",
        "SBX_SHARD_COUNT",
};

static int clear_env(void **state)
{
        for (size_t i = 0; i < sizeof(shard_vars) / sizeof(shard_vars[0]); i++)
                assert_int_equal(unsetenv(shard_vars[i]), 0);
        return 0;
}

static void set(const char *name, const char *value)
{
        assert_int_equal(setenv(name, value, 1), 0);
}

/* Slurm's variables for --array=MIN-MAX:STEP as task ID. */
static void set_slurm_array(const char *id, const char *count, const char *min,
                            const char *max, const char *step)
{
        set("SLURM_ARRAY_TASK_ID", id);
        set("SLURM_ARRAY_TASK_COUNT", count);
        set("SLURM_ARRAY_TASK_MIN", min);
        set("SLURM_ARRAY_TASK_MAX", max);
        set("SLURM_ARRAY_TASK_STEP", step);
}

static void assert_shard(int want_index, int want_count)
{
        struct sbx_err err = { 0 };
        int index = -7, count = -7;

        assert_int_equal(cluster_shard_from_env(&index, &count, &err), 0);
        assert_int_equal(index, want_index);
        assert_int_equal(count, want_count);
}

/* Refused: -1, exit code 2, the outputs untouched, and the message starts
 * with the option and contains `needle` (the variable or the reason). */
static void assert_refused(const char *needle)
{
        struct sbx_err err = { 0 };
        int index = -7, count = -7;

        assert_int_equal(cluster_shard_from_env(&index, &count, &err), -1);
        assert_int_equal(err.exit_code, SBX_EXIT_USAGE);
        assert_int_equal(index, -7);
        assert_int_equal(count, -7);
        assert_int_equal(strncmp(err.msg, "--shard auto: ", 14), 0);
        if (!strstr(err.msg, needle))
                fail_msg("message \"%s\" does not contain \"%s\"", err.msg, needle);
}

static void slurm_array_from_zero_maps_ids_to_shards(void **state)
{
        set_slurm_array("0", "4", "0", "3", "1");
        assert_shard(0, 4);
        set("SLURM_ARRAY_TASK_ID", "3");
        assert_shard(3, 4);
}

static void slurm_array_from_one_counts_from_min(void **state)
{
        set_slurm_array("1", "4", "1", "4", "1");
        assert_shard(0, 4);
        set("SLURM_ARRAY_TASK_ID", "4");
        assert_shard(3, 4);
}

static void slurm_array_without_min_counts_from_zero(void **state)
{
        set("SLURM_ARRAY_TASK_ID", "2");
        set("SLURM_ARRAY_TASK_COUNT", "3");
        assert_shard(2, 3);
}

static void slurm_array_with_step_divides_by_step(void **state)
{
        set_slurm_array("4", "4", "0", "6", "2");       /* --array=0-6:2 */
        assert_shard(2, 4);
        set_slurm_array("10", "3", "4", "10", "3");     /* --array=4-10:3 */
        assert_shard(2, 3);
}

static void slurm_id_off_step_is_refused(void **state)
{
        set_slurm_array("3", "4", "0", "6", "2");
        assert_refused("SLURM_ARRAY_TASK_ID=3 is not in the array");
}

static void slurm_id_below_min_is_refused(void **state)
{
        set_slurm_array("0", "4", "1", "4", "1");
        assert_refused("SLURM_ARRAY_TASK_ID=0 is not in the array");
}

/* --array=1,5,7: three tasks over a span of seven IDs; (ID - MIN) would
 * name shards 0, 4 and 6 of 3, so shards 1 and 2 would never run. */
static void slurm_array_with_gaps_is_refused(void **state)
{
        set_slurm_array("5", "3", "1", "7", "1");
        assert_refused("has gaps");
}

static void slurm_without_count_is_refused(void **state)
{
        set("SLURM_ARRAY_TASK_ID", "1");
        assert_refused("SLURM_ARRAY_TASK_COUNT is not");
}

static void slurm_zero_count_is_refused(void **state)
{
        set_slurm_array("0", "0", "0", "0", "1");
        assert_refused("SLURM_ARRAY_TASK_COUNT=0");
}

static void slurm_zero_step_is_refused(void **state)
{
        set_slurm_array("0", "4", "0", "3", "0");
        assert_refused("SLURM_ARRAY_TASK_STEP=0");
}

/* The resubmission of one killed task: --array=2 alone has COUNT 1 and
 * MIN 2, which without SBX_SHARD_COUNT would be shard 0 of 1. */
static void slurm_with_shard_count_takes_id_as_index(void **state)
{
        set_slurm_array("2", "1", "2", "2", "1");
        set("SBX_SHARD_COUNT", "4");
        assert_shard(2, 4);
}

static void slurm_with_shard_count_refuses_id_past_count(void **state)
{
        set_slurm_array("4", "4", "1", "4", "1");
        set("SBX_SHARD_COUNT", "4");
        assert_refused("shard index 4, but there are only 4 shards");
}

static void kubernetes_index_with_count(void **state)
{
        set("JOB_COMPLETION_INDEX", "0");
        set("SBX_SHARD_COUNT", "8");
        assert_shard(0, 8);
        set("JOB_COMPLETION_INDEX", "7");
        assert_shard(7, 8);
}

static void kubernetes_without_count_is_refused(void **state)
{
        set("JOB_COMPLETION_INDEX", "3");
        assert_refused("SBX_SHARD_COUNT is not");
}

static void kubernetes_index_past_count_is_refused(void **state)
{
        set("JOB_COMPLETION_INDEX", "8");
        set("SBX_SHARD_COUNT", "8");
        assert_refused("JOB_COMPLETION_INDEX gives shard index 8");
}

static void zero_shard_count_is_refused(void **state)
{
        set("JOB_COMPLETION_INDEX", "0");
        set("SBX_SHARD_COUNT", "0");
        assert_refused("SBX_SHARD_COUNT=0");
}

static void no_scheduler_is_refused(void **state)
{
        set("SBX_SHARD_COUNT", "4");    /* a count alone names no shard */
        assert_refused("neither SLURM_ARRAY_TASK_ID");
}

static void both_schedulers_are_refused(void **state)
{
        set_slurm_array("0", "4", "0", "3", "1");
        set("JOB_COMPLETION_INDEX", "1");
        set("SBX_SHARD_COUNT", "4");
        assert_refused("both SLURM_ARRAY_TASK_ID and JOB_COMPLETION_INDEX");
}

/* strtol alone would accept most of these; a job script that exports them
 * is broken and must hear so instead of running some other shard. */
static void malformed_numbers_are_refused(void **state)
{
        static const char *const bad[] = {
                "", "-1", "+1", " 1", "1 ", "1x", "0x10", "1.0", "١",
                "2147483648", "99999999999999999999999",
        };

        for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
                char want[64];

                clear_env(NULL);
                set("JOB_COMPLETION_INDEX", bad[i]);
                set("SBX_SHARD_COUNT", "4");
                snprintf(want, sizeof(want), "JOB_COMPLETION_INDEX=\"%s\"", bad[i]);
                assert_refused(want);

                clear_env(NULL);
                set_slurm_array("0", bad[i], "0", "3", "1");
                snprintf(want, sizeof(want), "SLURM_ARRAY_TASK_COUNT=\"%s\"", bad[i]);
                assert_refused(want);

                clear_env(NULL);
                set("SLURM_ARRAY_TASK_ID", "0");
                set("SBX_SHARD_COUNT", bad[i]);
                snprintf(want, sizeof(want), "SBX_SHARD_COUNT=\"%s\"", bad[i]);
                assert_refused(want);
        }
}

static void largest_int_is_accepted(void **state)
{
        set("JOB_COMPLETION_INDEX", "2147483646");
        set("SBX_SHARD_COUNT", "2147483647");
        assert_shard(2147483646, 2147483647);
}

/* A NULL err must not crash (the CLI always passes one; callers may not). */
static void null_err_is_tolerated(void **state)
{
        int index = -7, count = -7;

        assert_int_equal(cluster_shard_from_env(&index, &count, NULL), -1);
        assert_int_equal(index, -7);
}

#define T(f) cmocka_unit_test_setup(f, clear_env)

int main(void)
{
        const struct CMUnitTest tests[] = {
                T(slurm_array_from_zero_maps_ids_to_shards),
                T(slurm_array_from_one_counts_from_min),
                T(slurm_array_without_min_counts_from_zero),
                T(slurm_array_with_step_divides_by_step),
                T(slurm_id_off_step_is_refused),
                T(slurm_id_below_min_is_refused),
                T(slurm_array_with_gaps_is_refused),
                T(slurm_without_count_is_refused),
                T(slurm_zero_count_is_refused),
                T(slurm_zero_step_is_refused),
                T(slurm_with_shard_count_takes_id_as_index),
                T(slurm_with_shard_count_refuses_id_past_count),
                T(kubernetes_index_with_count),
                T(kubernetes_without_count_is_refused),
                T(kubernetes_index_past_count_is_refused),
                T(zero_shard_count_is_refused),
                T(no_scheduler_is_refused),
                T(both_schedulers_are_refused),
                T(malformed_numbers_are_refused),
                T(largest_int_is_accepted),
                T(null_err_is_tolerated),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
