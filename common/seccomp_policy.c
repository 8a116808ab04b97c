/* Parser for policy/seccomp.policy (format in that file's header) and its
 * compilation into a libseccomp filter. Library code: nothing here exits. */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#include "seccomp_policy.h"
#include "seccomp_policy_text.h"

#ifndef CLONE_NEWTIME
#define CLONE_NEWTIME 0x00000080
#endif
#define POLICY_MAX_WORDS 32
#define POLICY_MAX_LINE 512
/* At most one condition per rule: libseccomp 2.5.4 loops for minutes
 * merging rules of two or more range conditions on one syscall (three such
 * rules suffice: found by fuzzing, reproduced without sbx code), and the
 * policy never needs two. Rules per syscall are capped for the same reason. */
#define POLICY_MAX_RULES_PER_SYSCALL 32
#define POLICY_MAX_SYSCALLS 256
#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static const struct { const char *name; uint64_t value; } policy_names[] = {
        { "CLONE_NEWNS", CLONE_NEWNS },     { "CLONE_NEWCGROUP", CLONE_NEWCGROUP },
        { "CLONE_NEWUTS", CLONE_NEWUTS },   { "CLONE_NEWIPC", CLONE_NEWIPC },
        { "CLONE_NEWUSER", CLONE_NEWUSER }, { "CLONE_NEWPID", CLONE_NEWPID },
        { "CLONE_NEWNET", CLONE_NEWNET },   { "CLONE_NEWTIME", CLONE_NEWTIME },
        { "AF_UNIX", AF_UNIX },             { "AF_INET", AF_INET },
        { "AF_INET6", AF_INET6 },           { "TIOCSTI", TIOCSTI },
        { "TIOCLINUX", TIOCLINUX },
};

static const struct { const char *text; enum scmp_compare op; } policy_ops[] = {
        { "==", SCMP_CMP_EQ }, { "!=", SCMP_CMP_NE }, { "<", SCMP_CMP_LT },
        { "<=", SCMP_CMP_LE }, { ">", SCMP_CMP_GT },  { ">=", SCMP_CMP_GE },
};

__attribute__((format(printf, 4, 5)))
static int policy_fail(char *errbuf, size_t errlen, int line, const char *fmt, ...)
{
        va_list ap;
        int n = snprintf(errbuf, errlen, "seccomp policy line %d: ", line);

        va_start(ap, fmt);
        if (n >= 0 && (size_t)n < errlen)
                vsnprintf(errbuf + n, errlen - n, fmt, ap);
        va_end(ap);
        return -1;
}

static int parse_value(const char *word, uint64_t *value)
{
        char *end;

        for (size_t i = 0; i < COUNT(policy_names); i++) {
                if (strcmp(word, policy_names[i].name) == 0)
                        return *value = policy_names[i].value, 0;
        }
        if (word[0] < '0' || word[0] > '9')
                return -1;
        errno = 0;
        *value = strtoull(word, &end, 0);
        return (errno != 0 || *end != '\0') ? -1 : 0;
}

/* One condition at w[0]: "argN OP V", "argN & M" or "argN & M == V".
 * Returns the number of words used, or -1 with the error written. */
static int parse_condition(char **w, int nw, struct scmp_arg_cmp *cmp, int line,
                           char *errbuf, size_t errlen)
{
        uint64_t a, b;
        size_t op;

        if (strncmp(w[0], "arg", 3) != 0 || w[0][3] < '0' || w[0][3] > '5' || w[0][4] != '\0')
                return policy_fail(errbuf, errlen, line, "expected argN (N 0-5), got \"%s\"", w[0]);
        if (nw < 3)
                return policy_fail(errbuf, errlen, line, "incomplete condition on %s", w[0]);
        unsigned arg = (unsigned)(w[0][3] - '0');
        if (parse_value(w[2], &a) < 0)
                return policy_fail(errbuf, errlen, line, "bad value \"%s\"", w[2]);
        if (strcmp(w[1], "&") == 0 && nw >= 5 && strcmp(w[3], "==") == 0) {
                if (parse_value(w[4], &b) < 0)
                        return policy_fail(errbuf, errlen, line, "bad value \"%s\"", w[4]);
                *cmp = SCMP_CMP(arg, SCMP_CMP_MASKED_EQ, a, b);
                return 5;
        }
        if (strcmp(w[1], "&") == 0) {
                if (a == 0)
                        return policy_fail(errbuf, errlen, line, "mask 0 matches nothing");
                *cmp = SCMP_CMP(arg, SCMP_CMP_MASKED_EQ, a, a);
                return 3;
        }
        for (op = 0; op < COUNT(policy_ops) && strcmp(w[1], policy_ops[op].text) != 0; op++)
                ;
        if (op == COUNT(policy_ops))
                return policy_fail(errbuf, errlen, line, "unknown operator \"%s\"", w[1]);
        *cmp = SCMP_CMP(arg, policy_ops[op].op, a);
        return 3;
}

/* How many rules each syscall has collected so far. */
struct policy_budget {
        int nr[POLICY_MAX_SYSCALLS];
        unsigned rules[POLICY_MAX_SYSCALLS];
        unsigned n;
};

static int charge_budget(struct policy_budget *budget, int nr, const char *name,
                         int line, char *errbuf, size_t errlen)
{
        unsigned i;

        for (i = 0; i < budget->n && budget->nr[i] != nr; i++)
                ;
        if (i == budget->n) {
                if (i == POLICY_MAX_SYSCALLS)
                        return policy_fail(errbuf, errlen, line, "rules for more than %d syscalls",
                                           POLICY_MAX_SYSCALLS);
                budget->nr[i] = nr;
                budget->rules[i] = 0;
                budget->n++;
        }
        if (++budget->rules[i] > POLICY_MAX_RULES_PER_SYSCALL)
                return policy_fail(errbuf, errlen, line, "more than %d rules for %s",
                                   POLICY_MAX_RULES_PER_SYSCALL, name);
        return 0;
}

static int compile_line(scmp_filter_ctx ctx, struct policy_budget *budget, char *text, int line,
                        char *errbuf, size_t errlen)
{
        char *w[POLICY_MAX_WORDS];
        struct scmp_arg_cmp cmp = { 0 };
        uint32_t action;
        int nw = 0, nr, rc, used = 0;

        for (char *s = strtok(text, " \t\r"); s && *s != '#'; s = strtok(NULL, " \t\r")) {
                if (nw == POLICY_MAX_WORDS)
                        return policy_fail(errbuf, errlen, line, "too many words");
                w[nw++] = s;
        }
        if (nw == 0)
                return 0;
        if (strcmp(w[0], "eperm") == 0)
                action = SCMP_ACT_ERRNO(EPERM);
        else if (strcmp(w[0], "enosys") == 0)
                action = SCMP_ACT_ERRNO(ENOSYS);
        else if (strcmp(w[0], "kill") == 0)
                action = SCMP_ACT_KILL_PROCESS;
        else
                return policy_fail(errbuf, errlen, line, "unknown action \"%s\" (eperm, enosys, kill)", w[0]);
        if (nw < 2)
                return policy_fail(errbuf, errlen, line, "missing syscall name");
        nr = seccomp_syscall_resolve_name(w[1]);
        if (nr == __NR_SCMP_ERROR)
                return policy_fail(errbuf, errlen, line, "unknown syscall \"%s\"", w[1]);
        if (nw > 2) {
                used = parse_condition(w + 2, nw - 2, &cmp, line, errbuf, errlen);
                if (used < 0)
                        return -1;
                if (2 + used < nw)
                        return policy_fail(errbuf, errlen, line,
                                           "one condition per rule (\"%s\" follows it)", w[2 + used]);
        }
        if (charge_budget(budget, nr, w[1], line, errbuf, errlen) < 0)
                return -1;
        rc = seccomp_rule_add_array(ctx, action, nr, used ? 1 : 0, &cmp);
        if (rc < 0)
                return policy_fail(errbuf, errlen, line, "libseccomp refused the rule for %s: %s",
                                   w[1], strerror(-rc));
        return 0;
}

int sbx_seccomp_compile(const char *text, scmp_filter_ctx *out, char *errbuf, size_t errlen)
{
        scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
        struct policy_budget budget = { .n = 0 };
        char buf[POLICY_MAX_LINE];
        int line = 0;

        /* Another ABI's syscall numbers would dodge every rule: kill it. */
        if (!ctx || seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS) < 0) {
                policy_fail(errbuf, errlen, 0, "cannot set up a libseccomp filter");
                goto fail;
        }
        for (const char *p = text; *p; p += strcspn(p, "\n") + (p[strcspn(p, "\n")] == '\n')) {
                size_t len = strcspn(p, "\n");

                line++;
                if (len >= sizeof(buf)) {
                        policy_fail(errbuf, errlen, line, "line too long");
                        goto fail;
                }
                memcpy(buf, p, len);
                buf[len] = '\0';
                if (compile_line(ctx, &budget, buf, line, errbuf, errlen) < 0)
                        goto fail;
        }
        *out = ctx;
        return 0;
fail:
        if (ctx)
                seccomp_release(ctx);
        return -1;
}

int sbx_seccomp_build(scmp_filter_ctx *out, char *errbuf, size_t errlen)
{
        return sbx_seccomp_compile(sbx_seccomp_policy_text, out, errbuf, errlen);
}
