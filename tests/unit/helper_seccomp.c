/* The seccomp policy: the embedded one compiles, the built-in program is
 * it and denies what it must; bad policy lines are refused with their
 * line number. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <cmocka.h>

#include "seccomp_bpf.h"
#include "seccomp_policy.h"

/* The program built into both programs is the policy, compiled by this
 * libseccomp: a stale or hand-edited gen/seccomp_bpf_insns.h fails here. */
static void test_builtin_program_is_the_policy(void **state)
{
        static struct sock_filter now[BPF_MAXINSNS];
        const struct sock_fprog *prog = sbx_seccomp_program();
        char err[256] = "";
        size_t n = 0;

        if (sbx_seccomp_build(now, BPF_MAXINSNS, &n, err, sizeof(err)) != 0)
                fail_msg("%s", err);
        /* Many rules: well over a few instructions. */
        assert_true(n > 50);
        assert_int_equal(prog->len, n);
        assert_memory_equal(prog->filter, now, n * sizeof(now[0]));
        /* First: load the architecture; the native check guards every rule. */
        assert_int_equal(prog->filter[0].code, BPF_LD | BPF_W | BPF_ABS);
        assert_int_equal(prog->filter[0].k, 4);
        /* then the "enosys above" check: the policy has that line */
        assert_int_equal(prog->filter[4].code, BPF_JMP | BPF_JGT | BPF_K);
        assert_true(prog->filter[4].k >= 456);
        assert_int_equal(prog->filter[5].k, SECCOMP_RET_ERRNO | ENOSYS);
}

/* bwrap reads the program from a file: it must arrive whole. */
static void test_program_is_written_whole(void **state)
{
        static struct sock_filter got[BPF_MAXINSNS];
        const struct sock_fprog *prog = sbx_seccomp_program();
        int fd = memfd_create("test-write", MFD_CLOEXEC);

        assert_true(fd >= 0);
        assert_int_equal(sbx_seccomp_write(fd), 0);
        assert_int_equal(pread(fd, got, sizeof(got), 0), (ssize_t)(prog->len * sizeof(got[0])));
        assert_memory_equal(got, prog->filter, prog->len * sizeof(got[0]));
        close(fd);
        assert_int_equal(sbx_seccomp_write(fd), -1);
        assert_int_equal(errno, EBADF);
}

/* In a child with the program installed: the "enosys above" check, the
 * memory no rlimit bounds, personality. 0, or the number of the check
 * that failed. */
static int denies_the_rest(void)
{
        static const long enosys[] = { 467 /* open_tree_attr */, 462 /* mseal */, 1000, 0x3fffffff };
        const struct { long nr; long arg0; int err; } calls[] = {
                { SYS_memfd_create, (long)"x", ENOSYS }, { SYS_shmget, 0 /* IPC_PRIVATE */, ENOSYS },
                { SYS_msgget, 0, ENOSYS }, { SYS_semget, 0, ENOSYS }, { SYS_semop, 0, ENOSYS },
                { SYS_semtimedop, 0, ENOSYS }, { SYS_semctl, 0, ENOSYS },
                { SYS_prlimit64, 1 /* another process: init */, EPERM },
                { SYS_io_setup, 1, ENOSYS }, { SYS_modify_ldt, 0, EPERM },
                { SYS_personality, 0x0040000 /* ADDR_NO_RANDOMIZE */, EPERM },
                { SYS_personality, 0x0400000 /* READ_IMPLIES_EXEC */, EPERM },
                { SYS_personality, 0xffffffffL, EPERM },
        };

        for (size_t i = 0; i < sizeof(enosys) / sizeof(enosys[0]); i++)
                if (syscall(enosys[i], 0, 0, 0) != -1 || errno != ENOSYS)
                        return 20 + (int)i;
        for (size_t i = 0; i < sizeof(calls) / sizeof(calls[0]); i++)
                if (syscall(calls[i].nr, calls[i].arg0, 0x10000, 0600) != -1 || errno != calls[i].err)
                        return 30 + (int)i;
        /* allowed values, even with high garbage bits the kernel ignores */
        if (syscall(SYS_personality, 0x100000000L | 0x0008) < 0 || syscall(SYS_personality, 0) < 0)
                return 40;
        /* a child of our parent: refused, as a fork would be made otherwise */
        long child = syscall(SYS_clone, CLONE_PARENT | SIGCHLD, 0, 0, 0, 0);
        if (child == 0)
                _exit(0);
        if (child != -1 || errno != EPERM)
                return 41;
        /* rlimits of the caller itself (pid 0), as glibc asks for them */
        struct rlimit rl;
        if (syscall(SYS_prlimit64, 0, RLIMIT_NOFILE, NULL, &rl) < 0 || setrlimit(RLIMIT_NOFILE, &rl) < 0)
                return 42;
        return 0;
}

/* Installed, the program denies what the policy denies (EPERM for ptrace,
 * ENOSYS for clone3) and allows the rest; a child takes it, not the test. */
static void test_installed_program_denies(void **state)
{
        int status;
        pid_t pid = fork();

        assert_true(pid >= 0);
        if (pid == 0) {
                if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 || sbx_seccomp_install() < 0)
                        _exit(10);
                if (syscall(SYS_ptrace, PTRACE_TRACEME, 0, 0, 0) != -1 || errno != EPERM)
                        _exit(11);
                if (syscall(SYS_clone3, NULL, 0) != -1 || errno != ENOSYS)
                        _exit(12);
                if (syscall(SYS_unshare, CLONE_NEWUSER) != -1 || errno != EPERM)
                        _exit(13);
                if (syscall(SYS_getpid) != getpid())
                        _exit(14);
                _exit(denies_the_rest());
        }
        assert_int_equal(waitpid(pid, &status, 0), pid);
        assert_true(WIFEXITED(status));
        assert_int_equal(WEXITSTATUS(status), 0);
}

static void expect_bad(const char *text, const char *words)
{
        scmp_filter_ctx ctx = NULL;
        int above = -1;
        char err[256] = "";

        assert_int_equal(sbx_seccomp_compile(text, &ctx, &above, err, sizeof(err)), -1);
        if (!strstr(err, words))
                fail_msg("error \"%s\" lacks \"%s\"", err, words);
        assert_null(ctx);
}

static void test_bad_lines_are_refused(void **state)
{
        expect_bad("eperm ptrace\nallow ptrace\n", "line 2: unknown action");
        expect_bad("eperm not_a_syscall\n", "line 1: unknown syscall");
        expect_bad("eperm\n", "line 1: missing syscall");
        expect_bad("# c\n\neperm ioctl arg9 == 1\n", "line 3: expected argN");
        expect_bad("eperm ioctl arg1 =~ 1\n", "line 1: unknown operator");
        expect_bad("eperm ioctl arg1 == TIOCFOO\n", "line 1: bad value");
        expect_bad("eperm ioctl arg1 == 12abc\n", "line 1: bad value");
        expect_bad("eperm ioctl arg1 ==\n", "line 1: incomplete");
        expect_bad("eperm clone arg0 & 0\n", "line 1: mask 0");
        expect_bad("eperm clone arg0 & 0 != 0\n", "line 1: \"& MASK !=\" takes a nonzero mask");
        expect_bad("eperm clone arg0 & 4 != 4\n", "line 1: \"& MASK !=\" takes a nonzero mask");
        expect_bad("enosys above\n", "line 1: expected \"enosys above SYSCALL\"");
        expect_bad("enosys above nothing_such\n", "line 1: unknown syscall");
        expect_bad("enosys above cachestat\nenosys above fchmodat2\n", "line 2: a second");
        /* 33 bits set: more than 32 rules for one syscall */
        expect_bad("eperm personality arg0 & 0x1ffffffff != 0\n", "line 1: more than 32 rules");
}

/* libseccomp 2.5.4 loops for minutes merging rules of several range
 * conditions on one syscall: the parser takes one condition per rule and
 * 32 rules per syscall, and refuses more at once instead of hanging. */
static void test_rule_shapes_are_bounded(void **state)
{
        char text[33 * 40 + 1];
        size_t used = 0;
        scmp_filter_ctx ctx = NULL;
        int above = -1;
        char err[256] = "";

        expect_bad("kill read arg0 > 1 arg1 > 5\n", "line 1: one condition per rule (\"arg1\" follows it)");
        expect_bad("eperm socket arg0 != 1 arg0 != 2\n", "line 1: one condition per rule");
        for (int i = 0; i < 32; i++)
                used += (size_t)snprintf(text + used, sizeof(text) - used, "kill read arg%d > %d\n", i % 6, i);
        assert_int_equal(sbx_seccomp_compile(text, &ctx, &above, err, sizeof(err)), 0);
        seccomp_release(ctx);
        snprintf(text + used, sizeof(text) - used, "kill read arg0 < 3\n");
        expect_bad(text, "line 33: more than 32 rules for read");
}

static void test_syscall_count_is_bounded(void **state)
{
        char *text = calloc(1, 257 * 40);
        size_t used = 0;
        int rules = 0;

        assert_non_null(text);
        for (int nr = 0; nr < 1024 && rules < 257; nr++) {
                char *name = seccomp_syscall_resolve_num_arch(SCMP_ARCH_NATIVE, nr);

                if (!name)
                        continue;
                used += (size_t)sprintf(text + used, "eperm %s\n", name);
                free(name);
                rules++;
        }
        assert_int_equal(rules, 257);
        expect_bad(text, "line 257: rules for more than 256 syscalls");
        free(text);
}

static void test_good_forms_compile(void **state)
{
        scmp_filter_ctx ctx = NULL;
        int above = -1;
        char err[256] = "";

        assert_int_equal(sbx_seccomp_compile("# only comments\n  \n"
                                             "enosys above fchmodat2\n"
                                             "eperm personality arg0 & 0xfffdfff7 != 0\n"
                                             "kill reboot # trailing comment\n"
                                             "enosys clone3\n"
                                             "eperm clone arg0 & CLONE_NEWUSER\n"
                                             "eperm ioctl arg1 & 0xffffffff == TIOCSTI\n"
                                             "eperm socket arg0 > AF_INET6\n"
                                             "eperm mmap arg2 >= 4",
                                             &ctx, &above, err, sizeof(err)), 0);
        seccomp_release(ctx);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_builtin_program_is_the_policy),
                cmocka_unit_test(test_program_is_written_whole),
                cmocka_unit_test(test_installed_program_denies),
                cmocka_unit_test(test_bad_lines_are_refused),
                cmocka_unit_test(test_good_forms_compile),
                cmocka_unit_test(test_rule_shapes_are_bounded),
                cmocka_unit_test(test_syscall_count_is_bounded),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
