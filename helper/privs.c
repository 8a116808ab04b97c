/* Who the caller is, whether they may run sandboxes, and dropping to them.
 * Capabilities with prctl and capset: libcap-ng costs more (docs/performance.md). */
#include <grp.h>
#include <sys/fsuid.h>
#include <pwd.h>
#include <linux/capability.h>

#include "helper.h"

/* The union of the effective, permitted and inheritable sets. */
static uint64_t caps_present(void)
{
        struct __user_cap_header_struct head = { _LINUX_CAPABILITY_VERSION_3, 0 };
        struct __user_cap_data_struct data[2];

        if (syscall(SYS_capget, &head, data) < 0)
                die_errno("capget");
        return (data[0].effective | data[0].permitted | data[0].inheritable) |
               (uint64_t)(data[1].effective | data[1].permitted | data[1].inheritable) << 32;
}

int privs_check_installed(char *err, size_t errlen)
{
        static const struct { int cap; const char *name, *what; } needed[] = {
                { CAP_SYS_ADMIN, "CAP_SYS_ADMIN", "create namespaces and mounts" },
                { CAP_NET_ADMIN, "CAP_NET_ADMIN", "bring up the sandbox's loopback" },
                { CAP_MKNOD, "CAP_MKNOD", "create /dev nodes" },
        };

        /* File capabilities would run us without the uid checks setuid gives. */
        if (geteuid() != 0 && caps_present())
                return set_error(err, errlen, "installed with file capabilities, not setuid root: "
                                 "install it setuid root, mode 4750 root:sbx (make install)");
        if (geteuid() != 0)
                return set_error(err, errlen, "not installed setuid root");
        /* A setuid exec gets no more than the bounding set: in a container
         * without these (Docker's default drops CAP_SYS_ADMIN) no sandbox can be built. */
        for (size_t i = 0; i < sizeof(needed) / sizeof(needed[0]); i++) {
                if (prctl(PR_CAPBSET_READ, needed[i].cap, 0, 0, 0) != 1)
                        return set_error(err, errlen, "%s is missing from this process's bounding set "
                                         "(a container without it?), so the helper cannot %s",
                                         needed[i].name, needed[i].what);
        }
        return 0;
}

static bool caller_in_group(gid_t primary, gid_t wanted)
{
        int n = getgroups(0, NULL);
        auto_free gid_t *groups = n > 0 ? calloc((size_t)n, sizeof(gid_t)) : NULL;

        if (n < 0 || (n > 0 && (!groups || (n = getgroups(n, groups)) < 0)))
                die_errno("getgroups");
        for (int i = 0; i < n; i++) {
                if (groups[i] == wanted)
                        return true;
        }
        return primary == wanted;
}

int privs_identify_caller(const struct config *cfg, struct caller *who, char *err, size_t errlen)
{
        struct passwd *pw;
        struct group *gr;

        who->parent = getppid();
        who->uid = getuid();
        who->gid = getgid();
        if (who->uid == 0)
                return set_error(err, errlen, "refusing to run a sandbox for root");
        pw = getpwuid(who->uid);
        if (!pw || strlen(pw->pw_name) >= sizeof(who->name) || strlen(pw->pw_dir) >= sizeof(who->home))
                return set_error(err, errlen, "uid %u has no usable passwd entry", (unsigned)who->uid);
        strcpy(who->name, pw->pw_name);
        strcpy(who->home, pw->pw_dir);
        gr = getgrnam(cfg->group);
        if (!gr)
                return set_error(err, errlen, "group \"%s\" of %s does not exist", cfg->group, cfg->path);
        if (!caller_in_group(who->gid, gr->gr_gid))
                return set_error(err, errlen, "user %s is not in group \"%s\" and may not use the helper",
                                 who->name, cfg->group);
        return 0;
}

/* The bounding set but keep, one capability at a time until the kernel
 * knows no more (EINVAL), and the ambient set. Needs CAP_SETPCAP here. */
static void clear_bounding_and_ambient(uint64_t keep)
{
        int cap = 0;

        while (cap < 64 && ((keep >> cap & 1) ? prctl(PR_CAPBSET_READ, cap, 0, 0, 0) >= 0
                                              : prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) == 0))
                cap++;
        if (errno != EINVAL || cap == 0 || prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0)
                die_errno("cannot clear the bounding and ambient capability sets");
}

/* Every capability set emptied in the current user namespace but for keep,
 * which stays in all five: ambient too, so it survives the exec of a
 * program run as a uid other than 0 (no_new_privs keeps ambient ones). */
void privs_clear_caps(uint64_t keep)
{
        struct __user_cap_header_struct head = { _LINUX_CAPABILITY_VERSION_3, 0 };
        uint32_t lo = (uint32_t)keep, hi = (uint32_t)(keep >> 32);
        struct __user_cap_data_struct sets[2] = { { lo, lo, lo }, { hi, hi, hi } };

        clear_bounding_and_ambient(keep);
        if (syscall(SYS_capset, &head, sets) < 0)
                die_errno("cannot drop capabilities");
        for (int cap = 0; cap < 64; cap++) {
                if ((keep >> cap & 1) && prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, cap, 0, 0) < 0)
                        die_errno("cannot raise ambient capability %d", cap);
        }
        if (caps_present() != keep)     /* checked: a failed drop must never run anything */
                die("capabilities still present after dropping them (or kept ones missing)");
}

/* A credential change resets dumpable to fs.suid_dumpable: cleared again
 * after each, so no process of the caller's may ptrace us or read our memory. */
static void privs_undumpable(void)
{
        if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0 || prctl(PR_GET_DUMPABLE, 0, 0, 0, 0) != 0)
                die_errno("PR_SET_DUMPABLE");
}

/* The file system identity (for creating and opening as someone); checked.
 * errno is kept, so a caller can report the call it made under it. */
void privs_fs_identity(uid_t uid, gid_t gid)
{
        int saved = errno;

        setfsgid(gid);
        setfsuid(uid);
        if ((uid_t)setfsuid(uid) != uid || (gid_t)setfsgid(gid) != gid)
                die("cannot take the file system identity %u:%u", (unsigned)uid, (unsigned)gid);
        privs_undumpable();
        errno = saved;
}

static void check_uids(uid_t real, uid_t eff)
{
        uid_t r, e, s;

        if (getresuid(&r, &e, &s) < 0 || r != real || e != eff || s != eff)
                die("uids did not change to %u,%u,%u", (unsigned)real, (unsigned)eff, (unsigned)eff);
}

/* Effective and saved uid 0: no process of the caller's may prlimit, ptrace
 * or read us through /proc; with real 0 (the supervisor, once the caller is
 * known) nor signal us (kill -STOP). Init after setting up: the caller's real
 * uid, so the caller may kill the run, and no capability. */
void privs_become_root(uid_t real)
{
        if (setresuid(real, 0, 0) < 0)
                die_errno("setresuid");
        check_uids(real, 0);
        if (real != 0)
                privs_clear_caps(0);
        privs_undumpable();
}

/* Caller's uid and gid; the supplementary groups kept: dropping them would
 * grant what a group was denied (a file 0604 root:group: why the kernel
 * forbids unprivileged setgroups). No capabilities (setresuid away from 0
 * empties the other sets). Checked afterwards. */
void privs_drop_to(const struct caller *who)
{
        clear_bounding_and_ambient(0);
        if (setresgid(who->gid, who->gid, who->gid) < 0)
                die_errno("setresgid");
        if (setresuid(who->uid, who->uid, who->uid) < 0)
                die_errno("setresuid");
        check_uids(who->uid, who->uid);
        if (caps_present())
                die("capabilities still present after changing uid");
        privs_undumpable();
}
