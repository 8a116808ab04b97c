/* Parser for policy/seccomp.policy (format in that file's header) and its
 * compilation into a libseccomp filter. Library code: nothing here exits. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

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
        { "CLONE_PARENT", CLONE_PARENT },
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

/* One condition at w[0]: "argN OP V", "argN & M", "argN & M == V" or
 * "argN & M != 0" (some bit of M set: *any_bits is M, the caller adds one
 * rule per bit, since a rule's conditions can only be ANDed).
 * Returns the number of words used, or -1 with the error written. */
static int parse_condition(char **w, int nw, struct scmp_arg_cmp *cmp, uint64_t *any_bits,
                           int line, char *errbuf, size_t errlen)
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
        if (strcmp(w[1], "&") == 0 && nw >= 5 && strcmp(w[3], "!=") == 0) {
                if (strcmp(w[4], "0") != 0 || a == 0)
                        return policy_fail(errbuf, errlen, line, "\"& MASK !=\" takes a nonzero mask and 0");
                *any_bits = a;
                *cmp = SCMP_CMP(arg, SCMP_CMP_MASKED_EQ, a, a);
                return 5;
        }
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

struct policy_state {
        scmp_filter_ctx ctx;
        struct policy_budget budget;
        int enosys_above;               /* syscall number, or -1 */
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

static int parse_action(const char *word, uint32_t *action)
{
        if (strcmp(word, "eperm") == 0)
                *action = SCMP_ACT_ERRNO(EPERM);
        else if (strcmp(word, "enosys") == 0)
                *action = SCMP_ACT_ERRNO(ENOSYS);
        else if (strcmp(word, "kill") == 0)
                *action = SCMP_ACT_KILL_PROCESS;
        else
                return -1;
        return 0;
}

/* "enosys above NAME": every syscall numbered above NAME gets ENOSYS
 * (sbx_seccomp_export puts that check before the rules). */
static int parse_above(struct policy_state *st, char **w, int nw, int line,
                       char *errbuf, size_t errlen)
{
        int nr;

        if (nw != 3)
                return policy_fail(errbuf, errlen, line, "expected \"enosys above SYSCALL\"");
        if (st->enosys_above >= 0)
                return policy_fail(errbuf, errlen, line, "a second \"enosys above\"");
        nr = seccomp_syscall_resolve_name(w[2]);
        if (nr == __NR_SCMP_ERROR || nr < 0)
                return policy_fail(errbuf, errlen, line, "unknown syscall \"%s\"", w[2]);
        st->enosys_above = nr;
        return 0;
}

static int add_rule(struct policy_state *st, uint32_t action, int nr, const char *name,
                    unsigned ncmp, const struct scmp_arg_cmp *cmp, int line,
                    char *errbuf, size_t errlen)
{
        int rc;

        if (charge_budget(&st->budget, nr, name, line, errbuf, errlen) < 0)
                return -1;
        rc = seccomp_rule_add_array(st->ctx, action, nr, ncmp, cmp);
        if (rc < 0)
                return policy_fail(errbuf, errlen, line, "libseccomp refused the rule for %s: %s",
                                   name, strerror(-rc));
        return 0;
}

/* A rule per set bit of any_bits, or the one rule. */
static int add_rules(struct policy_state *st, uint32_t action, int nr, const char *name,
                     unsigned ncmp, struct scmp_arg_cmp *cmp, uint64_t any_bits, int line,
                     char *errbuf, size_t errlen)
{
        if (any_bits == 0)
                return add_rule(st, action, nr, name, ncmp, cmp, line, errbuf, errlen);
        for (unsigned bit = 0; bit < 64; bit++) {
                if (!(any_bits & (1ULL << bit)))
                        continue;
                cmp->datum_a = cmp->datum_b = 1ULL << bit;
                if (add_rule(st, action, nr, name, 1, cmp, line, errbuf, errlen) < 0)
                        return -1;
        }
        return 0;
}

static int compile_line(struct policy_state *st, char *text, int line, char *errbuf, size_t errlen)
{
        char *w[POLICY_MAX_WORDS];
        struct scmp_arg_cmp cmp = { 0 };
        uint64_t any_bits = 0;
        uint32_t action;
        int nw = 0, nr, used = 0;

        for (char *s = strtok(text, " \t\r"); s && *s != '#'; s = strtok(NULL, " \t\r")) {
                if (nw == POLICY_MAX_WORDS)
                        return policy_fail(errbuf, errlen, line, "too many words");
                w[nw++] = s;
        }
        if (nw == 0)
                return 0;
        if (parse_action(w[0], &action) < 0)
                return policy_fail(errbuf, errlen, line, "unknown action \"%s\" (eperm, enosys, kill)", w[0]);
        if (nw < 2)
                return policy_fail(errbuf, errlen, line, "missing syscall name");
        if (strcmp(w[0], "enosys") == 0 && strcmp(w[1], "above") == 0)
                return parse_above(st, w, nw, line, errbuf, errlen);
        nr = seccomp_syscall_resolve_name(w[1]);
        if (nr == __NR_SCMP_ERROR)
                return policy_fail(errbuf, errlen, line, "unknown syscall \"%s\"", w[1]);
        if (nw > 2) {
                used = parse_condition(w + 2, nw - 2, &cmp, &any_bits, line, errbuf, errlen);
                if (used < 0)
                        return -1;
                if (2 + used < nw)
                        return policy_fail(errbuf, errlen, line,
                                           "one condition per rule (\"%s\" follows it)", w[2 + used]);
        }
        return add_rules(st, action, nr, w[1], used ? 1 : 0, &cmp, any_bits, line, errbuf, errlen);
}

int sbx_seccomp_compile(const char *text, scmp_filter_ctx *out, int *enosys_above,
                        char *errbuf, size_t errlen)
{
        struct policy_state st = { .ctx = seccomp_init(SCMP_ACT_ALLOW), .enosys_above = -1 };
        char buf[POLICY_MAX_LINE];
        int line = 0;

        /* Another ABI's syscall numbers would dodge every rule: kill it. */
        if (!st.ctx || seccomp_attr_set(st.ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS) < 0 ||
            seccomp_attr_set(st.ctx, SCMP_FLTATR_CTL_OPTIMIZE, 2) < 0) {
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
                if (compile_line(&st, buf, line, errbuf, errlen) < 0)
                        goto fail;
        }
        *out = st.ctx;
        *enosys_above = st.enosys_above;
        return 0;
fail:
        if (st.ctx)
                seccomp_release(st.ctx);
        return -1;
}

/* Before libseccomp's rules: native syscalls numbered above the policy's
 * last known one answer ENOSYS, as Docker and systemd do, so that a newer
 * kernel's syscalls (which no rule here can name) never reach it. Foreign
 * architectures and x32 numbers go on to libseccomp's checks, which kill. */
static size_t guard_program(struct sock_filter *insns, int enosys_above)
{
        /* libseccomp's architecture tokens are the audit values */
        const struct sock_filter guard[] = {
                BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
                BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, seccomp_arch_native(), 0, 4),
                BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
                BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000, 2, 0),
                BPF_JUMP(BPF_JMP | BPF_JGT | BPF_K, (uint32_t)enosys_above, 0, 1),
                BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS),
        };

        if (enosys_above < 0)
                return 0;
        memcpy(insns, guard, sizeof(guard));
        return COUNT(guard);
}

int sbx_seccomp_export(const char *text, struct sock_filter *insns, size_t max, size_t *len,
                       char *errbuf, size_t errlen)
{
        scmp_filter_ctx ctx;
        int enosys_above, fd, rc;
        size_t head;
        ssize_t size;

        if (max < 8 || sbx_seccomp_compile(text, &ctx, &enosys_above, errbuf, errlen) < 0)
                return max < 8 ? policy_fail(errbuf, errlen, 0, "no room") : -1;
        head = guard_program(insns, enosys_above);
        fd = memfd_create("sbx-seccomp-export", MFD_CLOEXEC);
        rc = fd < 0 ? -errno : seccomp_export_bpf(ctx, fd);
        seccomp_release(ctx);
        if (rc < 0) {
                if (fd >= 0)
                        close(fd);
                return policy_fail(errbuf, errlen, 0, "exporting the program: %s", strerror(-rc));
        }
        size = pread(fd, insns + head, (max - head) * sizeof(*insns), 0);
        rc = errno;
        close(fd);
        if (size <= 0 || size % (ssize_t)sizeof(*insns) || (size_t)size == (max - head) * sizeof(*insns))
                return policy_fail(errbuf, errlen, 0, "the program: %s",
                                   size < 0 ? strerror(rc) : "empty, ragged or too long");
        *len = head + (size_t)size / sizeof(*insns);
        return 0;
}

int sbx_seccomp_build(struct sock_filter *insns, size_t max, size_t *len, char *errbuf, size_t errlen)
{
        return sbx_seccomp_export(sbx_seccomp_policy_text, insns, max, len, errbuf, errlen);
}
