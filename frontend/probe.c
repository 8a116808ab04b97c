/* Tier detection: a trivial `python -I -c pass` through each tier, with the
 * same interpreter, binds and limits the runs will use, strongest first. */
#include <cjson/cJSON.h>
#include <errno.h>
#include <sched.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "proc.h"
#include "util.h"
#include "run_internal.h"
#include "sandbox_impl.h"


static int set_why(struct sandbox *sb, enum tier t, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));
static int set_why(struct sandbox *sb, enum tier t, const char *fmt, ...)
{
        va_list ap;
        char *s = NULL;

        va_start(ap, fmt);
        if (vasprintf(&s, fmt, ap) < 0)
                s = NULL;
        va_end(ap);
        free(sb->tier_why[t]);
        sb->tier_why[t] = s;
        return 0;
}

static long read_sysctl(const char *path)
{
        FILE *fp = fopen(path, "re");
        long v = -1;

        if (fp) {
                if (fscanf(fp, "%ld", &v) != 1)
                        v = -1;
                fclose(fp);
        }
        return v;
}

/* The seccomp and LSM refusals no sysctl shows: try, in a child. */
static bool userns_can_create(void)
{
        int status;
        pid_t pid = fork();

        if (pid < 0)
                return true;            /* unknown: say nothing rather than guess */
        if (pid == 0)
                _exit(unshare(CLONE_NEWUSER) == 0 ? 0 : 1);
        if (waitpid(pid, &status, 0) < 0)
                return true;
        return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

/* Why unprivileged user namespaces fail here, or NULL. */
static const char *userns_blocker(void)
{
        if (read_sysctl("/proc/sys/user/max_user_namespaces") == 0)
                return "user namespaces are disabled (/proc/sys/user/max_user_namespaces "
                       "is 0; raise it with sysctl user.max_user_namespaces)";
        if (read_sysctl("/proc/sys/kernel/unprivileged_userns_clone") == 0)
                return "unprivileged user namespaces are disabled (sysctl "
                       "kernel.unprivileged_userns_clone=1 enables them)";
        if (read_sysctl("/proc/sys/kernel/apparmor_restrict_unprivileged_userns") == 1)
                return "AppArmor restricts unprivileged user namespaces (sysctl "
                       "kernel.apparmor_restrict_unprivileged_userns=0, or an "
                       "AppArmor profile for bwrap)";
        if (!userns_can_create())
                return "user namespaces cannot be created here although no sysctl "
                       "forbids them (a seccomp profile, e.g. a container's, or an LSM "
                       "refuses them); the helper tier does not need them";
        return NULL;
}

static int missing_tool(struct sandbox *sb, enum tier t)
{
        struct sbx_err err = { 0 };

        if (sandbox_tier_ready(sb, t, &err) < 0)
                return set_why(sb, t, "%s", err.msg) + 1;
        if (t == TIER_HELPER) {
                if (access(sb->tool[t], X_OK) == 0)
                        return 0;
                return set_why(sb, t, "sbx-helper not installed at %s (%s; install it "
                               "with `make install` as root, or point SBX_HELPER at it)",
                               sb->tool[t], strerror(errno)) + 1;
        }
        /* bwrap never runs without the seccomp program (sandbox.c) */
        if (t == TIER_BWRAP && sb->tool[t] && sb->seccomp_fd < 0)
                return set_why(sb, t, "the seccomp program cannot be handed to bwrap (%s), "
                               "and bwrap is never run without it",
                               sb->seccomp_why ? sb->seccomp_why : "unknown") + 1;
        if (t == TIER_RLIMIT || sb->tool[t])
                return 0;
        return set_why(sb, t, "%s not found on PATH%s",
                       t == TIER_BWRAP ? "bwrap" : "unshare",
                       t == TIER_BWRAP ? " (apt install bubblewrap)" : " (util-linux)") + 1;
}

/* Why a tier's run (a probe, or a real run that was its probe) failed. */
static void set_failure_why(struct sandbox *sb, enum tier t, const struct run_result *res)
{
        auto_free char *summary = run_result_summary(res);
        const char *ns = (t == TIER_BWRAP || t == TIER_UNSHARE ||
                          t == TIER_UNSHARE_ROOT) ? userns_blocker() : NULL;

        set_why(sb, t, "%s%s%s", ns ? ns : "", ns ? "; " : "", summary ? summary : "failed");
}

int probe_tier(struct sandbox *sb, enum tier t)
{
        struct run_result res;
        struct sbx_err err = { 0 };
        auto_free char *dir = NULL;

        if (sb->tier_probed[t])
                return sb->tier_ok[t];
        sb->tier_probed[t] = true;
        if (missing_tool(sb, t))
                return 0;
        dir = sandbox_mkdtemp(sb, &err);
        if (!dir)
                return set_why(sb, t, "%s", err.msg);
        char *argv[] = { sb->python, "-I", "-c", "pass", NULL };
        struct run_spec spec = {
                .argv = argv, .workdir = dir, .private_workdir = true,
                .timeout_ms = PROBE_TIMEOUT_MS,
        };
        if (run_tier_sync(sb, t, &spec, &res, &err) < 0)
                return set_why(sb, t, "%s", err.msg);
        sb->tier_ok[t] = res.status == RUN_OK;
        rmdir(dir);
        if (!sb->tier_ok[t])
                set_failure_why(sb, t, &res);
        run_result_free(&res);
        return sb->tier_ok[t];
}

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
                if (!sb->tier_probed[t] && missing_tool(sb, t))
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
        set_failure_why(sb, t, res);
        sb->tier = TIER_NONE;
        return probe_choose(sb, err) < 0 ? -1 : 1;
}

int probe_choose(struct sandbox *sb, struct sbx_err *err)
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
                if (!probe_tier(sb, force)) {
                        snprintf(what, sizeof(what), "--tier %s does not work here",
                                 tier_name(force));
                        return refuse(sb, force, what, err);
                }
                sb->tier = force;
        }
        for (int t = 0; sb->tier == TIER_NONE && t < TIER_COUNT; t++) {
                if (require != TIER_NONE && !tier_at_least((enum tier)t, require))
                        break;
                if (probe_tier(sb, (enum tier)t))
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

/* `sbx-helper --probe` says why the helper refuses this caller (not
 * setuid, not in the group, config refused): its JSON, or NULL. */
static cJSON *helper_self_probe(const char *helper)
{
        char *argv[] = { (char *)helper, "--probe", NULL };
        struct run_output out;
        struct sbx_err err;
        cJSON *j = NULL;

        if (access(helper, X_OK) < 0 || proc_capture(argv, NULL, &out, 65536, &err) < 0)
                return NULL;
        if (out.data) {
                char *brace = strchr(out.data, '{');
                j = brace ? cJSON_Parse(brace) : NULL;
        }
        free(out.data);
        return j;
}

int sandbox_helper_ceilings(const struct sandbox *sb, double *timeout_s, double *cpu_s)
{
        cJSON *hp;
        const cJSON *c;

        *timeout_s = *cpu_s = 0;
        if (sb->tier != TIER_HELPER || !sb->tool[TIER_HELPER] ||
            !(hp = helper_self_probe(sb->tool[TIER_HELPER])))
                return 0;
        c = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(hp, "config"),
                                             "ceilings");
        *timeout_s = json_get_num(c, "timeout", 0);
        *cpu_s = json_get_num(c, "cpu", 0);
        cJSON_Delete(hp);
        return 1;
}

/* The helper's own explanation: the first string field that says why. */
static const char *helper_reason(const cJSON *probe)
{
        const char *keys[] = { "reason", "why", "error", "message", "problem" };

        for (size_t i = 0; probe && i < sizeof(keys) / sizeof(*keys); i++) {
                const cJSON *v = cJSON_GetObjectItemCaseSensitive(probe, keys[i]);
                if (cJSON_IsString(v) && v->valuestring[0])
                        return v->valuestring;
        }
        return NULL;
}

static void report_text(struct sandbox *sb, const cJSON *hp, FILE *fp)
{
        fprintf(fp, "interpreter: %s\n", sb->python);
        for (int t = 0; t < TIER_COUNT; t++) {
                fprintf(fp, "%-13s %s", tier_name((enum tier)t),
                        sb->tier_ok[t] ? "works" : "does not work");
                if (!sb->tier_ok[t] && sb->tier_why[t])
                        fprintf(fp, ": %s", sb->tier_why[t]);
                if (t == TIER_HELPER && !sb->tier_ok[t] && helper_reason(hp))
                        fprintf(fp, " (sbx-helper --probe: %s)", helper_reason(hp));
                fputc('\n', fp);
        }
        for (int t = 0; t < TIER_COUNT; t++) {
                if (sb->tier_ok[t]) {
                        fprintf(fp, "best: %s\n", tier_name((enum tier)t));
                        break;
                }
        }
}

static void report_json(struct sandbox *sb, cJSON *hp, FILE *fp)
{
        cJSON *root = cJSON_CreateObject(), *tiers = cJSON_AddArrayToObject(root, "tiers");
        const char *best = NULL;

        cJSON_AddStringToObject(root, "interpreter", sb->python);
        for (int t = 0; t < TIER_COUNT; t++) {
                cJSON *o = cJSON_CreateObject();
                cJSON_AddStringToObject(o, "tier", tier_name((enum tier)t));
                cJSON_AddBoolToObject(o, "works", sb->tier_ok[t]);
                if (!sb->tier_ok[t])
                        cJSON_AddStringToObject(o, "why", sb->tier_why[t] ? sb->tier_why[t] : "");
                if (t == TIER_BWRAP)
                        cJSON_AddBoolToObject(o, "seccomp", sb->seccomp_fd >= 0);
                if (t == TIER_HELPER && hp)
                        cJSON_AddItemToObject(o, "helper_probe", cJSON_Duplicate(hp, 1));
                cJSON_AddItemToArray(tiers, o);
                if (!best && sb->tier_ok[t])
                        best = tier_name((enum tier)t);
        }
        if (best)
                cJSON_AddStringToObject(root, "best", best);
        else
                cJSON_AddNullToObject(root, "best");
        char *text = cJSON_PrintUnformatted(root);
        if (text)
                fprintf(fp, "%s\n", text);
        free(text);
        cJSON_Delete(root);
}

int probe_report(struct sandbox *sb, bool json, FILE *fp)
{
        bool any = false;
        cJSON *hp;

        for (int t = 0; t < TIER_COUNT; t++)
                any |= probe_tier(sb, (enum tier)t) != 0;
        hp = sb->tier_ok[TIER_HELPER] ? NULL : helper_self_probe(sb->tool[TIER_HELPER]);
        if (json)
                report_json(sb, hp, fp);
        else
                report_text(sb, hp, fp);
        cJSON_Delete(hp);
        return any ? 0 : -1;
}
