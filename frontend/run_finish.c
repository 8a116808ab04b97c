/* Ending a run: reap it, take it off the session's list, and turn the wait
 * status and the tier's own status report (helper status JSON, bwrap
 * --json-status-fd) into a run_result. run.c calls in here, never the
 * other way round. */
#include <cjson/cJSON.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "run_internal.h"
#include "sandbox_impl.h"
#include "trace.h"
#include "util.h"

#define CPU_SLACK_S 0.05        /* rusage rounding against the rlimit */
/* helper/supervise.c's message when init died before the candidate ended */
#define HELPER_INIT_DIED "sandbox init died"

void run_free(struct sbx_run *r)
{
        int *fds[] = { &r->out_fd, &r->err_fd, &r->status_fd, &r->pidfd };

        for (size_t i = 0; i < 4; i++)
                if (*fds[i] >= 0)
                        close(*fds[i]);
        free(r->workdir);
        run_result_free(&r->res);
        free(r);
}

static void run_unlink(struct sandbox *sb, struct sbx_run *r)
{
        for (struct sbx_run **p = &sb->runs; *p; p = &(*p)->next) {
                if (*p == r) {
                        *p = r->next;
                        sb->runs_in_flight--;
                        return;
                }
        }
}

void run_kill_tree(struct sbx_run *r)
{
        if (r->pid > 0 && !r->reaped) {
                kill(-r->pid, SIGKILL);
                kill(r->pid, SIGKILL);
        }
}

/* For finish without a reaped child: kill the tree and wait for it. */
static void run_reap_blocking(struct sbx_run *r)
{
        int status;

        if (r->reaped || r->pid <= 0)
                return;
        run_kill_tree(r);
        while (wait4(r->pid, &status, 0, &r->ru) < 0)
                if (errno != EINTR)
                        return;
        r->reaped = true;
        r->wait_status = status;
        r->end_ms = sbx_now_ms();
}

static void set_detail(struct run_result *res, const char *prefix, const char *text)
{
        size_t len = strcspn(text, "\n");

        snprintf(res->detail, sizeof(res->detail), "%s%.*s", prefix, (int)len, text);
}

/* The last non-empty stderr line: why a tier's own setup failed. */
static const char *stderr_reason(const struct run_result *res)
{
        const char *s = res->err.tail;
        const char *end = s + res->err.tail_len;

        while (end > s && (end[-1] == '\n' || end[-1] == ' '))
                end--;
        const char *start = end;
        while (start > s && start[-1] != '\n')
                start--;
        return start < end ? start : "no message";
}

/* Returns 1 when the verdict is final (error/timeout), else 0 with
 * *code and *sig set from the helper's report. */
static int classify_helper(struct run_result *res, const char *text, int *code,
                           int *sig)
{
        cJSON *j = cJSON_Parse(text);
        const cJSON *st = j ? cJSON_GetObjectItemCaseSensitive(j, "status") : NULL;
        const cJSON *msg = j ? cJSON_GetObjectItemCaseSensitive(j, "message") : NULL;
        const char *status = cJSON_IsString(st) ? st->valuestring : NULL;
        int final = 1;

        if (!status) {
                res->status = RUN_ERROR;
                /* 3: refused before its status fd worked; 126, 127: the
                 * helper itself could not be executed; SIGSYS: a host's
                 * seccomp profile killed it (at its clone: the candidate's
                 * own end would have been reported) */
                res->never_started = *code == 3 || *code == 126 || *code == 127 ||
                                     *sig == SIGSYS;
                if (*code == 3)
                        set_detail(res, "helper setup failed: ", stderr_reason(res));
                else if (*sig)
                        snprintf(res->detail, sizeof(res->detail),
                                 "helper gave no status: killed by %s", strsignal(*sig));
                else
                        set_detail(res, "helper gave no status: ", stderr_reason(res));
        } else if (strcmp(status, "setup-error") == 0) {
                res->status = RUN_ERROR;
                /* Every setup error but this one comes before the program's
                 * exec; when init dies, the program may have run. */
                res->never_started = !(cJSON_IsString(msg) &&
                                       strcmp(msg->valuestring, HELPER_INIT_DIED) == 0);
                set_detail(res, "helper setup failed: ",
                           cJSON_IsString(msg) ? msg->valuestring : stderr_reason(res));
        } else if (strcmp(status, "timeout") == 0) {
                res->status = RUN_TIMEOUT;
                set_detail(res, "", "wall");
        } else if (strcmp(status, "cpu-limit") == 0) {
                res->status = RUN_TIMEOUT;
                set_detail(res, "", "cpu-limit");
        } else {
                /* memory-limit is a signal death too (the OOM killer's SIGKILL,
                 * or a crash near RLIMIT_AS): never exit code 0. */
                bool killed = strcmp(status, "signaled") == 0 || strcmp(status, "memory-limit") == 0;

                final = 0;
                if (strcmp(status, "memory-limit") == 0)
                        set_detail(res, "", "memory-limit");
                *code = killed ? -1 : (int)json_get_num(j, "exit_code", *code);
                *sig = killed ? (int)json_get_num(j, "signal", 0) : 0;
        }
        if (j) {
                res->cpu_s = json_get_num(j, "cpu_s", res->cpu_s);
                res->max_rss_kb = (long)json_get_num(j, "max_rss_kb", res->max_rss_kb);
        }
        if (final && res->status == RUN_TIMEOUT) {
                int killsig = (int)json_get_num(j, "signal", 0);
                res->signal = killsig > 0 ? killsig : SIGKILL;
                res->returncode = -res->signal;
        }
        cJSON_Delete(j);
        return final;
}

/* bwrap reports {"child-pid": N} once the sandbox is up and
 * {"exit-code": N} (128 + signal for a signaled child) at the end. */
static int classify_bwrap(struct run_result *res, const char *text, int *code,
                          int *sig)
{
        bool started = strstr(text, "\"child-pid\"") != NULL;
        const char *ec = strstr(text, "\"exit-code\"");
        int n;

        /* bwrap writes child-pid just before it runs the program: without
         * it the program never started, whatever ended bwrap (its exit, or
         * a signal such as a host filter's SIGSYS) */
        if (!started) {
                res->status = RUN_ERROR;
                res->never_started = true;
                if (*sig)
                        snprintf(res->detail, sizeof(res->detail),
                                 "bwrap setup failed: killed by %s", strsignal(*sig));
                else
                        set_detail(res, "bwrap setup failed: ", stderr_reason(res));
                return 1;
        }
        if (ec && sscanf(ec, "\"exit-code\" : %d", &n) == 1) {
                if (n > 128 && n < 128 + 32) {
                        *sig = n - 128;
                        *code = -1;
                } else {
                        *code = n;
                }
        }
        return 0;
}

/* Without the start marker the shim never ran the program: unshare failed. */
static int classify_unshare(struct run_result *res, const char *text, int sig)
{
        if (strstr(text, START_MARKER))
                return 0;
        res->status = RUN_ERROR;
        res->never_started = true;
        if (sig)
                snprintf(res->detail, sizeof(res->detail),
                         "unshare setup failed: killed by %s", strsignal(sig));
        else
                set_detail(res, "unshare setup failed: ", stderr_reason(res));
        return 1;
}

void run_classify(struct run_result *res, enum tier t, int wait_status,
                  const char *status_text, bool killed_wall, bool interrupted,
                  long long cpu_limit_s)
{
        int code = WIFEXITED(wait_status) ? WEXITSTATUS(wait_status) : -1;
        int sig = WIFSIGNALED(wait_status) ? WTERMSIG(wait_status) : 0;

        res->tier = t;
        if (interrupted || killed_wall) {
                res->status = interrupted ? RUN_ERROR : RUN_TIMEOUT;
                res->returncode = -SIGKILL;
                res->signal = SIGKILL;
                set_detail(res, "", interrupted ? "interrupted" : "wall");
                return;
        }
        if (t == TIER_HELPER && classify_helper(res, status_text, &code, &sig))
                return;
        if (t == TIER_BWRAP && classify_bwrap(res, status_text, &code, &sig))
                return;
        if ((t == TIER_UNSHARE || t == TIER_UNSHARE_ROOT) &&
            classify_unshare(res, status_text, sig))
                return;
        res->signal = sig;
        res->returncode = sig ? -sig : code;
        if (sig == SIGXCPU || (sig == SIGKILL && res->cpu_s + CPU_SLACK_S >= cpu_limit_s)) {
                res->status = RUN_TIMEOUT;
                set_detail(res, "", "cpu-limit");
        } else {
                res->status = (sig == 0 && code == 0) ? RUN_OK : RUN_FAILED;
        }
}

void sbx_run_finish(struct sbx_run *r, struct run_result *res)
{
        struct timeval ut, st;

        run_reap_blocking(r);
        ut = r->ru.ru_utime;
        st = r->ru.ru_stime;
        output_capture_finish(&r->out_cap);
        output_capture_finish(&r->err_cap);
        r->status_buf[r->status_len] = '\0';
        r->res.duration_s = (double)((r->end_ms ? r->end_ms : sbx_now_ms()) -
                                     r->start_ms) / 1000.0;
        r->res.cpu_s = (double)(ut.tv_sec + st.tv_sec) +
                       (double)(ut.tv_usec + st.tv_usec) / 1e6;
        r->res.max_rss_kb = r->ru.ru_maxrss;
        run_classify(&r->res, r->tier, r->wait_status, r->status_buf,
                     r->killed_wall, r->interrupted, r->cpu_limit_s);
        *res = r->res;
        memset(&r->res, 0, sizeof(r->res));
        run_unlink(r->sb, r);
        run_free(r);
        sbx_trace("classified");
}
