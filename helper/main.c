/* sbx-helper: runs one program in a fresh sandbox as the calling user.
 * The phases, in order; each dies on failure, so nothing half set up runs. */
#include <sys/sysmacros.h>

#include "helper.h"

#define USAGE "usage: sbx-helper [options] [--zygote] -- PROGRAM [ARG]... | --probe | --version"

/* From here on a failure is also reported as a setup-error status line. */
static bool use_status_fd(const struct request *rq)
{
        if (rq->status_fd < 0 || fcntl(rq->status_fd, F_GETFD) < 0)
                return false;
        die_report_to(rq->status_fd, NULL);
        return true;
}

/* fds 0-2 reach the candidate: a directory or device there would be a handle
 * on the host (`< $HOME`: /proc/self/fd/0/..). Files, pipes, sockets (ssh,
 * systemd, Slurm), terminals and /dev/null only; a closed one stays closed. */
static void check_stdio(void)
{
        struct stat st;

        for (int fd = 0; fd <= 2; fd++) {
                if (fstat(fd, &st) < 0) {
                        if (errno == EBADF)
                                continue;
                        die_errno("fd %d", fd);
                }
                if (S_ISREG(st.st_mode) || S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode) ||
                    (S_ISCHR(st.st_mode) && (st.st_rdev == makedev(1, 3) || isatty(fd))))
                        continue;
                die("fd %d is not a file, pipe, socket, terminal or /dev/null (a directory?): refused", fd);
        }
}

int main(int argc, char *argv[])
{
        char err[SBX_ERRLEN];
        struct request rq;
        struct config cfg;
        struct caller who;
        const char *trace_env = getenv("SBX_TRACE");
        long long trace_ns = trace_env ? strtoll(trace_env, NULL, 10) : 0;

        /* Before anything else: no core dumps or ptrace of a setuid process,
         * and nothing from the caller's environment steers us. */
        if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0)
                die_errno("PR_SET_DUMPABLE");
        if (clearenv() != 0)
                die("cannot clear the environment");
        trace_mark(trace_ns, "main");
        if (request_parse(&rq, argc, argv, err, sizeof(err)) < 0) {
                use_status_fd(&rq);
                die("%s (" USAGE ")", err);
        }
        if (rq.mode == MODE_VERSION) {
                printf("sbx-helper %s\n", SBX_VERSION);
                return 0;
        }
        if (rq.mode == MODE_PROBE)
                probe_run();
        if (rq.status_fd >= 0 && !use_status_fd(&rq))
                die_errno("--status-fd %d", rq.status_fd);
        check_stdio();
        if (privs_check_installed(err, sizeof(err)) < 0)
                die("%s", err);
        if (config_load(&cfg, err, sizeof(err)) < 0)
                die("%s", err);
        if (privs_identify_caller(&cfg, &who, err, sizeof(err)) < 0)
                die("%s", err);
        if (config_apply_limits(&cfg, &rq, err, sizeof(err)) < 0)
                die("%s", err);
        trace_mark(trace_ns, "request, config, caller checked");
        /* The caller is known: from here on it may not signal or prlimit us. */
        privs_become_root(0);
        supervise_run(&rq, &cfg, &who, trace_ns);
}
