/* Choosing the tier (frontend/sandbox/tier_choose.c) from fake tier results: the
 * strongest that works, --tier, --require-tier, the refusals and their
 * reasons, the fallback note and the unshare-root warning (through the
 * warn callback, said once), and a single run as its own probe
 * (probe_by_first_run, sandbox_recheck_tier). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "sandbox_impl.h"

/* What each tier does in this test: its tool is there (an executable
 * path, so a failure is news) or missing, and a probe run works or not. */
static bool present[TIER_COUNT], works[TIER_COUNT];
static int probes[TIER_COUNT];
static char warned[1024];
static int n_warned;

static void set_why(struct sandbox *sb, enum tier t, const char *why)
{
        free(sb->tier_why[t]);
        sb->tier_why[t] = strdup(why);
}

static int fake_tool_missing(struct sandbox *sb, enum tier t)
{
        if (present[t] || t == TIER_RLIMIT)
                return 0;
        set_why(sb, t, "not installed");
        return 1;
}

/* As probe.c's: once per tier, remembered, why set on failure. */
static int fake_probe(struct sandbox *sb, enum tier t)
{
        if (sb->tier_probed[t])
                return sb->tier_ok[t];
        sb->tier_probed[t] = true;
        if (fake_tool_missing(sb, t))
                return 0;
        probes[t]++;
        sb->tier_ok[t] = works[t];
        if (!works[t])
                set_why(sb, t, "broken");
        return works[t];
}

static void fake_note_failure(struct sandbox *sb, enum tier t, const struct run_result *res)
{
        set_why(sb, t, "the run never started");
}

static const struct tier_prober fake = {
        .probe = fake_probe, .tool_missing = fake_tool_missing,
        .note_failure = fake_note_failure,
};

static void capture_warning(const char *msg, void *ctx)
{
        size_t len = strlen(warned);

        assert_ptr_equal(ctx, &n_warned);
        snprintf(warned + len, sizeof(warned) - len, "%s\n", msg);
        n_warned++;
}

/* A session as sandbox_open leaves it before the choice, with the fake
 * prober; every tool present and working unless a test says otherwise. */
static struct sandbox *session(void)
{
        struct sandbox *sb = calloc(1, sizeof(*sb));

        assert_non_null(sb);
        sandbox_opts_init(&sb->opts);
        sb->opts.warn = capture_warning;
        sb->opts.warn_ctx = &n_warned;
        sb->seccomp_fd = sb->devnull_fd = -1;
        sb->prober = &fake;
        for (int t = 0; t < TIER_COUNT; t++) {
                present[t] = works[t] = true;
                probes[t] = 0;
                if (t != TIER_RLIMIT)
                        sb->tool[t] = strdup("/bin/sh");
        }
        warned[0] = '\0';
        n_warned = 0;
        return sb;
}

static void the_strongest_tier_that_works_is_chosen(void **state)
{
        struct sandbox *sb = session();
        struct sbx_err err = { 0 };

        works[TIER_HELPER] = false;
        assert_int_equal(tier_choose(sb, &err), 0);
        assert_int_equal(sandbox_tier(sb), TIER_BWRAP);
        assert_int_equal(probes[TIER_HELPER], 1);
        assert_int_equal(probes[TIER_UNSHARE], 0);      /* no probe past the choice */
        assert_string_equal(warned, "tier helper does not work: broken; falling back\n");
        sandbox_close(sb);
}

static void a_missing_tool_falls_back_without_a_note(void **state)
{
        struct sandbox *sb = session();
        struct sbx_err err = { 0 };

        present[TIER_HELPER] = present[TIER_BWRAP] = false;
        free(sb->tool[TIER_HELPER]);
        free(sb->tool[TIER_BWRAP]);
        sb->tool[TIER_HELPER] = sb->tool[TIER_BWRAP] = NULL;
        assert_int_equal(tier_choose(sb, &err), 0);
        assert_int_equal(sandbox_tier(sb), TIER_UNSHARE);
        assert_int_equal(n_warned, 0);
        sandbox_close(sb);
}

static void unshare_root_is_chosen_with_its_warning_once(void **state)
{
        struct sandbox *sb = session();
        struct sbx_err err = { 0 };

        works[TIER_HELPER] = works[TIER_BWRAP] = works[TIER_UNSHARE] = false;
        assert_int_equal(tier_choose(sb, &err), 0);
        assert_int_equal(sandbox_tier(sb), TIER_UNSHARE_ROOT);
        assert_int_equal(n_warned, 4);          /* three fallbacks, then the warning */
        assert_non_null(strstr(warned, "tier unshare does not work: broken; falling back\n"
                                       "warning: tier unshare-root runs candidates as root "));
        assert_int_equal(tier_choose(sb, &err), 0);     /* chosen again: said once */
        assert_int_equal(n_warned, 4);
        sandbox_close(sb);

        sb = session();
        works[TIER_HELPER] = works[TIER_BWRAP] = works[TIER_UNSHARE] = false;
        sb->opts.quiet = true;
        assert_int_equal(tier_choose(sb, &err), 0);
        assert_int_equal(sandbox_tier(sb), TIER_UNSHARE_ROOT);
        assert_int_equal(n_warned, 0);          /* quiet: nothing is handed on */
        sandbox_close(sb);
}

static void forced_tier_is_the_only_one_probed(void **state)
{
        struct sandbox *sb = session();
        struct sbx_err err = { 0 };

        sb->opts.force_tier = TIER_UNSHARE;
        assert_int_equal(tier_choose(sb, &err), 0);
        assert_int_equal(sandbox_tier(sb), TIER_UNSHARE);
        assert_int_equal(probes[TIER_HELPER] + probes[TIER_BWRAP], 0);
        sandbox_close(sb);
}

static void forced_tier_that_fails_is_refused_with_reasons(void **state)
{
        struct sandbox *sb = session();
        struct sbx_err err = { 0 };

        sb->opts.force_tier = TIER_BWRAP;
        works[TIER_BWRAP] = false;
        set_why(sb, TIER_RLIMIT, "known from before");  /* weaker: not a reason here */
        assert_int_equal(tier_choose(sb, &err), -1);
        assert_int_equal(err.exit_code, SBX_EXIT_SANDBOX);
        assert_string_equal(err.msg, "--tier bwrap does not work here (bwrap: broken)");
        assert_int_equal(sandbox_tier(sb), TIER_NONE);
        assert_int_equal(probes[TIER_UNSHARE] + probes[TIER_RLIMIT], 0);   /* no fallback */
        sandbox_close(sb);
}

static void require_tier_never_accepts_a_weaker_one(void **state)
{
        struct sandbox *sb = session();
        struct sbx_err err = { 0 };

        sb->opts.require_tier = TIER_BWRAP;
        works[TIER_HELPER] = works[TIER_BWRAP] = false;
        assert_int_equal(tier_choose(sb, &err), -1);
        assert_int_equal(err.exit_code, SBX_EXIT_SANDBOX);
        assert_string_equal(err.msg, "--require-tier bwrap: no tier that strong works here "
                            "(helper: broken; bwrap: broken)");
        assert_int_equal(probes[TIER_UNSHARE], 0);
        sandbox_close(sb);

        sb = session();
        sb->opts.force_tier = TIER_RLIMIT;
        sb->opts.require_tier = TIER_UNSHARE;
        assert_int_equal(tier_choose(sb, &err), -1);
        assert_string_equal(err.msg, "--tier rlimit is weaker than --require-tier unshare");
        for (int t = 0; t < TIER_COUNT; t++)
                assert_int_equal(probes[t], 0);
        sandbox_close(sb);
}

static void nothing_working_is_refused_with_every_reason(void **state)
{
        struct sandbox *sb = session();
        struct sbx_err err = { 0 };

        for (int t = 0; t < TIER_COUNT; t++)
                works[t] = false;
        present[TIER_HELPER] = false;
        assert_int_equal(tier_choose(sb, &err), -1);
        assert_int_equal(err.exit_code, SBX_EXIT_SANDBOX);
        assert_string_equal(err.msg, "no sandbox tier works here (helper: not installed; "
                            "bwrap: broken; unshare: broken; unshare-root: broken; "
                            "rlimit: broken)");
        sandbox_close(sb);
}

/* One run is its own probe: the tier is chosen unprobed, and a run that
 * never started moves the choice to the next tier, which is not probed
 * either; a run that started keeps it. */
static void a_single_run_is_its_own_probe(void **state)
{
        struct sandbox *sb = session();
        struct sbx_err err = { 0 };
        struct run_result never = { .status = RUN_ERROR, .never_started = true };
        struct run_result failed = { .status = RUN_FAILED };

        sb->opts.probe_by_first_run = true;
        assert_int_equal(tier_choose(sb, &err), 0);
        assert_int_equal(sandbox_tier(sb), TIER_HELPER);
        assert_int_equal(sandbox_recheck_tier(sb, &never, &err), 1);
        assert_int_equal(sandbox_tier(sb), TIER_BWRAP);
        assert_string_equal(warned, "tier helper does not work: the run never started; "
                            "falling back\n");
        assert_int_equal(sandbox_recheck_tier(sb, &failed, &err), 0);   /* the program's own failure */
        assert_int_equal(sandbox_tier(sb), TIER_BWRAP);
        assert_int_equal(sandbox_recheck_tier(sb, &never, &err), 0);    /* proven: stays */
        for (int t = 0; t < TIER_COUNT; t++)
                assert_int_equal(probes[t], 0);
        sandbox_close(sb);

        sb = session();
        sb->opts.probe_by_first_run = true;
        sb->opts.require_tier = TIER_HELPER;
        present[TIER_HELPER] = false;
        assert_int_equal(tier_choose(sb, &err), -1);
        assert_string_equal(err.msg, "--require-tier helper: no tier that strong works "
                            "here (helper: not installed)");
        sandbox_close(sb);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(the_strongest_tier_that_works_is_chosen),
                cmocka_unit_test(a_missing_tool_falls_back_without_a_note),
                cmocka_unit_test(unshare_root_is_chosen_with_its_warning_once),
                cmocka_unit_test(forced_tier_is_the_only_one_probed),
                cmocka_unit_test(forced_tier_that_fails_is_refused_with_reasons),
                cmocka_unit_test(require_tier_never_accepts_a_weaker_one),
                cmocka_unit_test(nothing_working_is_refused_with_every_reason),
                cmocka_unit_test(a_single_run_is_its_own_probe),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
