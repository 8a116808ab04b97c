/* try-syscall NAME: issues one syscall an escaping candidate would try and
 * exits with its errno (0: it succeeded). The arguments are chosen so that
 * an unsandboxed, unprivileged process would usually succeed or get an
 * errno other than EPERM/ENOSYS, so a denial can be told from the kernel's
 * own refusal where that is possible. The foreign-ABI probes (x32, i386)
 * should not return at all: the filter kills the process with SIGSYS.
 * In the spirit of bubblewrap's tests/try-syscall.c; written for sbx. */
#include <errno.h>
#include <fcntl.h>
#include <linux/io_uring.h>
#include <linux/perf_event.h>
#include <linux/sched.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/ipc.h>
#include <sys/msg.h>
#include <sys/resource.h>
#include <sys/sem.h>
#include <sys/shm.h>
#include <sys/mount.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#define KEYCTL_GET_KEYRING_ID_OP 0
#define KEY_SPEC_SESSION_KEYRING_ID (-3)
#define UFFD_USER_MODE_ONLY_FLAG 1
#define X32_SYSCALL_BIT 0x40000000L
#define I386_GETPID 20

static long result(long ret) { return ret < 0 ? errno : 0; }

static long try_unshare(void) { return result(unshare(CLONE_NEWUSER)); }
static long try_unshare_ns(void) { return result(unshare(CLONE_NEWNS)); }
static long try_mount(void) { return result(mount("none", "/tmp", "tmpfs", 0, NULL)); }
static long try_bpf(void) { return result(syscall(SYS_bpf, 0 /* MAP_CREATE */, NULL, 0)); }
static long try_userfaultfd(void)
{
        return result(syscall(SYS_userfaultfd, O_CLOEXEC | UFFD_USER_MODE_ONLY_FLAG));
}
static long try_io_uring_setup(void)
{
        struct io_uring_params params;

        memset(&params, 0, sizeof(params));
        return result(syscall(SYS_io_uring_setup, 1, &params));
}
static long try_keyctl(void)
{
        return result(syscall(SYS_keyctl, KEYCTL_GET_KEYRING_ID_OP,
                              KEY_SPEC_SESSION_KEYRING_ID, 0));
}
static long try_perf_event_open(void)
{
        struct perf_event_attr attr;

        memset(&attr, 0, sizeof(attr));
        attr.size = sizeof(attr);
        attr.type = PERF_TYPE_SOFTWARE;
        attr.config = PERF_COUNT_SW_TASK_CLOCK;
        attr.exclude_kernel = 1;
        return result(syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0));
}
static long try_ptrace_traceme(void) { return result(ptrace(PTRACE_TRACEME, 0, NULL, NULL)); }

/* op on a sibling of the same uid (a child that waits), then the child gone. */
static long on_sibling(long (*op)(pid_t))
{
        pid_t child = fork();
        long err;

        if (child < 0)
                return errno;
        if (child == 0) {
                pause();
                _exit(0);
        }
        err = op(child);
        kill(child, SIGKILL);
        waitpid(child, NULL, 0);
        return err;
}

/* Attach to a sibling of the same uid: the classic way to hijack another
 * candidate's process. */
static long ptrace_attach(pid_t pid) { return result(ptrace(PTRACE_ATTACH, pid, NULL, NULL)); }
static long try_ptrace_attach(void) { return on_sibling(ptrace_attach); }
static long try_kexec_load(void) { return result(syscall(SYS_kexec_load, 0, 0, NULL, 0)); }
static long try_init_module(void) { return result(syscall(SYS_init_module, NULL, 0, "")); }

static long try_clone_newuser(void)
{
        long pid = syscall(SYS_clone, CLONE_NEWUSER | SIGCHLD, 0, NULL, NULL, 0);

        if (pid == 0)
                _exit(0);
        if (pid < 0)
                return errno;
        waitpid((pid_t)pid, NULL, 0);
        return 0;
}

/* NULL args: an unfiltered kernel answers EFAULT, the policy ENOSYS. */
static long try_clone3(void) { return result(syscall(SYS_clone3, NULL, sizeof(struct clone_args))); }

static long try_socket(long family, int type)
{
        long fd = syscall(SYS_socket, family, type, 0);

        if (fd < 0)
                return errno;
        close((int)fd);
        return 0;
}
static long try_socket_netlink(void) { return try_socket(AF_NETLINK, SOCK_RAW); }
static long try_socket_packet(void) { return try_socket(AF_PACKET, SOCK_RAW); }
/* The kernel reads the family as an int; a filter comparing 64 bits would
 * let AF_NETLINK through with garbage above bit 31. */
static long try_socket_highbits(void) { return try_socket((1L << 32) | AF_NETLINK, SOCK_RAW); }
static long try_socket_inet(void) { return try_socket(AF_INET, SOCK_STREAM); }

static long try_x32(void) { return result(syscall(X32_SYSCALL_BIT | SYS_getpid)); }

static long try_i386(void)
{
        long ret = I386_GETPID;

        __asm__ volatile("int $0x80" : "+a"(ret) : : "memory");
        if (ret < 0 && ret > -4096)
                return -ret;
        return 0;
}

/* TIOCSTI pushes input into the terminal on fd 0: with it a candidate types
 * commands into the caller's shell. The high-bits variant is CVE-2019-10063. */
static long try_tiocsti_cmd(unsigned long cmd)
{
        char c = '#';

        if (!isatty(0))
                return ENOTTY;
        return result(syscall(SYS_ioctl, 0, cmd, &c));
}
static long try_tiocsti(void) { return try_tiocsti_cmd(TIOCSTI); }
static long try_tiocsti_highbits(void) { return try_tiocsti_cmd(0x100000000UL | TIOCSTI); }
static long try_getpid(void) { return result(getpid()); }

/* Syscalls newer than the policy: an unfiltered kernel that has them
 * answers EBADF (open_tree_attr, Linux 6.15) or succeeds (mseal of
 * nothing, 6.10); the filter answers ENOSYS, as would an older kernel. */
static long try_open_tree_attr(void) { return result(syscall(467, -1, "", 0, NULL, 0)); }
static long try_mseal(void) { return result(syscall(462, 0, 0, 0)); }

/* Memory no rlimit bounds: each succeeds unfiltered (and is freed). */
static long try_memfd_create(void)
{
        long fd = syscall(SYS_memfd_create, "try", 0);

        if (fd < 0)
                return errno;
        close((int)fd);
        return 0;
}
static long try_shmget(void)
{
        int id = shmget(IPC_PRIVATE, 4096, 0600);

        if (id < 0)
                return errno;
        shmctl(id, IPC_RMID, NULL);
        return 0;
}
static long try_msgget(void)
{
        int id = msgget(IPC_PRIVATE, 0600);

        if (id < 0)
                return errno;
        msgctl(id, IPC_RMID, NULL);
        return 0;
}
/* A semaphore set holds kernel memory too (its semaphores, 64 bytes each). */
static long try_semget(void)
{
        int id = semget(IPC_PRIVATE, 1, 0600);

        if (id < 0)
                return errno;
        semctl(id, 0, IPC_RMID);
        return 0;
}
/* No set: EINVAL unfiltered. */
static long try_semop(void) { return result(semop(-1, (struct sembuf[1]){ { 0, 0, 0 } }, 1)); }
static long try_semtimedop(void)
{
        return result(syscall(SYS_semtimedop, -1, (struct sembuf[1]){ { 0, 0, 0 } }, 1, NULL));
}
static long try_semctl(void) { return result(semctl(-1, 0, IPC_STAT, NULL)); }

/* A child of our parent (outside the run from a warm candidate): it
 * succeeds unfiltered, and the child leaves at once. */
static long try_clone_parent(void)
{
        long pid = syscall(SYS_clone, CLONE_PARENT | SIGCHLD, 0, NULL, NULL, 0);

        if (pid == 0)
                _exit(0);
        return pid < 0 ? errno : 0;
}

/* Another process's rlimits (a sibling of the same uid: the kernel allows
 * it unfiltered); our own, through pid 0, stay allowed. */
static long prlimit_read(pid_t pid)
{
        struct rlimit rl;

        return result(prlimit(pid, RLIMIT_NOFILE, NULL, &rl));
}
static long try_prlimit_other(void) { return on_sibling(prlimit_read); }
static long try_prlimit_self(void)
{
        struct rlimit rl;

        if (prlimit(0, RLIMIT_NOFILE, NULL, &rl) < 0)
                return errno;
        return result(setrlimit(RLIMIT_NOFILE, &rl));
}
static long try_io_setup(void)
{
        unsigned long ctx = 0;

        if (syscall(SYS_io_setup, 1, &ctx) < 0)
                return errno;
        syscall(SYS_io_destroy, ctx);
        return 0;
}
/* No context: EINVAL unfiltered. */
static long try_io_submit(void) { return result(syscall(SYS_io_submit, 0, 0, NULL)); }

/* The rest answer EBADF/EINVAL or succeed unfiltered. */
static long try_modify_ldt(void)
{
        char ldt[16];

        return result(syscall(SYS_modify_ldt, 0, ldt, sizeof(ldt)));
}
static long try_personality(unsigned long persona)
{
        long old = syscall(SYS_personality, persona);

        if (old < 0)
                return errno;
        syscall(SYS_personality, old);
        return 0;
}
static long try_personality_norandom(void) { return try_personality(0x0040000); }
static long try_personality_exec(void) { return try_personality(0x0400000); }
static long try_personality_highbits(void) { return try_personality((1UL << 32) | 0x0040000); }
static long try_personality_linux32(void) { return try_personality(0x0008); }
static long try_mbind(void) { return result(syscall(SYS_mbind, 0, 0, 0 /* MPOL_DEFAULT */, NULL, 0, 0)); }
static long try_set_mempolicy(void) { return result(syscall(SYS_set_mempolicy, 0, NULL, 0)); }
static long try_migrate_pages(void) { return result(syscall(SYS_migrate_pages, 0, 0, NULL, NULL)); }
static long try_move_pages(void) { return result(syscall(SYS_move_pages, 0, 0, NULL, NULL, NULL, 0)); }
static long try_fanotify_init(void)
{
        /* FAN_CLASS_NOTIF | FAN_REPORT_FID: allowed unprivileged since 5.13 */
        long fd = syscall(SYS_fanotify_init, 0x00000200, O_RDONLY);

        if (fd < 0)
                return errno;
        close((int)fd);
        return 0;
}
static long try_process_madvise(void) { return result(syscall(SYS_process_madvise, -1, NULL, 0, 0, 0)); }
static long try_vmsplice(void) { return result(syscall(SYS_vmsplice, -1, NULL, 0, 0)); }
static long try_sysfs(void) { return result(syscall(SYS_sysfs, 3)); }

static const struct probe {
        const char *name;
        long (*run)(void);
} probes[] = {
        { "unshare", try_unshare },
        { "unshare-mount", try_unshare_ns },
        { "mount", try_mount },
        { "bpf", try_bpf },
        { "userfaultfd", try_userfaultfd },
        { "io_uring_setup", try_io_uring_setup },
        { "keyctl", try_keyctl },
        { "perf_event_open", try_perf_event_open },
        { "ptrace-traceme", try_ptrace_traceme },
        { "ptrace-attach", try_ptrace_attach },
        { "kexec_load", try_kexec_load },
        { "init_module", try_init_module },
        { "clone-newuser", try_clone_newuser },
        { "clone3", try_clone3 },
        { "socket-netlink", try_socket_netlink },
        { "socket-packet", try_socket_packet },
        { "socket-highbits", try_socket_highbits },
        { "socket-inet", try_socket_inet },
        { "x32", try_x32 },
        { "i386", try_i386 },
        { "tiocsti", try_tiocsti },
        { "tiocsti-highbits", try_tiocsti_highbits },
        { "getpid", try_getpid },
        { "open_tree_attr", try_open_tree_attr },
        { "mseal", try_mseal },
        { "memfd_create", try_memfd_create },
        { "shmget", try_shmget },
        { "msgget", try_msgget },
        { "semget", try_semget },
        { "semop", try_semop },
        { "semtimedop", try_semtimedop },
        { "semctl", try_semctl },
        { "clone-parent", try_clone_parent },
        { "prlimit-other", try_prlimit_other },
        { "prlimit-self", try_prlimit_self },
        { "io_setup", try_io_setup },
        { "io_submit", try_io_submit },
        { "modify_ldt", try_modify_ldt },
        { "personality-norandom", try_personality_norandom },
        { "personality-exec", try_personality_exec },
        { "personality-highbits", try_personality_highbits },
        { "personality-linux32", try_personality_linux32 },
        { "mbind", try_mbind },
        { "set_mempolicy", try_set_mempolicy },
        { "migrate_pages", try_migrate_pages },
        { "move_pages", try_move_pages },
        { "fanotify_init", try_fanotify_init },
        { "process_madvise", try_process_madvise },
        { "vmsplice", try_vmsplice },
        { "sysfs", try_sysfs },
};

int main(int argc, char **argv)
{
        size_t i;

        if (argc != 2) {
                fprintf(stderr, "usage: try-syscall NAME\n");
                return 255;
        }
        for (i = 0; i < sizeof(probes) / sizeof(probes[0]); i++) {
                if (strcmp(argv[1], probes[i].name) == 0) {
                        long err = probes[i].run();

                        printf("%s: %s\n", argv[1], err ? strerrorname_np((int)err) : "ok");
                        return (int)(err & 0xff);
                }
        }
        fprintf(stderr, "try-syscall: unknown probe %s\n", argv[1]);
        return 255;
}
