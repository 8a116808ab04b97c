/* The warm candidate's confinement, in the order and with the values of a
 * cold candidate's (docs/warm.md, "Who runs what"): the run's namespaces
 * (setns through B0), setsid, stdio the run's (its stdin file, or
 * /dev/null, and its pipes) with everything else closed, the rlimits, a user namespace of its own where the caller's ids
 * map to themselves and RLIMIT_NPROC counts the sample alone, every
 * capability dropped and read back, the workdir, no_new_privs, the cold
 * seccomp filter, dumpable as after exec. Returns 0, or -1 with the failed
 * step and errno in p (the zygote names them in the run's setup-error). */
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/prctl.h>
#include <linux/sched.h>
#include <linux/seccomp.h>
#include <asm/unistd.h>
#include <fcntl.h>
#include <signal.h>

#include "candidate.h"
#include "raw_syscall.h"

#define AT_FDCWD_ (-100)
#define EINVAL_ 22
#define MAX_CAP 63
#define RLIMIT_NPROC_ 6       /* the same on every Linux architecture */

/* -fstack-protector's failure path, here where no libc is. */
__attribute__((noreturn, used, visibility("hidden"))) void __stack_chk_fail(void)
{
        for (;;)
                sys1(__NR_exit_group, 127);
}

static long fail(struct candidate_params *p, enum candidate_step step, long ret)
{
        p->failed_step = step;
        p->failed_errno = -ret;
        return -1;
}

#define STEP(p, step, call) \
        do { long r_ = (call); if (r_ < 0) return fail((p), (step), r_); } while (0)

static unsigned long text_of(char *out, unsigned long v)
{
        char digits[24];
        unsigned long n = 0, len = 0;

        do {
                digits[n++] = (char)('0' + v % 10);
                v /= 10;
        } while (v);
        while (n)
                out[len++] = digits[--n];
        return len;
}

static long write_file(const char *path, const char *text, unsigned long len)
{
        long fd = sys6(__NR_openat, AT_FDCWD_, (long)path, O_WRONLY | O_NOFOLLOW | O_CLOEXEC, 0, 0, 0);
        long ret;

        if (fd < 0)
                return fd;
        ret = sys3(__NR_write, fd, text, len);
        sys1(__NR_close, fd);
        return ret < 0 ? ret : ret == (long)len ? 0 : -5;       /* EIO: a short write */
}

/* "INSIDE OUTSIDE 1": the one mapping a process may write for itself. */
static long map_one(const char *path, long inside)
{
        char line[64];
        unsigned long n = text_of(line, (unsigned long)inside);

        line[n++] = ' ';
        line[n++] = '0';
        line[n++] = ' ';
        line[n++] = '1';
        return write_file(path, line, n);
}

static long own_user_namespace(struct candidate_params *p)
{
        STEP(p, CANDIDATE_USERNS, sys1(__NR_unshare, CLONE_NEWUSER));
        /* Dumpable meanwhile: else /proc/self is root's and the maps cannot be opened. */
        STEP(p, CANDIDATE_MAPS, sys5(__NR_prctl, PR_SET_DUMPABLE, 1, 0, 0, 0));
        STEP(p, CANDIDATE_MAPS, write_file("/proc/self/setgroups", "deny", 4));
        STEP(p, CANDIDATE_MAPS, map_one("/proc/self/uid_map", p->uid));
        STEP(p, CANDIDATE_MAPS, map_one("/proc/self/gid_map", p->gid));
        return 0;
}

/* The zygote's fds are all above 2 (its own 0-2 are taken): none of the
 * run's is overwritten before it is moved. */
static long stdio_and_fds(struct candidate_params *p)
{
        STEP(p, CANDIDATE_STDIO, sys3(__NR_dup3, p->stdin_fd, 0, 0));
        STEP(p, CANDIDATE_STDIO, sys3(__NR_dup3, p->stdout_fd, 1, 0));
        STEP(p, CANDIDATE_STDIO, sys3(__NR_dup3, p->stderr_fd, 2, 0));
        STEP(p, CANDIDATE_STDIO, sys3(__NR_dup3, p->info_fd, 3, O_CLOEXEC));
        p->report_fd = 3;
        STEP(p, CANDIDATE_CLOSE_FDS, sys3(__NR_close_range, 4, ~0U, 0));
        return 0;
}

static long drop_caps(struct candidate_params *p)
{
        struct __user_cap_header_struct head = { .version = _LINUX_CAPABILITY_VERSION_3 };
        struct __user_cap_data_struct data[2] = { { 0, 0, 0 }, { 0, 0, 0 } };
        long cap = 0, r;

        while ((r = sys5(__NR_prctl, PR_CAPBSET_DROP, cap, 0, 0, 0)) == 0)
                cap++;
        if (r != -EINVAL_ || cap == 0)          /* EINVAL: past the kernel's last */
                return fail(p, CANDIDATE_CAPS, r);
        STEP(p, CANDIDATE_CAPS, sys5(__NR_prctl, PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0));
        STEP(p, CANDIDATE_CAPS, sys2(__NR_capset, &head, data));
        /* Read back from the kernel: a failed drop must never run anything. */
        STEP(p, CANDIDATE_CAPS_CHECK, sys2(__NR_capget, &head, data));
        for (int i = 0; i < 2; i++)
                if (data[i].effective || data[i].permitted || data[i].inheritable)
                        return fail(p, CANDIDATE_CAPS_CHECK, 0);
        for (cap = 0; cap <= MAX_CAP; cap++) {
                long bounding = sys5(__NR_prctl, PR_CAPBSET_READ, cap, 0, 0, 0);

                if (bounding == -EINVAL_)
                        break;
                if (bounding != 0 || sys5(__NR_prctl, PR_CAP_AMBIENT, PR_CAP_AMBIENT_IS_SET, cap, 0, 0) != 0)
                        return fail(p, CANDIDATE_CAPS_CHECK, 0);
        }
        return 0;
}

__attribute__((section(".text.entry"))) long candidate_confine(struct candidate_params *p)
{
        struct sock_fprog prog = { .len = (unsigned short)p->bpf_len, .filter = (struct sock_filter *)p->bpf };
        struct { uint64_t cur, max; } lim;

        p->report_fd = p->info_fd;
        /* Root of the run's user namespace (the caller's uid outside), as B0. */
        STEP(p, CANDIDATE_JOIN, sys2(__NR_setns, p->b0_pidfd,
                                     CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWNET | CLONE_NEWIPC | CLONE_NEWUTS));
        STEP(p, CANDIDATE_PDEATHSIG, sys5(__NR_prctl, PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0));
        STEP(p, CANDIDATE_SETSID, sys1(__NR_setsid, 0));
        if (stdio_and_fds(p) < 0)
                return -1;
        for (long i = 0; i < p->nrlimits && i < CANDIDATE_MAX_RLIMITS; i++) {
                lim.cur = p->rlimits[i].soft;
                lim.max = p->rlimits[i].hard;
                STEP(p, CANDIDATE_RLIMITS, sys6(__NR_prlimit64, 0, p->rlimits[i].resource, (long)&lim, 0, 0, 0));
        }
        /* RLIMIT_NPROC counts per user namespace: in one of C's own, the cap is
         * this run's alone, as a cold candidate's. */
        if (own_user_namespace(p) < 0)
                return -1;
        lim.cur = lim.max = p->nproc;
        STEP(p, CANDIDATE_NPROC, sys6(__NR_prlimit64, 0, RLIMIT_NPROC_, (long)&lim, 0, 0, 0));
        STEP(p, CANDIDATE_NPROC, sys3(__NR_write, 3, "U\n", 2));
        if (drop_caps(p) < 0)
                return -1;
        STEP(p, CANDIDATE_CHDIR, sys1(__NR_chdir, p->cwd));
        sys1(__NR_umask, 022);
        STEP(p, CANDIDATE_NO_NEW_PRIVS, sys5(__NR_prctl, PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0));
        STEP(p, CANDIDATE_SECCOMP, sys3(__NR_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog));
        /* What exec would have given: a dumpable process (its own /proc/self). */
        STEP(p, CANDIDATE_DUMPABLE, sys5(__NR_prctl, PR_SET_DUMPABLE, 1, 0, 0, 0));
        return 0;
}
