/* rlimits of the candidate, and the run's own cgroup: its memory with a
 * delegated memory cgroup, its process count without a user namespace
 * (else RLIMIT_NPROC above what the caller already runs). */
#include <dirent.h>
#include <linux/magic.h>
#include <sys/vfs.h>
#include <time.h>

#include "helper.h"
#include "ipc_limits.h"

/* Our own processes of the caller's uid (supervisor, init) that count
 * against a per-uid RLIMIT_NPROC on top of what the caller already runs. */
#define NPROC_HELPER_SLACK 4
#define RUN_CGROUP_RMDIR_TRIES 200     /* 1 ms apart */
#define SBX_RLIMIT_STACK (8ULL << 20)
#define SBX_RLIMIT_SIGPENDING 256

/* Never above the caller's hard limit (pam_limits', Slurm's): a limit is
 * only ever lowered, and one asked above the caller's is clamped to it. */
void limits_set(int resource, const char *name, rlim_t soft, rlim_t hard)
{
        struct rlimit old, rl;

        if (getrlimit(resource, &old) < 0)
                die_errno("getrlimit %s", name);
        rl.rlim_max = hard < old.rlim_max ? hard : old.rlim_max;
        rl.rlim_cur = soft < rl.rlim_max ? soft : rl.rlim_max;
        if (setrlimit(resource, &rl) < 0)
                die_errno("setrlimit %s", name);
}

void limits_apply_rlimits(const struct request *rq)
{
        rlim_t cpu_s = (rlim_t)((rq->limit[LIM_CPU] + 999) / 1000);
        rlim_t as = rq->limit[LIM_MEMORY] == SBX_LIMIT_NONE ? RLIM_INFINITY : (rlim_t)rq->limit[LIM_MEMORY];

        /* SIGXCPU at the soft limit, SIGKILL a second later. */
        limits_set(RLIMIT_CPU, "cpu", cpu_s, cpu_s + 1);
        limits_set(RLIMIT_AS, "as", as, as);
        limits_set(RLIMIT_FSIZE, "fsize", rq->limit[LIM_FSIZE], rq->limit[LIM_FSIZE]);
        limits_set(RLIMIT_NOFILE, "nofile", rq->limit[LIM_NOFILE], rq->limit[LIM_NOFILE]);
        limits_set(RLIMIT_CORE, "core", 0, 0);
        /* Not inherited from the caller: the usual stack, no locked memory
         * or POSIX message queues, a bounded number of queued signals. */
        limits_set(RLIMIT_STACK, "stack", SBX_RLIMIT_STACK, SBX_RLIMIT_STACK);
        limits_set(RLIMIT_MEMLOCK, "memlock", 0, 0);
        limits_set(RLIMIT_MSGQUEUE, "msgqueue", 0, 0);
        limits_set(RLIMIT_SIGPENDING, "sigpending", SBX_RLIMIT_SIGPENDING, SBX_RLIMIT_SIGPENDING);
        /* Lowered to the real cap once we know whether it counts per run. */
        limits_set(RLIMIT_NPROC, "nproc", RLIM_INFINITY, RLIM_INFINITY);
}

/* SysV IPC is charged to no process: the run's own IPC namespace (init's)
 * holds at most --memory of shared memory (tmpfs_size for --memory none),
 * few queues and semaphores (common/ipc_limits.c, sbx-run-init's too). */
void limits_ipc_namespace(const struct request *rq)
{
        const char *what = "";

        if (sbx_ipc_limits((long long)(rq->limit[LIM_MEMORY] == SBX_LIMIT_NONE ? rq->limit[LIM_TMPFS] :
                                       rq->limit[LIM_MEMORY]), &what) < 0)
                die_errno("write %s in the run's IPC namespace", what);
}

/* Processes of uid on the host, via a /proc opened before the pid namespace.
 * /proc/PID's owner is the euid: close enough; NPROC_HELPER_SLACK is ours. */
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

/* Opened before the namespaces (the path is not reachable after). The run's
 * name is unique even among helpers of other pid namespaces sharing the
 * directory. */
bool run_cgroup_open(struct run_cgroup *cg, const char *path)
{
        struct timespec now;

        *cg = (struct run_cgroup){ .path = path[0] ? path : NULL, .dir = -1, .host_ns = -1 };
        clock_gettime(CLOCK_MONOTONIC, &now);
        snprintf(cg->name, sizeof(cg->name), "run-%d-%llx", (int)getpid(),
                 (unsigned long long)now.tv_sec * 1000000000ULL + (unsigned long long)now.tv_nsec);
        if (cg->path && ((cg->host_ns = open("/proc/self/ns/cgroup", O_RDONLY | O_CLOEXEC)) < 0 ||
                         (cg->dir = open(path, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0))
                set_error(cg->why, sizeof(cg->why), "%s", strerror(errno));
        return cg->dir >= 0;
}

/* On cgroup2, and its children get the controller. */
bool run_cgroup_usable(struct run_cgroup *cg, const char *controller)
{
        char list[256] = " ", word[32]; /* " cpu pids\n": a word is " NAME" + space or newline */
        struct statfs fs;

        if (cg->dir < 0)
                return false;
        if (fstatfs(cg->dir, &fs) < 0 || fs.f_type != CGROUP2_SUPER_MAGIC)
                return set_error(cg->why, sizeof(cg->why), "not a cgroup2 directory"), false;
        if (read_file_at(cg->dir, "cgroup.subtree_control", list + 1, sizeof(list) - 1) < 0)
                return set_error(cg->why, sizeof(cg->why), "cgroup.subtree_control: %s", strerror(errno)), false;
        list[strcspn(list, "\n")] = ' ';
        snprintf(word, sizeof(word), " %s ", controller);
        if (strstr(list, word))
                return true;
        return set_error(cg->why, sizeof(cg->why), "\"%s\" is not in its cgroup.subtree_control", controller), false;
}

/* Writes value to the run's FILE; a missing optional file is skipped. */
static bool cgroup_set(struct run_cgroup *cg, const char *file, unsigned long long value, bool optional)
{
        char path[96], text[32];

        snprintf(path, sizeof(path), "%s/%s", cg->name, file);
        snprintf(text, sizeof(text), "%llu", value);
        if (write_file_at(cg->dir, path, text) == 0 || (optional && errno == ENOENT))
                return true;
        return set_error(cg->why, sizeof(cg->why), "%s: %s", path, strerror(errno)), false;
}

/* Makes the run's child (once) for controller. From the host's cgroup
 * namespace: with nsdelegate a move is checked against the namespace of
 * whoever opened cgroup.procs. */
static bool run_cgroup_make(struct run_cgroup *cg, const char *controller)
{
        if (!run_cgroup_usable(cg, controller))
                return false;
        if (setns(cg->host_ns, CLONE_NEWCGROUP) < 0)
                return set_error(cg->why, sizeof(cg->why), "setns: %s", strerror(errno)), false;
        if (!cg->made && mkdirat(cg->dir, cg->name, 0755) < 0)
                return set_error(cg->why, sizeof(cg->why), "mkdir %s: %s", cg->name, strerror(errno)), false;
        cg->made = true;
        return true;
}

/* Moves pid into the run's child, which allows max tasks (one more when
 * init, already in it for the memory controller, counts too). */
bool run_cgroup_enter_pids(struct run_cgroup *cg, pid_t pid, uint64_t max)
{
        return run_cgroup_make(cg, "pids") && cgroup_set(cg, "pids.max", max + cg->has_init, false) &&
               cgroup_set(cg, "cgroup.procs", (unsigned long long)pid, false);
}

/* Moves the caller (init, before anything else of the run exists) into the
 * run's child, capped at max bytes and no swap: every page the run faults in
 * is charged there, tmpfs, shm, memfd, page cache and kernel memory too. */
bool run_cgroup_enter_memory(struct run_cgroup *cg, uint64_t max)
{
        cg->has_init = run_cgroup_make(cg, "memory") &&
                       (max == SBX_LIMIT_NONE || cgroup_set(cg, "memory.max", max, false)) &&
                       cgroup_set(cg, "memory.swap.max", 0, true) && cgroup_set(cg, "cgroup.procs", 0, false);
        return cg->has_init;
}

/* The run's peak (-1 where memory.peak is missing) and whether the OOM
 * killer fired in it, read before its removal. */
void run_cgroup_memory_stats(const struct run_cgroup *cg, long long *peak, bool *oom_killed)
{
        char path[96], text[1024];
        const char *oom;

        *peak = -1;
        snprintf(path, sizeof(path), "%s/memory.peak", cg->name);
        if (cg->dir >= 0 && read_file_at(cg->dir, path, text, sizeof(text)) > 0)
                *peak = atoll(text);
        snprintf(path, sizeof(path), "%s/memory.events", cg->name);
        if (cg->dir >= 0 && read_file_at(cg->dir, path, text, sizeof(text)) > 0)
                *oom_killed = (oom = strstr(text, "oom_kill ")) != NULL && atoll(oom + 9) > 0;
}

void run_cgroup_remove(const struct run_cgroup *cg, char *msg, size_t msglen)
{
        size_t n = strlen(msg);

        if (cg->dir < 0)
                return;
        for (int try = 0;; try++) {
                if (unlinkat(cg->dir, cg->name, AT_REMOVEDIR) == 0 || errno == ENOENT)
                        return;
                if (errno != EBUSY || try == RUN_CGROUP_RMDIR_TRIES ||
                    nanosleep(&(struct timespec){ 0, 1000000 }, NULL) < 0)
                        break;
        }
        snprintf(msg + n, msglen - n, "%scgroup %s/%s is left behind: %s", n ? "; " : "",
                 cg->path, cg->name, strerror(errno));
}
