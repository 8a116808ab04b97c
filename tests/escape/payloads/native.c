/* native.c: the escape payloads as a compiled sample would write them,
 * with raw system calls (syscall(2)), so that a C, C++, Go or Rust sample
 * meets the same walls as a Python one (tests/escape/native.t).
 *
 *   native forkbomb COUNT_FILE MARKER   fork until it fails, write the count,
 *                                       keep trying (as forkbomb.py)
 *   native membomb                      map and touch 64 MiB chunks until it
 *                                       fails: "ENOMEM after N MiB", exit 42
 *   native write MARKER DIR...          create DIR/MARKER: "DIR: WROTE" or
 *                                       "DIR: ERRNAME"
 *   native connect PORT ABSTRACT [IP]   the host's 127.0.0.1 listener, its
 *                                       abstract unix socket, its address
 *   native ptrace [PID]                 attach to a child of its own, trace
 *                                       itself, attach to / signal / read the
 *                                       memory of a host PID
 *   native newns                        unshare and clone into every kind
 *                                       of new namespace
 *
 * Each probe prints "name: RESULT" with RESULT "OK"/"WROTE"/"CONNECTED"/
 * "ATTACHED" or the errno's name, so a test reads the same words from a
 * run inside the sandbox and from the same run outside (its sanity check).
 * Without arguments it reads them from stdin, one line of words: the form
 * of a sample sbx builds itself (sbx-run --file native.c --stdin ARGS).
 * Built by the test with the host's cc, or by sbx-run in the sandbox;
 * never run outside a test. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

static void result(const char *name, long rc)
{
        if (rc < 0)
                printf("%s: %s\n", name, strerrorname_np(errno) ? strerrorname_np(errno) : "E?");
        else
                printf("%s: OK\n", name);
        fflush(stdout);
}

static void __attribute__((noreturn)) sleep_forever(void)
{
        struct timespec ts = { 600, 0 };

        syscall(SYS_nanosleep, &ts, NULL);
        for (;;)
                syscall(SYS_exit, 0);
}

static int __attribute__((noreturn)) forkbomb(const char *count_file)
{
        long n = 0, pid;

        while (n < 2000) {
                pid = syscall(SYS_fork);
                if (pid == 0)
                        sleep_forever();
                if (pid < 0)
                        break;
                n++;
        }
        FILE *f = fopen(count_file, "w");
        if (f) {
                fprintf(f, "%ld\n", n);
                fclose(f);
        }
        for (;;) {
                pid = syscall(SYS_fork);
                if (pid == 0)
                        sleep_forever();
                if (pid < 0) {
                        struct timespec ts = { 0, 10000000 };
                        syscall(SYS_nanosleep, &ts, NULL);
                }
        }
}

static int membomb(void)
{
        const size_t chunk = 64 << 20;
        long mib = 0;

        for (;;) {
                char *p = (char *)syscall(SYS_mmap, NULL, chunk, PROT_READ | PROT_WRITE,
                                          MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
                if (p == MAP_FAILED) {
                        printf("%s after %ld MiB\n", strerrorname_np(errno), mib);
                        return 42;
                }
                for (size_t i = 0; i < chunk; i += 4096)
                        p[i] = 1;
                mib += 64;
        }
}

static int write_outside(int argc, char **argv)
{
        for (int i = 3; i < argc; i++) {
                char path[4096];
                snprintf(path, sizeof(path), "%s/%s", argv[i], argv[2]);
                long fd = syscall(SYS_openat, AT_FDCWD, path, O_WRONLY | O_CREAT | O_EXCL, 0644);
                if (fd < 0) {
                        printf("%s: %s\n", argv[i], strerrorname_np(errno));
                        continue;
                }
                syscall(SYS_write, fd, "escaped\n", 8);
                syscall(SYS_close, fd);
                printf("%s: WROTE\n", argv[i]);
        }
        return 0;
}

/* A connect with a 2 s limit: "name: CONNECTED" or the error. */
static void try_connect(const char *name, int family, const struct sockaddr *sa, socklen_t len)
{
        long s = syscall(SYS_socket, family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        int err = 0;
        socklen_t elen = sizeof(err);

        if (s < 0) {
                printf("%s: refused (%s)\n", name, strerrorname_np(errno));
                return;
        }
        if (syscall(SYS_connect, s, sa, len) < 0 && errno != EINPROGRESS) {
                printf("%s: refused (%s)\n", name, strerrorname_np(errno));
        } else {
                struct pollfd p = { (int)s, POLLOUT, 0 };
                if (poll(&p, 1, 2000) != 1)
                        printf("%s: refused (ETIMEDOUT)\n", name);
                else if (getsockopt((int)s, SOL_SOCKET, SO_ERROR, &err, &elen) < 0 || err)
                        printf("%s: refused (%s)\n", name, strerrorname_np(err ? err : errno));
                else {
                        printf("%s: CONNECTED\n", name);
                        syscall(SYS_write, s, "ESCAPED\n", 8);
                }
        }
        syscall(SYS_close, s);
}

static int net_connect(int argc, char **argv)
{
        struct sockaddr_in in = { .sin_family = AF_INET, .sin_port = htons(atoi(argv[2])) };
        struct sockaddr_un un = { .sun_family = AF_UNIX };
        size_t n = strlen(argv[3]);

        inet_pton(AF_INET, "127.0.0.1", &in.sin_addr);
        try_connect("tcp-loopback", AF_INET, (struct sockaddr *)&in, sizeof(in));
        if (n + 1 < sizeof(un.sun_path))
                memcpy(un.sun_path + 1, argv[3], n);    /* abstract: a NUL first */
        try_connect("abstract-unix", AF_UNIX, (struct sockaddr *)&un,
                    (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + n));
        if (argc > 4 && inet_pton(AF_INET, argv[4], &in.sin_addr) == 1)
                try_connect("tcp-host-ip", AF_INET, (struct sockaddr *)&in, sizeof(in));
        fflush(stdout);
        return 0;
}

static int ptrace_probes(int argc, char **argv)
{
        long child = syscall(SYS_fork);

        if (child == 0)
                sleep_forever();
        long rc = syscall(SYS_ptrace, PTRACE_ATTACH, child, 0, 0);
        printf("attach-child: %s\n", rc == 0 ? "ATTACHED" : strerrorname_np(errno));
        kill((pid_t)child, SIGKILL);
        waitpid((pid_t)child, NULL, 0);
        if (syscall(SYS_fork) == 0) {
                rc = syscall(SYS_ptrace, PTRACE_TRACEME, 0, 0, 0);
                printf("traceme: %s\n", rc == 0 ? "ATTACHED" : strerrorname_np(errno));
                fflush(stdout);
                syscall(SYS_exit, 0);
        }
        wait(NULL);
        if (argc > 2) {
                pid_t host = (pid_t)atoi(argv[2]);
                char buf[16];
                struct iovec local = { buf, sizeof(buf) }, remote = { (void *)0x400000, sizeof(buf) };
                rc = syscall(SYS_ptrace, PTRACE_ATTACH, host, 0, 0);
                printf("attach-host: %s\n", rc == 0 ? "ATTACHED" : strerrorname_np(errno));
                if (rc == 0) {          /* outside only: leave it running */
                        waitpid(host, NULL, __WALL);
                        syscall(SYS_ptrace, PTRACE_DETACH, host, 0, 0);
                        syscall(SYS_kill, host, SIGCONT);
                }
                result("signal-host", syscall(SYS_kill, host, 0));
                rc = syscall(SYS_process_vm_readv, host, &local, 1, &remote, 1, 0);
                /* EFAULT: it reached the process (the address is a guess) */
                printf("read-host: %s\n", rc >= 0 || errno == EFAULT ? "OK" : strerrorname_np(errno));
        }
        fflush(stdout);
        return 0;
}

/* In a child each, so that one that works does not change the next. */
static void ns_probe(const char *name, long flags, int use_clone)
{
        long pid = syscall(SYS_fork);

        if (pid == 0) {
                long rc;
                if (use_clone) {
                        rc = syscall(SYS_clone, flags | SIGCHLD, 0, 0, 0, 0);
                        if (rc == 0)
                                syscall(SYS_exit, 0);
                        if (rc > 0)
                                waitpid((pid_t)rc, NULL, 0);
                } else {
                        rc = syscall(SYS_unshare, flags);
                }
                result(name, rc);
                syscall(SYS_exit, 0);
        }
        waitpid((pid_t)pid, NULL, 0);
}

static int newns(void)
{
        ns_probe("unshare-user", CLONE_NEWUSER, 0);
        ns_probe("unshare-mount", CLONE_NEWNS, 0);
        ns_probe("unshare-net", CLONE_NEWNET, 0);
        ns_probe("unshare-pid", CLONE_NEWPID, 0);
        ns_probe("unshare-ipc", CLONE_NEWIPC, 0);
        ns_probe("unshare-uts", CLONE_NEWUTS, 0);
        ns_probe("unshare-cgroup", CLONE_NEWCGROUP, 0);
        ns_probe("clone-user", CLONE_NEWUSER, 1);
        ns_probe("clone-user-net", CLONE_NEWUSER | CLONE_NEWNET, 1);
        return 0;
}

/* "native WORD..." from one line of stdin, at most 15 words. */
static int argv_from_stdin(char ***argvp)
{
        static char line[4096];
        static char *words[16];
        int n = 1;

        words[0] = "native";
        if (!fgets(line, sizeof(line), stdin))
                return 1;
        for (char *save = NULL, *w = strtok_r(line, " \t\n", &save); w && n < 15;
             w = strtok_r(NULL, " \t\n", &save))
                words[n++] = w;
        words[n] = NULL;
        *argvp = words;
        return n;
}

int main(int argc, char **argv)
{
        if (argc < 2)
                argc = argv_from_stdin(&argv);
        const char *what = argc > 1 ? argv[1] : "";

        setvbuf(stdout, NULL, _IOLBF, 0);
        if (!strcmp(what, "forkbomb") && argc > 3)
                return forkbomb(argv[2]);
        if (!strcmp(what, "membomb"))
                return membomb();
        if (!strcmp(what, "write") && argc > 3)
                return write_outside(argc, argv);
        if (!strcmp(what, "connect") && argc > 3)
                return net_connect(argc, argv);
        if (!strcmp(what, "ptrace"))
                return ptrace_probes(argc, argv);
        if (!strcmp(what, "newns"))
                return newns();
        fprintf(stderr, "usage: native forkbomb|membomb|write|connect|ptrace|newns ...\n");
        return 2;
}
