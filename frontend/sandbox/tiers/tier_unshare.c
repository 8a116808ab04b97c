/* The unshare tiers (unshare --user --map-current-user --net, and
 * unshare -rn): their argv and the start marker that tells a run that
 * never started (argv.h). */
#include <stdio.h>
#include <string.h>

#include "tier_ops.h"

int unshare_prefix(const struct tier_params *p, struct strvec *v)
{
        return strvec_extend(v, (const char *[]){ p->tool, "--user",
                "--map-current-user", "--net", "--", START_SHELL, "-c",
                START_SCRIPT, START_MARKER, NULL });
}

int unshare_root_prefix(const struct tier_params *p, struct strvec *v)
{
        return strvec_extend(v, (const char *[]){ p->tool, "-rn", "--",
                START_SHELL, "-c", START_SCRIPT, START_MARKER, NULL });
}

/* The zygote needs no start marker (it says it is ready itself); the
 * capabilities it has in the new user namespace stay ambient across the
 * exec (--keep-caps; as root in -r they stay anyway). */
int unshare_zygote(const struct tier_params *p, const struct zygote_params *zp, struct strvec *v)
{
        int rc = strvec_extend(v, (const char *[]){ p->tool, "--user", "--map-current-user",
                                                    "--keep-caps", "--net", "--", NULL });

        return rc | strvec_extend(v, (const char *const *)zp->argv) ? -1 : 0;
}

int unshare_root_zygote(const struct tier_params *p, const struct zygote_params *zp, struct strvec *v)
{
        int rc = strvec_extend(v, (const char *[]){ p->tool, "-rn", "--", NULL });

        return rc | strvec_extend(v, (const char *const *)zp->argv) ? -1 : 0;
}

/* Without the start marker the shim never ran the program: unshare failed. */
int unshare_classify(struct run_result *res, const char *text, int *code, int *sig)
{
        if (strstr(text, START_MARKER))
                return 0;
        run_result_tool_failed(res, "unshare setup failed", *sig);
        res->never_started = true;
        return 1;
}
