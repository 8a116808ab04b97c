/* The seccomp policy: the embedded one compiles and denies what it must;
 * bad policy lines are refused with their line number. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/filter.h>
#include <cmocka.h>

#include "seccomp_policy.h"

static void test_embedded_policy_compiles(void **state)
{
        scmp_filter_ctx ctx = NULL;
        char err[256] = "";

        if (sbx_seccomp_build(&ctx, err, sizeof(err)) != 0)
                fail_msg("%s", err);
        assert_non_null(ctx);
        seccomp_release(ctx);
}

static void test_bpf_export_writes_a_program(void **state)
{
        char err[256] = "";
        int fds[2];
        ssize_t n;
        struct sock_filter insns[4096];

        assert_int_equal(pipe(fds), 0);
        assert_int_equal(sbx_seccomp_export_bpf(fds[1], err, sizeof(err)), 0);
        close(fds[1]);
        n = read(fds[0], insns, sizeof(insns));
        close(fds[0]);
        /* Many rules: well over a few instructions, whole instructions only. */
        assert_true(n > (ssize_t)(50 * sizeof(struct sock_filter)));
        assert_int_equal(n % (ssize_t)sizeof(struct sock_filter), 0);
        /* First: load the architecture; the native check guards every rule. */
        assert_int_equal(insns[0].code, BPF_LD | BPF_W | BPF_ABS);
        assert_int_equal(insns[0].k, 4);
}

static void expect_bad(const char *text, const char *words)
{
        scmp_filter_ctx ctx = NULL;
        char err[256] = "";

        assert_int_equal(sbx_seccomp_compile(text, &ctx, err, sizeof(err)), -1);
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
}

/* libseccomp 2.5.4 loops for minutes merging rules of several range
 * conditions on one syscall: the parser takes one condition per rule and
 * 32 rules per syscall, and refuses more at once instead of hanging. */
static void test_rule_shapes_are_bounded(void **state)
{
        char text[33 * 40 + 1];
        size_t used = 0;
        scmp_filter_ctx ctx = NULL;
        char err[256] = "";

        expect_bad("kill read arg0 > 1 arg1 > 5\n", "line 1: one condition per rule (\"arg1\" follows it)");
        expect_bad("eperm socket arg0 != 1 arg0 != 2\n", "line 1: one condition per rule");
        for (int i = 0; i < 32; i++)
                used += (size_t)snprintf(text + used, sizeof(text) - used, "kill read arg%d > %d\n", i % 6, i);
        assert_int_equal(sbx_seccomp_compile(text, &ctx, err, sizeof(err)), 0);
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
        char err[256] = "";

        assert_int_equal(sbx_seccomp_compile("# only comments\n  \n"
                                             "kill reboot # trailing comment\n"
                                             "enosys clone3\n"
                                             "eperm clone arg0 & CLONE_NEWUSER\n"
                                             "eperm ioctl arg1 & 0xffffffff == TIOCSTI\n"
                                             "eperm socket arg0 > AF_INET6\n"
                                             "eperm mmap arg2 >= 4",
                                             &ctx, err, sizeof(err)), 0);
        seccomp_release(ctx);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_embedded_policy_compiles),
                cmocka_unit_test(test_bpf_export_writes_a_program),
                cmocka_unit_test(test_bad_lines_are_refused),
                cmocka_unit_test(test_good_forms_compile),
                cmocka_unit_test(test_rule_shapes_are_bounded),
                cmocka_unit_test(test_syscall_count_is_bounded),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
