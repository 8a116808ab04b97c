/* B0's and B1's confinement once their set-up is done: every capability
 * dropped and checked (a failed drop must never go on: helper/privs.c),
 * no_new_privs; for B1, pid 1 of the run, the cold path's seccomp filter.
 * A cold bwrap run's init (exec.c) only checks what bwrap did. */
#include <errno.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stdint.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "run_init.h"

#define MAX_BPF_INSNS 4096

static void drop_caps(void)
{
        struct __user_cap_header_struct head = { .version = _LINUX_CAPABILITY_VERSION_3 };
        struct __user_cap_data_struct none[2] = { { 0 } };
        int cap = 0;

        while (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) == 0)
                cap++;
        if (errno != EINVAL || cap == 0)
                init_die(errno, "cannot clear the bounding set");
        if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0)
                init_die(errno, "cannot clear the ambient set");
        if (syscall(SYS_capset, &head, none) < 0)
                init_die(errno, "cannot drop capabilities");
}

/* Read back from the kernel: all five sets empty. */
static void check_no_caps(void)
{
        struct __user_cap_header_struct head = { .version = _LINUX_CAPABILITY_VERSION_3 };
        struct __user_cap_data_struct data[2];

        if (syscall(SYS_capget, &head, data) < 0)
                init_die(errno, "capget");
        for (int i = 0; i < 2; i++)
                if (data[i].effective || data[i].permitted || data[i].inheritable)
                        init_die(0, "capabilities still present after dropping them");
        for (int cap = 0; cap < 64; cap++) {
                int bounding = prctl(PR_CAPBSET_READ, cap, 0, 0, 0);
                int ambient = prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_IS_SET, cap, 0, 0);

                if (bounding < 0 && errno == EINVAL)
                        return;         /* past the kernel's last */
                if (bounding != 0 || ambient > 0)
                        init_die(errno, "capability %d still in the bounding or ambient set", cap);
        }
}

static void install_seccomp(int bpf_fd)
{
        struct sock_filter insns[MAX_BPF_INSNS];
        struct sock_fprog prog = { .filter = insns };
        struct stat st;
        ssize_t n;

        if (fstat(bpf_fd, &st) < 0)
                init_die(errno, "the seccomp program");
        if (st.st_size <= 0 || st.st_size % (off_t)sizeof(insns[0]) || st.st_size > (off_t)sizeof(insns))
                init_die(0, "the seccomp program: %lld bytes, want a non-empty multiple of %zu",
                         (long long)st.st_size, sizeof(insns[0]));
        n = pread(bpf_fd, insns, (size_t)st.st_size, 0);
        if (n != st.st_size)
                init_die(n < 0 ? errno : 0, "read the seccomp program");
        prog.len = (unsigned short)(n / (ssize_t)sizeof(insns[0]));
        if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0) < 0)
                init_die(errno, "seccomp filter");
}

void init_check_confined(void)
{
        int no_new_privs = prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0);

        check_no_caps();
        if (no_new_privs != 1)
                init_die(no_new_privs < 0 ? errno : 0, "no_new_privs is not set");
}

void init_drop_privileges(void)
{
        drop_caps();
        check_no_caps();
        if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
                init_die(errno, "no_new_privs");
}

void init_confine(int bpf_fd)
{
        init_drop_privileges();
        install_seccomp(bpf_fd);
}
