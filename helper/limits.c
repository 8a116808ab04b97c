/* rlimits of the candidate, and how its process count is capped per run. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include "helper.h"

/* Our own processes of the caller's uid (supervisor, init) that count
 * against a per-uid RLIMIT_NPROC on top of what the caller already runs. */
#define NPROC_HELPER_SLACK 4

/* Hosts (containers) may withhold CAP_SYS_RESOURCE even from root: then a
 * limit above the inherited hard limit is clamped to it, never raised. */
static void set_limit(int resource, const char *name, rlim_t soft, rlim_t hard)
{
        struct rlimit rl = { .rlim_cur = soft, .rlim_max = hard }, old;

        if (setrlimit(resource, &rl) == 0)
                return;
        if (errno != EPERM || getrlimit(resource, &old) < 0)
                die_errno("setrlimit %s", name);
        rl.rlim_max = hard < old.rlim_max ? hard : old.rlim_max;
        rl.rlim_cur = soft < rl.rlim_max ? soft : rl.rlim_max;
        if (setrlimit(resource, &rl) < 0)
                die_errno("setrlimit %s", name);
}

/* Set while still root, so hard limits may be raised past the caller's. */
void limits_apply_rlimits(const struct request *rq)
{
        rlim_t cpu_s = (rlim_t)((rq->limit[LIM_CPU] + 999) / 1000);
        rlim_t as = rq->limit[LIM_MEMORY] == SBX_LIMIT_NONE ? RLIM_INFINITY : (rlim_t)rq->limit[LIM_MEMORY];

        /* SIGXCPU at the soft limit, SIGKILL a second later. */
        set_limit(RLIMIT_CPU, "cpu", cpu_s, cpu_s + 1);
        set_limit(RLIMIT_AS, "as", as, as);
        set_limit(RLIMIT_FSIZE, "fsize", rq->limit[LIM_FSIZE], rq->limit[LIM_FSIZE]);
        set_limit(RLIMIT_NOFILE, "nofile", rq->limit[LIM_NOFILE], rq->limit[LIM_NOFILE]);
        set_limit(RLIMIT_CORE, "core", 0, 0);
        /* Lowered to the real cap once we know whether it counts per run. */
        set_limit(RLIMIT_NPROC, "nproc", RLIM_INFINITY, RLIM_INFINITY);
}

/* Processes of uid on the host, via a /proc opened before the pid
 * namespace. The owner of /proc/PID is the euid: close enough, and
 * NPROC_HELPER_SLACK covers our own setuid processes. */
int limits_count_processes(int host_proc_fd, uid_t uid)
{
        int dupfd = dup(host_proc_fd);
        DIR *dir = dupfd >= 0 ? fdopendir(dupfd) : NULL;
        struct dirent *ent;
        struct stat st;
        int count = NPROC_HELPER_SLACK;

        if (!dir)
                die_errno("read the host's /proc");
        while ((ent = readdir(dir)) != NULL) {
                if (ent->d_name[0] < '1' || ent->d_name[0] > '9')
                        continue;
                if (fstatat(host_proc_fd, ent->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && st.st_uid == uid)
                        count++;
        }
        closedir(dir);
        return count;
}
