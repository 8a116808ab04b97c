/* Choosing the session's tier: the strongest that works, within --tier and
 * --require-tier, from what the prober (probe.c, or a test's fake) finds.
 * Also sandbox_open, so that sandbox.c (the session) never calls up into
 * the choice. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "sandbox_impl.h"

/* A line for the user, through the caller's warn (sandbox.h): never printed here. */
static void sandbox_warn(const struct sandbox *sb, const char *fmt, ...)
        __attribute__((format(printf, 2, 3)));
static void sandbox_warn(const struct sandbox *sb, const char *fmt, ...)
{
        va_list ap;
        char *msg;
        int n;

        if (!sb->opts.warn)
                return;
        va_start(ap, fmt);
        n = vasprintf(&msg, fmt, ap);
        va_end(ap);
        if (n < 0)
                return;
        sb->opts.warn(msg, sb->opts.warn_ctx);
        free(msg);
}

static void note_fallback(struct sandbox *sb, const struct tier_ops *o)
{
        enum tier t = o->id;

        /* a tool that is missing is ordinary; one that is there and fails is
         * news, said once (a run that proved a tier broken chooses again) */
        if (sb->opts.quiet || sb->fallback_noted[t] || !sb->tool[t] || access(sb->tool[t], X_OK) < 0)
                return;
        sb->fallback_noted[t] = true;
        sandbox_warn(sb, "tier %s does not work: %s; falling back",
                     o->name, sb->tier_why[t] ? sb->tier_why[t] : "?");
}

static void warn_chosen(struct sandbox *sb)
{
        if (!sb->tier->choice_warning || sb->opts.quiet || sb->choice_warned)
                return;
        sb->choice_warned = true;
        sandbox_warn(sb, "warning: %s", sb->tier->choice_warning);
}

/* Every tier's reason, strongest first, down to upto (NULL: all). */
static int refuse(struct sandbox *sb, const struct tier_ops *upto, const char *what,
                  struct sbx_err *err)
{
        char reasons[768] = "";
        size_t len = 0;

        for_each_tier(o) {
                const char *why = sb->tier_why[o->id];
                if (why && len < sizeof(reasons))
                        len += (size_t)snprintf(reasons + len, sizeof(reasons) - len, "%s%s: %s",
                                                len ? "; " : "", o->name, why);
                if (o == upto)
                        break;
        }
        return sbx_fail_code(err, SBX_EXIT_SANDBOX, 0, "%s (%s)", what, reasons);
}

/* o is weaker than --require-tier asks */
static bool below(const struct tier_ops *o, const struct tier_ops *require)
{
        return require && !tier_at_least(o->id, require->id);
}

/* A single run needs no probe run before it when the tier tells a sandbox
 * that never came up from the program's own result (reports_start): the
 * run itself is the probe, which saves one interpreter start per sbx-run. */
static bool choose_unproven(struct sandbox *sb)
{
        const struct tier_ops *force = tier_ops(sb->opts.force_tier);
        const struct tier_ops *require = tier_ops(sb->opts.require_tier);

        if (!sb->opts.probe_by_first_run)
                return false;
        for_each_tier(o) {
                enum tier t = o->id;
                if (force && o != force)
                        continue;
                if (below(o, require))
                        return false;
                if (!sb->tier_probed[t] && sb->prober->tool_missing(sb, t))
                        sb->tier_probed[t] = true;
                if (sb->tier_probed[t] && !sb->tier_ok[t]) {    /* missing, or proved broken */
                        note_fallback(sb, o);
                        continue;
                }
                if (!sb->tier_probed[t] && !o->reports_start)
                        return false;   /* only a probe run can tell */
                sb->tier = o;
                sb->tier_unproven = !sb->tier_probed[t];
                if (!sb->tier_unproven)
                        warn_chosen(sb);
                return true;
        }
        return false;
}

int sandbox_recheck_tier(struct sandbox *sb, const struct run_result *res,
                         struct sbx_err *err)
{
        enum tier t = tier_id(sb->tier);

        if (!sb->tier_unproven)
                return 0;
        sb->tier_unproven = false;
        sb->tier_probed[t] = true;
        sb->tier_ok[t] = !(res->status == RUN_ERROR && res->never_started);
        if (sb->tier_ok[t]) {
                warn_chosen(sb);        /* once the run showed it is the tier */
                return 0;
        }
        sb->prober->note_failure(sb, t, res);
        sb->tier = NULL;
        return tier_choose(sb, err) < 0 ? -1 : 1;
}

static int choose_forced(struct sandbox *sb, const struct tier_ops *force,
                         const struct tier_ops *require, struct sbx_err *err)
{
        char what[128];

        if (below(force, require))
                return sbx_fail_code(err, SBX_EXIT_SANDBOX, 0,
                                     "--tier %s is weaker than --require-tier %s",
                                     force->name, require->name);
        if (!sb->prober->probe(sb, force->id)) {
                snprintf(what, sizeof(what), "--tier %s does not work here", force->name);
                return refuse(sb, force, what, err);
        }
        sb->tier = force;
        return 0;
}

int tier_choose(struct sandbox *sb, struct sbx_err *err)
{
        const struct tier_ops *force = tier_ops(sb->opts.force_tier);
        const struct tier_ops *require = tier_ops(sb->opts.require_tier);
        char what[128];

        if (choose_unproven(sb))
                return 0;
        if (force && choose_forced(sb, force, require, err) < 0)
                return -1;
        for (const struct tier_ops *o = tier_first(); !sb->tier && o; o = tier_next(o)) {
                if (below(o, require))
                        break;
                if (sb->prober->probe(sb, o->id))
                        sb->tier = o;
                else
                        note_fallback(sb, o);
        }
        if (!sb->tier) {
                if (require)
                        snprintf(what, sizeof(what), "--require-tier %s: no tier "
                                 "that strong works here", require->name);
                else
                        snprintf(what, sizeof(what), "no sandbox tier works here");
                return refuse(sb, require, what, err);
        }
        warn_chosen(sb);
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
