/* The tier table: one row per tier, in the order of enum tier (strongest
 * first). Everything that differs between tiers is here or in the row's
 * file (tier_helper.c, tier_bwrap.c, tier_unshare.c); nothing else in the
 * frontend names a tier. */
#include <stddef.h>
#include <string.h>

#include "tier_ops.h"

#define HELPER_GRACE_MS 2000    /* the helper enforces the wall clock itself */

static const struct tier_ops tier_table[TIER_COUNT] = {
        [TIER_HELPER] = {
                .id = TIER_HELPER, .name = "helper",
                .tool = "sbx-helper", .tool_env = "SBX_HELPER", .tool_path = SBX_HELPER_PATH,
                .tool_hint = "install it with `make install` as root, or point SBX_HELPER at it",
                .build_prefix = helper_prefix, .build_run = helper_run,
                .build_zygote = helper_zygote,
                .status_fd = CHILD_FD_EXTRA, .reports_start = true,
                .classify = helper_classify,
                .sets_own_limits = true, .passes_trace = true,
                .grace_ms = HELPER_GRACE_MS,
                .self_probe_arg = "--probe",
        },
        [TIER_BWRAP] = {
                .id = TIER_BWRAP, .name = "bwrap",
                .tool = "bwrap", .tool_hint = " (apt install bubblewrap)",
                .build_prefix = bwrap_prefix, .build_run = bwrap_run,
                .build_zygote = bwrap_zygote,
                .status_fd = CHILD_FD_STATUS2, .reports_start = true,
                .classify = bwrap_classify,
                .binds_data = true,
                .needs_seccomp = true, .runs_init = true, .needs_root_dirs = true,
                .uses_userns = true,
        },
        [TIER_UNSHARE] = {
                .id = TIER_UNSHARE, .name = "unshare",
                .tool = "unshare", .tool_hint = " (util-linux)",
                .build_prefix = unshare_prefix, .build_zygote = unshare_zygote,
                .status_fd = CHILD_FD_EXTRA, .reports_start = true,
                .classify = unshare_classify,
                .weak = true, .uses_userns = true,
        },
        [TIER_UNSHARE_ROOT] = {
                .id = TIER_UNSHARE_ROOT, .name = "unshare-root",
                .tool = "unshare", .tool_hint = " (util-linux)",
                .build_prefix = unshare_root_prefix,
                .build_zygote = unshare_root_zygote,
                .status_fd = CHILD_FD_EXTRA, .reports_start = true,
                .classify = unshare_classify,
                .weak = true, .uses_userns = true,
                .choice_warning = "tier unshare-root runs candidates as root inside a "
                        "user namespace; tests that expect a permission denial will "
                        "not see one",
        },
        /* the program is exec'd by proc_spawn itself: an exec failure is an
         * error of the spawn, so it too reports its start */
        [TIER_RLIMIT] = {
                .id = TIER_RLIMIT, .name = "rlimit",
                .reports_start = true, .counts_nproc = true, .weak = true,
        },
};

const struct tier_ops *tier_ops(enum tier t)
{
        if (t < 0 || t >= TIER_COUNT)
                return NULL;
        return &tier_table[t];
}

const struct tier_ops *tier_first(void)
{
        return &tier_table[0];
}

const struct tier_ops *tier_next(const struct tier_ops *o)
{
        return tier_ops(o->id + 1);
}

enum tier tier_id(const struct tier_ops *o)
{
        return o ? o->id : TIER_NONE;
}

const char *tier_name(enum tier t)
{
        const struct tier_ops *o = tier_ops(t);

        return o ? o->name : "none";
}

int tier_from_name(const char *name, enum tier *out)
{
        for_each_tier(o) {
                if (strcmp(name, o->name) == 0) {
                        *out = o->id;
                        return 0;
                }
        }
        return -1;
}

int tier_build_prefix(enum tier t, const struct tier_params *p,
                      struct strvec *out)
{
        const struct tier_ops *o = tier_ops(t);

        if (!o)
                return -1;
        return o->build_prefix ? o->build_prefix(p, out) : 0;
}

int tier_build_argv(enum tier t, const struct strvec *prefix,
                    const struct run_params *rp, struct strvec *out)
{
        const struct tier_ops *o = tier_ops(t);
        int rc = o ? strvec_extend(out, (const char *const *)prefix->items) : -1;

        if (o && o->build_run) {
                rc |= o->build_run(rp, out);
                rc |= strvec_push(out, "--");
        }
        if (o && o->runs_init)
                rc |= strvec_extend(out, (const char *[]){ RUN_INIT_PATH, RUN_INIT_ARG, NULL });
        rc |= strvec_extend(out, (const char *const *)rp->argv);
        return rc ? -1 : 0;
}
