/* harden-exec: run a command as if on a hardened host, without touching the
 * machine's sysctls or anyone else's processes.
 *
 *   harden-exec [--no-userns [--allow-clone3] | --kill-pid-ns] [--no-cap-sys-admin]
 *               [--no-memfd [--no-tmpfile]] [--user NAME] -- CMD [ARG]...
 *
 * Run as root. --no-userns installs a seccomp filter that makes
 * unshare/clone with CLONE_NEWUSER fail with EPERM and clone3 fail with
 * ENOSYS (so glibc falls back to clone, where the flag is visible): what a
 * process sees with user.max_user_namespaces=0. No no_new_privs is set (root
 * may load a filter without it), so the filter stays in force across the exec
 * of the setuid helper. That is Docker's seccomp profile, which answers clone3
 * with ENOSYS; a host with user.max_user_namespaces=0 lets clone3 through
 * and refuses only the namespace: --allow-clone3 models that one (a clone3
 * asking for CLONE_NEWUSER then gets through: seccomp cannot read its flags).
 * --kill-pid-ns kills (SIGSYS) any process that asks clone or unshare for
 * a pid namespace, and answers clone3 with ENOSYS: a host profile that
 * kills where Docker's refuses. --no-cap-sys-admin drops CAP_SYS_ADMIN from the
 * bounding set, so no later exec (a setuid-root one included) can gain it:
 * Docker's default container. --no-memfd makes memfd_create fail with EPERM,
 * as some hosts' profiles do (where sbx-run keeps bwrap's seccomp program
 * in one). --no-tmpfile also refuses open(O_TMPFILE) and unlink (EPERM), so
 * no file can be made that no path reaches. --user drops to NAME (its groups, then its gid,
 * then its uid) before exec'ing CMD; without it CMD runs as root, still under
 * both restrictions, and so does everything it starts.
 *
 * A test tool, not part of sbx: the tests/hardened scripts compile it. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <grp.h>
#include <linux/capability.h>
#include <pwd.h>
#include <sched.h>
#include <seccomp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

struct harden_opts {
        bool no_userns;
        bool allow_clone3;
        bool kill_pid_ns;
        bool no_cap_sys_admin;
        bool no_memfd;
        bool no_tmpfile;
        const char *user;               /* NULL = stay root */
        char **argv;                    /* CMD [ARG]... */
};

static void die(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));
static void die(const char *fmt, ...)
{
        int saved = errno;
        va_list ap;

        fputs("harden-exec: ", stderr);
        va_start(ap, fmt);
        vfprintf(stderr, fmt, ap);
        va_end(ap);
        if (saved)
                fprintf(stderr, ": %s", strerror(saved));
        fputc('\n', stderr);
        exit(125);
}

static void usage_die(void) __attribute__((noreturn));
static void usage_die(void)
{
        fputs("usage: harden-exec [--no-userns [--allow-clone3] | --kill-pid-ns] [--no-cap-sys-admin]\n"
              "                   [--no-memfd [--no-tmpfile]] [--user NAME] -- CMD [ARG]...\n", stderr);
        exit(125);
}

static void parse_args(int argc, char **argv, struct harden_opts *opts)
{
        static const struct option longopts[] = {
                { "no-userns", no_argument, NULL, 'U' },
                { "allow-clone3", no_argument, NULL, 'C' },
                { "kill-pid-ns", no_argument, NULL, 'K' },
                { "no-cap-sys-admin", no_argument, NULL, 'S' },
                { "no-memfd", no_argument, NULL, 'M' },
                { "no-tmpfile", no_argument, NULL, 'T' },
                { "user", required_argument, NULL, 'u' },
                { NULL, 0, NULL, 0 },
        };
        int c;

        /* "+": stop at the first non-option, so CMD's own options stay CMD's. */
        while ((c = getopt_long(argc, argv, "+", longopts, NULL)) != -1) {
                switch (c) {
                case 'U': opts->no_userns = true; break;
                case 'C': opts->allow_clone3 = true; break;
                case 'K': opts->kill_pid_ns = true; break;
                case 'S': opts->no_cap_sys_admin = true; break;
                case 'M': opts->no_memfd = true; break;
                case 'T': opts->no_tmpfile = true; break;
                case 'u': opts->user = optarg; break;
                default: usage_die();
                }
        }
        if (optind >= argc || (opts->allow_clone3 && !opts->no_userns) ||
            (opts->kill_pid_ns && opts->no_userns) || (opts->no_tmpfile && !opts->no_memfd))
                usage_die();
        opts->argv = argv + optind;
}

static void release_filterp(scmp_filter_ctx *ctx)
{
        if (*ctx)
                seccomp_release(*ctx);
}

static void kill_pid_ns_rules(scmp_filter_ctx ctx)
{
        int rc;

        rc = seccomp_rule_add(ctx, SCMP_ACT_KILL_PROCESS, SCMP_SYS(unshare), 1,
                              SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_NEWPID, CLONE_NEWPID));
        if (rc == 0)
                rc = seccomp_rule_add(ctx, SCMP_ACT_KILL_PROCESS, SCMP_SYS(clone), 1,
                                      SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_NEWPID, CLONE_NEWPID));
        if (rc == 0)
                rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0);
        if (rc < 0) {
                errno = -rc;
                die("seccomp_rule_add");
        }
}

static void deny_userns_rules(scmp_filter_ctx ctx, bool allow_clone3)
{
        int rc;

        /* clone's flags are its first argument on every arch we add here
         * (s390 swaps them; we never add it). */
        rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(unshare), 1,
                              SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_NEWUSER, CLONE_NEWUSER));
        if (rc == 0)
                rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(clone), 1,
                                      SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_NEWUSER, CLONE_NEWUSER));
        /* clone3 passes its flags in memory, which seccomp cannot read. */
        if (rc == 0 && !allow_clone3)
                rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0);
        if (rc < 0) {
                errno = -rc;
                die("seccomp_rule_add");
        }
}

static void deny_memfd_rules(scmp_filter_ctx ctx, bool no_tmpfile)
{
        int rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(memfd_create), 0);

        if (rc == 0 && no_tmpfile)
                rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(openat), 1,
                                      SCMP_A2(SCMP_CMP_MASKED_EQ, __O_TMPFILE, __O_TMPFILE));
        if (rc == 0 && no_tmpfile)
                rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(open), 1,
                                      SCMP_A1(SCMP_CMP_MASKED_EQ, __O_TMPFILE, __O_TMPFILE));
        if (rc == 0 && no_tmpfile)
                rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(unlink), 0);
        if (rc == 0 && no_tmpfile)
                rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(unlinkat), 0);
        if (rc < 0) {
                errno = -rc;
                die("seccomp_rule_add(memfd_create)");
        }
}

/* The compat ABIs get the same rules, so a 32-bit unshare cannot step
 * around the simulation and a 32-bit program is not killed for its ABI. */
static void add_compat_arches(scmp_filter_ctx ctx)
{
        static const uint32_t compat[] = { SCMP_ARCH_X86, SCMP_ARCH_X32 };
        int rc;

        if (seccomp_arch_native() != SCMP_ARCH_X86_64)
                return;
        for (size_t i = 0; i < sizeof(compat) / sizeof(compat[0]); i++) {
                rc = seccomp_arch_add(ctx, compat[i]);
                if (rc < 0 && rc != -EEXIST) {
                        errno = -rc;
                        die("seccomp_arch_add");
                }
        }
}

static void install_filter(const struct harden_opts *opts)
{
        __attribute__((cleanup(release_filterp))) scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
        int rc;

        if (!ctx) {
                errno = 0;
                die("seccomp_init failed");
        }
        /* Without no_new_privs the setuid helper still gains root on exec;
         * the kernel lets us skip it because we hold CAP_SYS_ADMIN. */
        rc = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_NNP, 0);
        if (rc < 0) {
                errno = -rc;
                die("seccomp_attr_set(NNP)");
        }
        add_compat_arches(ctx);
        if (opts->kill_pid_ns)
                kill_pid_ns_rules(ctx);
        else if (opts->no_userns)
                deny_userns_rules(ctx, opts->allow_clone3);
        if (opts->no_memfd)
                deny_memfd_rules(ctx, opts->no_tmpfile);
        rc = seccomp_load(ctx);
        if (rc < 0) {
                errno = -rc;
                die("seccomp_load");
        }
}

/* Out of the bounding set, CAP_SYS_ADMIN can come back through no exec:
 * a setuid-root binary gets permitted = bounding set. */
static void drop_cap_sys_admin(void)
{
        if (prctl(PR_CAPBSET_DROP, CAP_SYS_ADMIN, 0, 0, 0) < 0)
                die("prctl(PR_CAPBSET_DROP, CAP_SYS_ADMIN)");
        if (prctl(PR_CAPBSET_READ, CAP_SYS_ADMIN, 0, 0, 0) != 0) {
                errno = 0;
                die("CAP_SYS_ADMIN is still in the bounding set");
        }
}

static void drop_to_user(const char *name)
{
        struct passwd *pw;
        uid_t ruid, euid, suid;

        errno = 0;
        pw = getpwnam(name);
        if (!pw)
                die("unknown user %s", name);
        if (initgroups(pw->pw_name, pw->pw_gid) < 0)
                die("initgroups(%s)", pw->pw_name);
        if (setresgid(pw->pw_gid, pw->pw_gid, pw->pw_gid) < 0)
                die("setresgid(%u)", (unsigned)pw->pw_gid);
        if (setresuid(pw->pw_uid, pw->pw_uid, pw->pw_uid) < 0)
                die("setresuid(%u)", (unsigned)pw->pw_uid);
        if (getresuid(&ruid, &euid, &suid) < 0)
                die("getresuid");
        errno = 0;
        if (ruid != pw->pw_uid || euid != pw->pw_uid || suid != pw->pw_uid)
                die("still not uid %u after setresuid", (unsigned)pw->pw_uid);
}

int main(int argc, char **argv)
{
        struct harden_opts opts = { 0 };

        parse_args(argc, argv, &opts);
        errno = 0;
        if (geteuid() != 0)
                die("must run as root (it installs a filter without no_new_privs)");
        if (opts.no_userns || opts.kill_pid_ns || opts.no_memfd)
                install_filter(&opts);
        if (opts.no_cap_sys_admin)
                drop_cap_sys_admin();
        if (opts.user)
                drop_to_user(opts.user);
        execvp(opts.argv[0], opts.argv);
        die("exec %s", opts.argv[0]);
}
