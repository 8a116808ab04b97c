/* Ending a run: reap it, take it off the session's list, and turn the wait
 * status and the tier's own status report (helper status JSON, bwrap
 * --json-status-fd, a zygote's status line) into a run_result. run.c calls
 * in here, never the other way round. */
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

void run_free(struct sbx_run *r)
{
        int *fds[] = { &r->out_fd, &r->err_fd, &r->status_fd, &r->pidfd, &r->stdin_fd };

        for (size_t i = 0; i < 5; i++)
                if (*fds[i] >= 0)
                        close(*fds[i]);
        free(r->workdir);
        run_warm_free(r->warm);
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

void run_classify(struct run_result *res, enum tier t, int wait_status,
                  const char *status_text, bool killed_wall, bool interrupted,
                  long long cpu_limit_s)
{
        const struct tier_ops *o = tier_ops(t);

        run_classify_with(res, t, o ? o->classify : NULL, wait_status, status_text,
                          killed_wall, interrupted, cpu_limit_s);
}

void run_classify_with(struct run_result *res, enum tier t,
                       int (*classify)(struct run_result *, const char *, int *, int *),
                       int wait_status, const char *status_text, bool killed_wall,
                       bool interrupted, long long cpu_limit_s)
{
        int code = WIFEXITED(wait_status) ? WEXITSTATUS(wait_status) : -1;
        int sig = WIFSIGNALED(wait_status) ? WTERMSIG(wait_status) : 0;

        res->tier = t;
        if (interrupted || killed_wall) {
                res->status = interrupted ? RUN_ERROR : RUN_TIMEOUT;
                res->returncode = -SIGKILL;
                res->signal = SIGKILL;
                run_result_set_detail(res, "", interrupted ? "interrupted" : "wall");
                return;
        }
        if (classify && classify(res, status_text, &code, &sig))
                return;
        res->signal = sig;
        res->returncode = sig ? -sig : code;
        if (sig == SIGXCPU || (sig == SIGKILL && res->cpu_s + CPU_SLACK_S >= cpu_limit_s)) {
                res->status = RUN_TIMEOUT;
                run_result_set_detail(res, "", "cpu-limit");
        } else {
                res->status = (sig == 0 && code == 0) ? RUN_OK : RUN_FAILED;
        }
}

/* The signals a stop (Ctrl-C, kill, a scheduler's cancel) sends to every
 * process of a job; sbx's own kills are SIGKILL. */
static bool is_stop_signal(int sig)
{
        return sig == SIGTERM || sig == SIGINT || sig == SIGHUP;
}

/* Past stdout's limit the run was stopped for it (whatever it died of),
 * unless it was interrupted; a file of the caller's that could not be
 * written makes the result sbx's error, not the program's. */
static void classify_output(struct sbx_run *r)
{
        if (r->stdout_errno) {
                r->res.status = RUN_ERROR;
                snprintf(r->res.detail, sizeof(r->res.detail), "writing stdout to its file: %s",
                         strerror(r->stdout_errno));
        } else if (r->output_limited && !r->interrupted) {
                r->res.output_limited = true;
                r->res.status = RUN_FAILED;
                run_result_set_detail(&r->res, "", "output-limit");
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
        run_classify_with(&r->res, r->tier->id, r->backend->classify ? r->backend->classify :
                          r->tier->classify, r->wait_status, r->status_buf,
                          r->killed_wall, r->interrupted, r->cpu_limit_s);
        r->res.stop_signal = is_stop_signal(r->res.signal) ||
                (r->pid >= 0 && WIFSIGNALED(r->wait_status) && is_stop_signal(WTERMSIG(r->wait_status)));
        classify_output(r);
        *res = r->res;
        memset(&r->res, 0, sizeof(r->res));
        run_unlink(r->sb, r);
        run_free(r);
        sbx_trace("classified");
}
