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

int probe_tool_missing(struct sandbox *sb, enum tier t)
{
        const struct tier_ops *o = tier_ops(t);
        struct sbx_err err = { 0 };

        if (sandbox_tier_ready(sb, t, &err) < 0)
                return set_why(sb, t, "%s", err.msg) + 1;
        if (o->tool_path) {     /* a fixed install path */
                if (access(sb->tool[t], X_OK) == 0)
                        return 0;
                return set_why(sb, t, "%s not installed at %s (%s; %s)", o->tool,
                               sb->tool[t], strerror(errno), o->tool_hint) + 1;
        }
        /* bwrap never runs without the seccomp program (tier_tool.c) */
        if (o->needs_seccomp && sb->tool[t] && sb->seccomp_fd < 0)
                return set_why(sb, t, "the seccomp program cannot be handed to %s (%s), "
                               "and %s is never run without it", o->tool,
                               sb->seccomp_why ? sb->seccomp_why : "unknown", o->tool) + 1;
        /* nor without sbx-run-init as its pid 1 (tier_bwrap.c) */
        if (o->runs_init && sb->tool[t] && sb->init_fd < 0)
                return set_why(sb, t, "sbx-run-init cannot be handed to %s (%s), and %s is never "
                               "run with a pid 1 of its own", o->tool,
                               sb->init_why ? sb->init_why : "unknown", o->tool) + 1;
        if (!o->tool || sb->tool[t])
                return 0;
        return set_why(sb, t, "%s not found on PATH%s", o->tool, o->tool_hint) + 1;
}

/* Why a tier's run (a probe, or a real run that was its probe) failed. */
void probe_note_failure(struct sandbox *sb, enum tier t, const struct run_result *res)
{
        auto_free char *summary = run_result_summary(res);
        const char *ns = tier_ops(t)->uses_userns ? userns_blocker() : NULL;

        set_why(sb, t, "%s%s%s", ns ? ns : "", ns ? "; " : "", summary ? summary : "failed");
}

static int probe_tier(struct sandbox *sb, enum tier t)
{
        struct run_result res;
        struct sbx_err err = { 0 };
        auto_free char *dir = NULL;

        if (sb->tier_probed[t])
                return sb->tier_ok[t];
        sb->tier_probed[t] = true;
        if (probe_tool_missing(sb, t))
                return 0;
        dir = sandbox_mkdtemp(sb, &err);
        if (!dir)
                return set_why(sb, t, "%s", err.msg);
        char *argv[] = { sb->python, "-I", "-c", "pass", NULL };
        struct run_spec spec = {
                .argv = argv, .workdir = dir, .private_workdir = true,
                .timeout_ms = PROBE_TIMEOUT_MS,
        };
        if (run_tier_sync(sb, tier_ops(t), &spec, NULL, &res, &err) < 0)
                return set_why(sb, t, "%s", err.msg);
        sb->tier_ok[t] = res.status == RUN_OK;
        rmdir(dir);
        if (!sb->tier_ok[t])
                probe_note_failure(sb, t, &res);
        run_result_free(&res);
        return sb->tier_ok[t];
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

/* `TOOL --probe` says why a tier that does not work refuses this caller
 * (the helper: not setuid, not in the group, config refused): its JSON,
 * or NULL. */
static cJSON *self_probe(const struct sandbox *sb, const struct tier_ops *o)
{
        return sb->tier_ok[o->id] ? NULL : sandbox_tool_json(sb->tool[o->id], o->self_probe_arg);
}

static void report_text(struct sandbox *sb, FILE *fp)
{
        const char *best = NULL;

        fprintf(fp, "interpreter: %s\n", sb->python);
        for_each_tier(o) {
                bool ok = sb->tier_ok[o->id];
                const char *why = sb->tier_why[o->id];
                cJSON *hp = self_probe(sb, o);

                fprintf(fp, "%-13s %s", o->name, ok ? "works" : "does not work");
                if (!ok && why)
                        fprintf(fp, ": %s", why);
                if (helper_reason(hp))
                        fprintf(fp, " (%s --probe: %s)", o->tool, helper_reason(hp));
                fputc('\n', fp);
                cJSON_Delete(hp);
                if (!best && ok)
                        best = o->name;
        }
        if (best)
                fprintf(fp, "best: %s\n", best);
}

static void report_json(struct sandbox *sb, FILE *fp)
{
        cJSON *root = cJSON_CreateObject(), *tiers = cJSON_AddArrayToObject(root, "tiers");
        const char *best = NULL;
        char key[64];

        cJSON_AddStringToObject(root, "interpreter", sb->python);
        for_each_tier(o) {
                bool ok = sb->tier_ok[o->id];
                cJSON *j = cJSON_CreateObject(), *hp = self_probe(sb, o);
                const char *why = sb->tier_why[o->id];

                cJSON_AddStringToObject(j, "tier", o->name);
                cJSON_AddBoolToObject(j, "works", ok);
                if (!ok)
                        cJSON_AddStringToObject(j, "why", why ? why : "");
                if (o->needs_seccomp)
                        cJSON_AddBoolToObject(j, "seccomp", sb->seccomp_fd >= 0);
                snprintf(key, sizeof(key), "%s_probe", o->name);   /* "helper_probe" */
                if (hp)
                        cJSON_AddItemToObject(j, key, hp);
                cJSON_AddItemToArray(tiers, j);
                if (!best && ok)
                        best = o->name;
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

static int probe_report(struct sandbox *sb, bool json, FILE *fp)
{
        bool any = false;

        for_each_tier(o)
                any |= probe_tier(sb, o->id) != 0;
        if (json)
                report_json(sb, fp);
        else
                report_text(sb, fp);
        return any ? 0 : -1;
}

int sandbox_probe_report(const struct sandbox_opts *opts, bool json, FILE *fp,
                         struct sbx_err *err)
{
        struct sandbox *sb;
        int rc;

        if (sandbox_prepare(&sb, opts, err) < 0)
                return -1;
        rc = probe_report(sb, json, fp);
        sandbox_close(sb);
        return rc == 0 ? 0 : 1;
}

const struct tier_prober probe_real = {
        .probe = probe_tier, .tool_missing = probe_tool_missing,
        .note_failure = probe_note_failure,
};
