/* What installing the helper's seccomp filter costs, with libseccomp's
 * linear layout against the binary tree the policy is compiled to now
 * (SCMP_FLTATR_CTL_OPTIMIZE 1 and 2, docs/performance.md). The kernel
 * emulates a new filter for every syscall number when it is installed
 * (the seccomp cache), so the layout shows in the install. Each sample is
 * a fresh child that sets no_new_privs and installs one program; ROUNDS
 * (default 300) interleaved of each; also a getppid under each. Build
 * after `make` (it needs the policy compiler):
 *   cc -O2 -D_GNU_SOURCE -Icommon -Ibuild/gen -o seccomp-cost \
 *      bench/lib/seccomp-install-cost.c build/common/seccomp_policy.o -lseccomp */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/seccomp.h>

#include "seccomp_policy.h"
#include "seccomp_policy_text.h"        /* sbx_seccomp_policy_text */

#define CALLS 2000

struct program { const char *name; struct sock_fprog prog; double install_us[4096], call_ns[4096]; };

static double now_us(void)
{
        struct timespec t;

        clock_gettime(CLOCK_MONOTONIC, &t);
        return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

/* libseccomp's program for the policy at an optimisation level. */
static void export(int level, struct sock_fprog *prog)
{
        char err[256];
        scmp_filter_ctx ctx;
        int above, fd = memfd_create("bpf", MFD_CLOEXEC);
        off_t size;

        if (fd < 0 || sbx_seccomp_compile(sbx_seccomp_policy_text, &ctx, &above, err, sizeof(err)) < 0 ||
            seccomp_attr_set(ctx, SCMP_FLTATR_CTL_OPTIMIZE, (uint32_t)level) < 0 || seccomp_export_bpf(ctx, fd) < 0)
                exit(1);
        size = lseek(fd, 0, SEEK_END);
        prog->len = (unsigned short)(size / (off_t)sizeof(struct sock_filter));
        prog->filter = malloc((size_t)size);
        if (!prog->filter || pread(fd, prog->filter, (size_t)size, 0) != size)
                exit(1);
        seccomp_release(ctx);
        close(fd);
}

static void sample(struct program *p, int i)
{
        double r[2], t0, t1;
        int fds[2], status;
        pid_t pid;

        if (pipe(fds) < 0 || (pid = fork()) < 0)
                exit(1);
        if (pid == 0) {
                if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
                        _exit(2);
                t0 = now_us();
                if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &p->prog) < 0)
                        _exit(3);
                t1 = now_us();
                for (int c = 0; c < CALLS; c++)
                        syscall(SYS_getppid);
                r[0] = t1 - t0;
                r[1] = (now_us() - t1) * 1000 / CALLS;
                _exit(write(fds[1], r, sizeof(r)) == sizeof(r) ? 0 : 4);
        }
        close(fds[1]);
        if (read(fds[0], r, sizeof(r)) != sizeof(r) || waitpid(pid, &status, 0) < 0 || status != 0)
                exit(5);
        close(fds[0]);
        p->install_us[i] = r[0];
        p->call_ns[i] = r[1];
}

static int cmp(const void *a, const void *b)
{
        double x = *(const double *)a, y = *(const double *)b;

        return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
        static struct program progs[2] = { { .name = "linear (level 1)" }, { .name = "tree (level 2)" } };
        int rounds = argc > 1 ? atoi(argv[1]) : 300;

        if (rounds < 1 || rounds > 4096)
                return 2;
        export(1, &progs[0].prog);
        export(2, &progs[1].prog);
        for (int i = 0; i < rounds; i++)
                for (int p = 0; p < 2; p++)
                        sample(&progs[p], i);
        for (int p = 0; p < 2; p++) {
                qsort(progs[p].install_us, (size_t)rounds, sizeof(double), cmp);
                qsort(progs[p].call_ns, (size_t)rounds, sizeof(double), cmp);
                printf("%-17s %3u instructions: install median %.1f us (p10 %.1f), getppid %.0f ns\n",
                       progs[p].name, progs[p].prog.len, progs[p].install_us[rounds / 2],
                       progs[p].install_us[rounds / 10], progs[p].call_ns[rounds / 2]);
        }
        return 0;
}
