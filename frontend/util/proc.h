/* Starting children: one vfork+exec with rlimits, stdio and an fd
 * allow-list set in between; and a blocking capture for the unsandboxed
 * helpers (interpreter query, venv builds). */
#ifndef SBX_PROC_H
#define SBX_PROC_H

#include <stdbool.h>
#include <sys/types.h>

#include "err.h"
#include "output.h"       /* struct run_output */

struct proc_limits {
        long long cpu_s;                /* 0: unchanged */
        long long as_bytes;             /* <= 0: unchanged */
        long long fsize_bytes;          /* 0: unchanged */
        long long nproc;                /* 0: unchanged */
};

struct proc_spec {
        const char *path;               /* absolute */
        char *const *argv;
        char *const *envp;
        const char *chdir;              /* NULL: stay */
        int stdin_fd, stdout_fd, stderr_fd;
        int extra_fd[2];                /* become fds 3 and 4; -1: none */
        int data_fd;                    /* becomes fd 5 when above 2 (0: none) */
        int init_fd;                    /* becomes fd 6 when above 2 (0: none) */
        const struct proc_limits *limits; /* NULL: none */
};

/* Returns the pid, or -1 with err (exec failures are reported here too,
 * with the step that failed). The child is in a new session, gets SIGKILL
 * if sbx-run dies, and inherits no fd but 0, 1, 2 (and 3 to 6 when given). */
pid_t proc_spawn(const struct proc_spec *spec, struct sbx_err *err);

/* Runs argv unsandboxed with stdout+stderr captured (capped, tail kept)
 * and stdin /dev/null; envp NULL = our environment. Returns the wait
 * status, or -1 with err when it could not be started. */
int proc_capture(char *const *argv, char *const *envp, struct run_output *out,
                 size_t max_bytes, struct sbx_err *err);

/* Searches PATH (or the given search path) for an executable name;
 * malloc'd absolute path or NULL. */
char *proc_find_exe(const char *name, const char *search_path);

/* Reaps dead children that runs left behind (PR_SET_CHILD_SUBREAPER makes
 * them ours), and with kill_live kills and reaps the live ones: those from
 * session/process group `run_pid`, and, when `all` is set, every child
 * outside sbx-run's own session. Live run pids are in keep[0..nkeep). One
 * that cannot be killed (EPERM) is skipped, and none is waited for past a
 * second. Returns how many live ones were killed. */
int proc_sweep_orphans(pid_t run_pid, bool all, bool kill_live,
                       const pid_t *keep, size_t nkeep);

/* Waits up to max_ms for child pid to end and reaps it: 0, or -1 when it
 * has not ended (left for the orphan sweep): a child we cannot signal (a
 * setuid helper) must never hold sbx-run. */
int proc_reap_within(pid_t pid, int max_ms);

/* With no run in flight: waits up to max_ms for the children outside
 * sbx-run's session that are still ending (a helper's init finishes its
 * exit after the status line) and reaps them, so that their CPU counts as
 * ours and nothing of the session outlives it. */
void proc_reap_ending(int max_ms);

#endif
