/* sbx-run-init --exec PROGRAM [ARG]...: pid 1 of a cold bwrap run (`bwrap
 * --as-pid-1`, frontend/sandbox/tiers/tier_bwrap.c). bwrap's own pid 1 had
 * the sample's uid and was dumpable: a sample rewrote it through
 * /proc/1/mem, cleared its death signal, wrote "exit 0" for itself to
 * bwrap's monitor and outlived the run. This init is non-dumpable before
 * the program exists (no /proc/1/mem, fds, environ or ptrace for the run;
 * kill from inside the run is dropped, as for any pid 1 without handlers),
 * runs it, reaps every process the run orphans, and when the program ends
 * kills the rest, reaps it and exits with the program's status as bwrap
 * reports a child's (the code, or 128 + the signal). bwrap's monitor,
 * outside the run's pid namespace, takes that from the kernel's wait
 * status: nothing in the run can write it. bwrap has set no_new_privs, its
 * seccomp filter (which refuses prlimit on another process) and the death
 * signal, and dropped every capability: checked, never assumed. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "run_init.h"

#define EXEC_FAILED 127         /* as a shell's: the program could not be run */

static int exit_code_of(int status)
{
        if (WIFEXITED(status))
                return WEXITSTATUS(status);
        return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : 255;
}

static __attribute__((noreturn)) void run_program(char **argv)
{
        execvp(argv[0], argv);
        dprintf(STDERR_FILENO, "sbx-run-init: %s: %s\n", argv[0], strerror(errno));
        _exit(EXEC_FAILED);
}

void init_exec(char **argv)
{
        int status = 0, code = EXEC_FAILED;
        pid_t program, pid;

        if (prctl(PR_SET_DUMPABLE, 0) < 0)
                init_die(errno, "PR_SET_DUMPABLE");
        if (!argv[0])
                init_die(0, "--exec: no program");
        init_check_confined();
        /* the fd it was started from, and anything else bwrap passed on */
        if (syscall(SYS_close_range, 3U, ~0U, 0) < 0)
                init_die(errno, "close_range");
        program = fork();
        if (program < 0)
                init_die(errno, "fork the program");
        if (program == 0)
                run_program(argv);
        while ((pid = waitpid(-1, &status, 0)) > 0 || errno == EINTR) {
                if (pid == program) {
                        code = exit_code_of(status);
                        if (kill(-1, SIGKILL) < 0 && errno != ESRCH)
                                init_die(errno, "kill the run");
                }
        }
        if (errno != ECHILD)
                init_die(errno, "reap the run");
        _exit(code);
}
