/* Choosing the session's tier: the strongest that works, within --tier and
 * --require-tier, from what the prober (probe.c, or a test's fake) finds.
 * Also sandbox_open, so that sandbox.c (the session) never calls up into
 * the choice. */
#include <stdio.h>
#include <unistd.h>

#include "sandbox_impl.h"

static void note_fallback(struct sandbox *sb, enum tier t)
{
        /* a tool that is missing is ordinary; one that is there and fails is
         * news, said once (a run that proved a tier broken chooses again) */
        if (sb->opts.quiet || sb->fallback_noted[t] || !sb->tool[t] || access(sb->tool[t], X_OK) < 0)
                return;
        sb->fallback_noted[t] = true;
        fprintf(stderr, "sbx-run: tier %s does not work: %s; falling back\n",
                tier_name(t), sb->tier_why[t] ? sb->tier_why[t] : "?");
}

static void warn_root(struct sandbox *sb)
{
        if (sb->tier != TIER_UNSHARE_ROOT || sb->opts.quiet || sb->root_warned)
                return;
        sb->root_warned = true;
        fprintf(stderr, "sbx-run: warning: tier unshare-root runs candidates as root "
                "inside a user namespace; tests that expect a permission denial "
                "will not see one\n");
}

static int refuse(struct sandbox *sb, enum tier upto, const char *what,
                  struct sbx_err *err)
{
        char reasons[768] = "";
        size_t len = 0;

        for (int t = 0; t <= upto && t < TIER_COUNT; t++) {
                if (!sb->tier_why[t] || len >= sizeof(reasons))
                        continue;
                len += (size_t)snprintf(reasons + len, sizeof(reasons) - len, "%s%s: %s",
                                        len ? "; " : "", tier_name(t), sb->tier_why[t]);
        }
        return sbx_fail_code(err, SBX_EXIT_SANDBOX, 0, "%s (%s)", what, reasons);
}

/* A single run needs no probe run before it: every tier tells a sandbox
 * that never came up from the program's own result, so the run itself is
 * the probe, which saves one interpreter start per sbx-run. The helper
 * has its status line, bwrap its --json-status-fd ("child-pid" once the
 * program is about to start), the unshare tiers their start marker
 * (argv.h), and the rlimit tier execs the program itself (an exec failure
 * is an error of the spawn). */
static bool choose_unproven(struct sandbox *sb)
{
        enum tier force = sb->opts.force_tier, require = sb->opts.require_tier;

        if (!sb->opts.probe_by_first_run)
                return false;
        for (enum tier t = 0; t < TIER_COUNT; t++) {
                if (force != TIER_NONE && t != force)
                        continue;
                if (require != TIER_NONE && !tier_at_least(t, require))
                        return false;
                if (!sb->tier_probed[t] && sb->prober->tool_missing(sb, t))
                        sb->tier_probed[t] = true;
                if (sb->tier_probed[t] && !sb->tier_ok[t]) {    /* missing, or proved broken */
                        note_fallback(sb, t);
                        continue;
                }
                sb->tier = t;
                sb->tier_unproven = !sb->tier_probed[t];
                if (!sb->tier_unproven)
                        warn_root(sb);
                return true;
        }
        return false;
}

int sandbox_recheck_tier(struct sandbox *sb, const struct run_result *res,
                         struct sbx_err *err)
{
        enum tier t = sb->tier;

        if (!sb->tier_unproven)
                return 0;
        sb->tier_unproven = false;
        sb->tier_probed[t] = true;
        sb->tier_ok[t] = !(res->status == RUN_ERROR && res->never_started);
        if (sb->tier_ok[t]) {
                warn_root(sb);  /* once the run showed it is the tier */
                return 0;
        }
        sb->prober->note_failure(sb, t, res);
        sb->tier = TIER_NONE;
        return tier_choose(sb, err) < 0 ? -1 : 1;
}

int tier_choose(struct sandbox *sb, struct sbx_err *err)
{
        enum tier force = sb->opts.force_tier, require = sb->opts.require_tier;
        char what[128];

        if (choose_unproven(sb))
                return 0;

        if (force != TIER_NONE) {
                if (require != TIER_NONE && !tier_at_least(force, require))
                        return sbx_fail_code(err, SBX_EXIT_SANDBOX, 0,
                                             "--tier %s is weaker than --require-tier %s",
                                             tier_name(force), tier_name(require));
                if (!sb->prober->probe(sb, force)) {
                        snprintf(what, sizeof(what), "--tier %s does not work here",
                                 tier_name(force));
                        return refuse(sb, force, what, err);
                }
                sb->tier = force;
        }
        for (int t = 0; sb->tier == TIER_NONE && t < TIER_COUNT; t++) {
                if (require != TIER_NONE && !tier_at_least((enum tier)t, require))
                        break;
                if (sb->prober->probe(sb, (enum tier)t))
                        sb->tier = (enum tier)t;
                else
                        note_fallback(sb, (enum tier)t);
        }
        if (sb->tier == TIER_NONE) {
                if (require != TIER_NONE)
                        snprintf(what, sizeof(what), "--require-tier %s: no tier "
                                 "that strong works here", tier_name(require));
                else
                        snprintf(what, sizeof(what), "no sandbox tier works here");
                return refuse(sb, require != TIER_NONE ? require : TIER_RLIMIT, what, err);
        }
        warn_root(sb);
        return 0;
}

int sandbox_open(struct sandbox **out, const struct sandbox_opts *opts,
                 struct sbx_err *err)
{
        struct sandbox *sb;

        if (sandbox_prepare(&sb, opts, err) < 0)
                return -1;
        sb->prober = &probe_real;
        if (tier_choose(sb, err) < 0) {
                sandbox_close(sb);
                return -1;
        }
        *out = sb;
        return 0;
}
