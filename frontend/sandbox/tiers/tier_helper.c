/* The helper tier (sbx-helper, setuid root): its argv and how its status
 * line is read. */
#include <cjson/cJSON.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tier_ops.h"
#include "util.h"

/* helper/supervise.c's message when init died before the candidate ended */
#define HELPER_INIT_DIED "sandbox init died"

int helper_prefix(const struct tier_params *p, struct strvec *v)
{
        int rc = strvec_push(v, p->tool);

        for (const char *const *b = p->binds; b && *b; b++)
                rc |= strvec_extend(v, (const char *[]){ "--ro-bind", *b, NULL });
        if (p->memory_bytes < 0)
                rc |= strvec_extend(v, (const char *[]){ "--memory", "none", NULL });
        else
                rc |= argv_push_num(v, "--memory", p->memory_bytes);
        rc |= argv_push_num(v, "--fsize", p->fsize_bytes);
        rc |= argv_push_num(v, "--tmpfs-size", p->tmpfs_bytes);
        return rc ? -1 : 0;
}

int helper_run(const struct run_params *rp, struct strvec *v)
{
        int rc = strvec_push(v, "--timeout");

        rc |= strvec_pushf(v, "%lld.%03lld", rp->timeout_ms / 1000,
                           rp->timeout_ms % 1000);
        rc |= argv_push_num(v, "--cpu", rp->cpu_s);
        /* the helper takes a limit's last value: the run's over the prefix's */
        if (rp->memory_bytes < 0)
                rc |= strvec_extend(v, (const char *[]){ "--memory", "none", NULL });
        else if (rp->memory_bytes > 0)
                rc |= argv_push_num(v, "--memory", rp->memory_bytes);
        if (rp->fsize_bytes > 0)
                rc |= argv_push_num(v, "--fsize", rp->fsize_bytes);
        for (const char *const *b = rp->ro_binds; b && *b; b++)
                rc |= strvec_extend(v, (const char *[]){ "--ro-bind", *b, NULL });
        if (rp->private_workdir) {
                rc |= strvec_extend(v, (const char *[]){ "--private-workdir",
                                                         rp->workdir, NULL });
                for (const char *const *f = rp->workdir_files; f && *f; f++) {
                        rc |= strvec_push(v, "--ro-bind");
                        rc |= strvec_pushf(v, "%s/%s", rp->workdir, *f);
                }
        } else {
                rc |= strvec_extend(v, (const char *[]){ "--workdir", rp->workdir, NULL });
        }
        for (char *const *e = rp->env; e && *e; e++)
                rc |= strvec_extend(v, (const char *[]){ "--env", *e, NULL });
        rc |= argv_push_num(v, "--status-fd", CHILD_FD_EXTRA);
        return rc ? -1 : 0;
}

/* --zygote: the helper checks the program is sbx's zygote, keeps it the
 * capabilities docs/warm.md lists in its own user namespace, and installs
 * no seccomp filter on it (its per-sample children do). */
int helper_zygote(const struct tier_params *p, const struct zygote_params *zp, struct strvec *v)
{
        int rc = helper_prefix(p, v);

        rc |= strvec_extend(v, (const char *[]){ "--zygote", "--timeout", NULL });
        rc |= strvec_pushf(v, "%lld.%03lld", zp->lifetime_ms / 1000, zp->lifetime_ms % 1000);
        rc |= argv_push_num(v, "--cpu", zp->cpu_s);
        if (zp->nproc > 0)
                rc |= argv_push_num(v, "--nproc", zp->nproc);
        for (char *const *e = zp->env; e && *e; e++)
                rc |= strvec_extend(v, (const char *[]){ "--env", *e, NULL });
        rc |= strvec_push(v, "--");
        rc |= strvec_extend(v, (const char *const *)zp->argv);
        return rc ? -1 : 0;
}

/* The whole tree's cpu and peak RSS, which only the helper sees inside its
 * pid namespace, and the signal that ended a timed-out run. */
static void helper_accounting(struct run_result *res, const cJSON *j, int final)
{
        if (j) {
                res->cpu_s = json_get_num(j, "cpu_s", res->cpu_s);
                res->max_rss_kb = (long)json_get_num(j, "max_rss_kb", res->max_rss_kb);
        }
        if (final && res->status == RUN_TIMEOUT) {
                int killsig = (int)json_get_num(j, "signal", 0);
                res->signal = killsig > 0 ? killsig : SIGKILL;
                res->returncode = -res->signal;
        }
}

/* Returns 1 when the verdict is final (error/timeout), else 0 with
 * *code and *sig set from the helper's report. */
int helper_classify(struct run_result *res, const char *text, int *code, int *sig)
{
        cJSON *j = cJSON_Parse(text);
        const cJSON *st = j ? cJSON_GetObjectItemCaseSensitive(j, "status") : NULL;
        const cJSON *msg = j ? cJSON_GetObjectItemCaseSensitive(j, "message") : NULL;
        const char *status = cJSON_IsString(st) ? st->valuestring : NULL;
        int final = 1;

        if (!status) {
                /* 3 (an exit: no signal): refused before its status fd worked */
                run_result_tool_failed(res, *code == 3 ? "helper setup failed" :
                                       "helper gave no status", *sig);
                /* 126, 127: the helper itself could not be executed;
                 * SIGSYS: a host's seccomp profile killed it (at its clone:
                 * the candidate's own end would have been reported) */
                res->never_started = *code == 3 || *code == 126 || *code == 127 ||
                                     *sig == SIGSYS;
        } else if (strcmp(status, "setup-error") == 0) {
                res->status = RUN_ERROR;
                /* Every setup error but this one comes before the program's
                 * exec; when init dies, the program may have run. */
                res->never_started = !(cJSON_IsString(msg) &&
                                       strcmp(msg->valuestring, HELPER_INIT_DIED) == 0);
                run_result_set_detail(res, "helper setup failed: ", cJSON_IsString(msg) ?
                                      msg->valuestring : run_result_stderr_reason(res));
        } else if (strcmp(status, "timeout") == 0) {
                res->status = RUN_TIMEOUT;
                run_result_set_detail(res, "", "wall");
        } else if (strcmp(status, "cpu-limit") == 0) {
                res->status = RUN_TIMEOUT;
                run_result_set_detail(res, "", "cpu-limit");
        } else {
                /* memory-limit is a signal death too (the OOM killer's SIGKILL,
                 * or a crash near RLIMIT_AS): never exit code 0. */
                bool killed = strcmp(status, "signaled") == 0 || strcmp(status, "memory-limit") == 0;

                final = 0;
                if (strcmp(status, "memory-limit") == 0)
                        run_result_set_detail(res, "", "memory-limit");
                *code = killed ? -1 : (int)json_get_num(j, "exit_code", *code);
                *sig = killed ? (int)json_get_num(j, "signal", 0) : 0;
        }
        helper_accounting(res, j, final);
        cJSON_Delete(j);
        return final;
}
