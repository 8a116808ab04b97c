/* The tier table (frontend/sandbox/tiers/tier.c): every row complete and consistent,
 * names and ids round-trip, the order is DESIGN.md's (strongest first),
 * and the rows' argv builders are what tier_build_prefix/_argv run. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "tier_ops.h"

static void every_id_has_its_row_and_nothing_else_has_one(void **state)
{
        for (int t = 0; t < TIER_COUNT; t++) {
                const struct tier_ops *o = tier_ops((enum tier)t);
                assert_non_null(o);
                assert_int_equal(o->id, t);
                assert_int_equal(tier_id(o), t);
        }
        assert_null(tier_ops(TIER_NONE));
        assert_null(tier_ops(TIER_COUNT));
        assert_int_equal(tier_id(NULL), TIER_NONE);
        assert_string_equal(tier_name(TIER_NONE), "none");
        assert_string_equal(tier_name(TIER_COUNT), "none");
}

static void names_round_trip_and_are_unique(void **state)
{
        for_each_tier(o) {
                enum tier back = TIER_NONE;
                assert_non_null(o->name);
                assert_true(o->name[0] != '\0');
                assert_string_equal(tier_name(o->id), o->name);
                assert_int_equal(tier_from_name(o->name, &back), 0);
                assert_int_equal(back, o->id);
                for (const struct tier_ops *p = tier_next(o); p; p = tier_next(p))
                        assert_string_not_equal(o->name, p->name);
        }
        enum tier untouched = TIER_BWRAP;
        assert_int_equal(tier_from_name("none", &untouched), -1);
        assert_int_equal(tier_from_name("Helper", &untouched), -1);
        assert_int_equal(tier_from_name("", &untouched), -1);
        assert_int_equal(untouched, TIER_BWRAP);
}

/* The order is the strength order --require-tier compares by. */
static void iteration_visits_every_row_strongest_first(void **state)
{
        const char *order[] = { "helper", "bwrap", "unshare", "unshare-root", "rlimit" };
        size_t n = 0;

        for_each_tier(o) {
                assert_true(n < sizeof(order) / sizeof(*order));
                assert_string_equal(o->name, order[n]);
                assert_int_equal(o->id, (int)n);
                n++;
        }
        assert_int_equal(n, TIER_COUNT);
        assert_true(tier_at_least(TIER_HELPER, TIER_BWRAP));
        assert_false(tier_at_least(TIER_RLIMIT, TIER_UNSHARE));
}

/* What a row must say for the session and the runs to use it without
 * asking which tier it is. */
static void every_row_is_complete(void **state)
{
        for_each_tier(o) {
                /* a tool is found (PATH, or a fixed path) and, missing, explained */
                if (o->tool) {
                        assert_non_null(o->tool_hint);
                        assert_non_null(o->build_prefix);   /* it runs the tool */
                }
                if (o->tool_env)
                        assert_non_null(o->tool_path);
                if (o->self_probe_arg)
                        assert_non_null(o->tool);           /* whose --probe */
                /* a per-run part comes after a session part */
                if (o->build_run)
                        assert_non_null(o->build_prefix);
                /* a report channel has a reader, and the reader a channel */
                assert_true(o->status_fd == 0 || o->status_fd == CHILD_FD_EXTRA ||
                            o->status_fd == CHILD_FD_STATUS2);
                assert_int_equal(o->status_fd != 0, o->classify != NULL);
                /* fd 3 carries the BPF program where one is needed */
                if (o->needs_seccomp)
                        assert_int_equal(o->status_fd, CHILD_FD_STATUS2);
                /* a single run may skip the probe only where it reports its start */
                assert_true(o->reports_start);
                /* the weak tiers rely on the frontend's rlimits and sweep */
                if (o->weak)
                        assert_false(o->sets_own_limits);
                assert_true(o->grace_ms >= 0);
        }
}

/* DESIGN.md's table: own pid namespace (whole tree killed) for helper and
 * bwrap only; the candidate is root only in unshare-root, which says so. */
static void rows_match_the_design_table(void **state)
{
        for_each_tier(o) {
                bool pidns = o->id == TIER_HELPER || o->id == TIER_BWRAP;
                assert_int_equal(o->weak, !pidns);
                assert_int_equal(o->choice_warning != NULL, o->id == TIER_UNSHARE_ROOT);
                assert_int_equal(o->uses_userns, o->id == TIER_BWRAP || o->id == TIER_UNSHARE ||
                                                 o->id == TIER_UNSHARE_ROOT);
        }
        assert_true(tier_ops(TIER_HELPER)->sets_own_limits);
        assert_true(tier_ops(TIER_BWRAP)->needs_seccomp);
        /* of the tiers that start their own pid 1, only bwrap's was the
         * sample's to reach; the helper's init is its own */
        for_each_tier(o)
                assert_int_equal(o->runs_init, o->id == TIER_BWRAP);
        assert_null(tier_ops(TIER_RLIMIT)->tool);
        assert_true(tier_ops(TIER_RLIMIT)->counts_nproc);
}

/* tier_build_prefix/_argv run the row's builders, and "--" comes from
 * the per-run part only where there is one. */
static void the_table_drives_the_argv_builders(void **state)
{
        const char *binds[] = { NULL };
        struct tier_params p = { .tool = "/t", .binds = binds, .memory_bytes = -1,
                                 .fsize_bytes = 1, .tmpfs_bytes = 1 };
        char *argv[] = { "/bin/true", NULL };
        struct run_params rp = { .workdir = "/w", .timeout_ms = 1000, .cpu_s = 1, .argv = argv };

        for_each_tier(o) {
                struct strvec prefix = { 0 }, mine = { 0 }, full = { 0 };
                assert_int_equal(tier_build_prefix(o->id, &p, &prefix), 0);
                if (o->build_prefix)
                        assert_int_equal(o->build_prefix(&p, &mine), 0);
                assert_int_equal(prefix.len, mine.len);
                for (size_t i = 0; i < prefix.len; i++)
                        assert_string_equal(prefix.items[i], mine.items[i]);
                assert_int_equal(tier_build_argv(o->id, &prefix, &rp, &full), 0);
                assert_string_equal(full.items[full.len - 1], "/bin/true");
                /* sbx-run-init, where the tier runs it as pid 1, right
                 * before the program */
                size_t init = o->runs_init ? 2 : 0;
                if (o->runs_init) {
                        assert_string_equal(full.items[full.len - 3], RUN_INIT_PATH);
                        assert_string_equal(full.items[full.len - 2], RUN_INIT_ARG);
                }
                if (o->build_run)
                        assert_string_equal(full.items[full.len - 2 - init], "--");
                if (!o->build_prefix && !o->build_run)
                        assert_int_equal(full.len, 1);  /* the program alone */
                strvec_free(&prefix);
                strvec_free(&mine);
                strvec_free(&full);
        }
        struct strvec none = { 0 };
        assert_int_equal(tier_build_prefix(TIER_NONE, &p, &none), -1);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(every_id_has_its_row_and_nothing_else_has_one),
                cmocka_unit_test(names_round_trip_and_are_unique),
                cmocka_unit_test(iteration_visits_every_row_strongest_first),
                cmocka_unit_test(every_row_is_complete),
                cmocka_unit_test(rows_match_the_design_table),
                cmocka_unit_test(the_table_drives_the_argv_builders),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
