/* The sandbox's file system: a fresh tmpfs root with read-only binds of the
 * system directories and the requested paths, the workdir, a fresh /proc (its
 * kernel knobs read-only), a minimal /dev; /tmp, /dev/shm, home and a private
 * workdir are directories of the root's one tmpfs, bounded together by
 * tmpfs_size. Runs as root in the new mount namespace (init, first). */
#include <linux/openat2.h>
#include <sys/fsuid.h>
#include <sys/mount.h>
#include <sys/sysmacros.h>

#include "helper.h"
#include "sysdirs.h"

/* The writable directories, in the root tmpfs, reached through binds only. */
#define SCRATCH_DIR ".sbx-tmpfs"
#define SCRATCH_BYTES_PER_INODE 2048
#define DEV_TMPFS_SIZE "64k"
#define RO_ATTRS (MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV)
#define RW_ATTRS (MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV)

/* Nothing the caller names may land on or under the system directories
 * (bound read-only, sbx_system_dirs), nor bind from or to the kernel's. */
static const char *const kernel_dirs[] = { "/proc", "/dev", "/sys", NULL };
/* Bound over themselves read-only, as bubblewrap does. */
static const char *const proc_read_only[] = { "sys", "sysrq-trigger", "irq", "bus", NULL };

/* Only harmless character devices (no tty: nothing reaches a terminal),
 * and links into /proc/self/fd. */
static const struct { const char *name; unsigned major, minor; const char *link; } dev_entries[] = {
        { "null", 1, 3, NULL }, { "zero", 1, 5, NULL }, { "full", 1, 7, NULL }, { "random", 1, 8, NULL },
        { "urandom", 1, 9, NULL }, { "fd", 0, 0, "/proc/self/fd" }, { "stdin", 0, 0, "/proc/self/fd/0" },
        { "stdout", 0, 0, "/proc/self/fd/1" }, { "stderr", 0, 0, "/proc/self/fd/2" },
};

/* path (absolute, clean) is DIR or lies below it for one of dirs (absolute). */
static bool path_in(const char *path, const char *const *dirs)
{
        while (*dirs && !path_is_under(path, *dirs))
                dirs++;
        return *dirs != NULL;
}

static bool path_is_reserved(const char *path)
{
        return path_in(path, sbx_system_dirs) || path_in(path, kernel_dirs);
}

/* As the caller (fsuid/fsgid), so the helper opens nothing the caller could
 * not, and with no symlink on the way; this O_PATH fd is what gets mounted. */
static int open_as_caller(const char *path, uint64_t flags, const struct caller *who)
{
        struct open_how how = { .flags = flags | O_PATH | O_CLOEXEC,
                                .resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS };
        int fd;

        privs_fs_identity(who->uid, who->gid);
        fd = (int)syscall(SYS_openat2, AT_FDCWD, path, &how, sizeof(how));
        privs_fs_identity(0, 0);
        return fd;
}

/* $HOME and /run/user/UID hold the caller's keys, tokens and sockets:
 * never bound whole, nor any directory above them. */
static bool covers_private_dir(const char *path, const struct caller *who)
{
        char run_user[64];

        snprintf(run_user, sizeof(run_user), "/run/user/%u", (unsigned)who->uid);
        return path_is_under(who->home, path) || path_is_under(run_user, path);
}

static bool under_any_prefix(const char *path, const struct config *cfg)
{
        size_t i = 0;

        while (i < cfg->n_prefixes && !path_is_under(path, cfg->prefixes[i]))
                i++;
        return i < cfg->n_prefixes;
}

struct sources {
        int workdir_fd;                 /* -1 for a private workdir or none */
        int ro_fds[SBX_MAX_RO_BINDS];
        bool ro_is_dir[SBX_MAX_RO_BINDS];
};

/* Opens what the request binds, checked on the fds, inside the new mount
 * namespace (a bind source must be a mount of the namespace it is bound in). */
static void open_sources(const struct request *rq, const struct config *cfg,
                         const struct caller *who, struct sources *src)
{
        struct stat st;

        src->workdir_fd = -1;
        if (rq->workdir && path_is_reserved(rq->workdir))
                die("workdir %s may not be or lie under a system directory, /proc or /dev", rq->workdir);
        if (rq->workdir && !rq->private_workdir) {
                if (covers_private_dir(rq->workdir, who))
                        die("workdir %s is or holds your home or /run/user directory", rq->workdir);
                src->workdir_fd = open_as_caller(rq->workdir, O_DIRECTORY, who);
                if (src->workdir_fd < 0 || fstat(src->workdir_fd, &st) < 0)
                        die_errno("workdir %s (it must be a directory reached without symlinks)", rq->workdir);
                if (st.st_uid != who->uid)
                        die("workdir %s is not owned by you", rq->workdir);
        }
        for (size_t i = 0; i < rq->n_ro_binds; i++) {
                const char *path = rq->ro_binds[i];

                if (path_in(path, kernel_dirs))
                        die("--ro-bind %s: /proc, /dev and /sys may not be bound", path);
                if (covers_private_dir(path, who))
                        die("--ro-bind %s: is or holds your home or /run/user directory", path);
                src->ro_fds[i] = open_as_caller(path, 0, who);
                if (src->ro_fds[i] < 0 || fstat(src->ro_fds[i], &st) < 0)
                        die_errno("--ro-bind %s (it must be reached without symlinks)", path);
                /* A read-only bind leaves a socket connectable and a FIFO writable. */
                if (!S_ISDIR(st.st_mode) && !S_ISREG(st.st_mode))
                        die("--ro-bind %s: not a regular file or directory (a socket or FIFO?)", path);
                if (!under_any_prefix(path, cfg) && st.st_uid != who->uid)
                        die("--ro-bind %s: not under an ro_bind_prefix of %s and not owned by you",
                            path, cfg->path);
                src->ro_is_dir[i] = S_ISDIR(st.st_mode);
        }
}

/* Opens (creating if missing) each component of a mount point; path_walk
 * never follows a symlink, so nothing caller-writable can redirect a mount.
 * Created as root only in the sandbox's root tmpfs, elsewhere (a host
 * workdir) as the caller: no name or race yields a root file on the host. */
struct mountpoint { const char *path; bool want_dir; const struct caller *who; dev_t root_dev; };

static int mountpoint_step(int parent, const char *name, bool last, void *arg)
{
        const struct mountpoint *mp = arg;
        bool dir = !last || mp->want_dir, ours;
        int fd = openat(parent, name, O_PATH | O_NOFOLLOW | O_CLOEXEC), made;
        struct stat st;

        if (fd < 0 && errno == ENOENT) {
                ours = fstat(parent, &st) == 0 && st.st_dev == mp->root_dev;
                if (!ours)
                        privs_fs_identity(mp->who->uid, mp->who->gid);
                made = dir ? mkdirat(parent, name, 0755)
                           : openat(parent, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0444);
                if (!ours)
                        privs_fs_identity(0, 0);
                if (made < 0 || (!dir && close(made) < 0))
                        die_errno("create %s in the sandbox", mp->path);
                fd = openat(parent, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
        }
        if (fd < 0 || fstat(fd, &st) < 0)
                die_errno("mount point %s", mp->path);
        if (dir ? !S_ISDIR(st.st_mode) : !S_ISREG(st.st_mode))
                die("mount point %s: unexpected file type (a symlink?)", mp->path);
        return fd;
}

static void attach(int mntfd, int rootfd, const char *path, bool is_dir, const struct caller *who)
{
        struct mountpoint mp = { path, is_dir, who, 0 };
        struct stat st;
        auto_fd target = -1;

        if (fstat(rootfd, &st) < 0)
                die_errno("stat the sandbox's root");
        mp.root_dev = st.st_dev;
        target = path_walk(rootfd, path, mountpoint_step, &mp);

        if (target < 0 || move_mount(mntfd, "", target, "", MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH) < 0)
                die_errno("mount %s in the sandbox", path);
}

static int new_fs(const char *type, const char *const *opts, unsigned attrs)
{
        auto_fd fs = fsopen(type, FSOPEN_CLOEXEC);
        int mnt;

        if (fs < 0)
                die_errno("fsopen %s", type);
        for (; opts && opts[0]; opts += 2) {
                if (fsconfig(fs, FSCONFIG_SET_STRING, opts[0], opts[1], 0) < 0)
                        die_errno("%s option %s=%s", type, opts[0], opts[1]);
        }
        if (fsconfig(fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0) < 0)
                die_errno("create %s", type);
        mnt = fsmount(fs, FSMOUNT_CLOEXEC, attrs);
        if (mnt < 0)
                die_errno("fsmount %s", type);
        return mnt;
}

static void bind_tree(int srcfd, int rootfd, const char *path, bool is_dir, unsigned attrs,
                      const struct caller *who)
{
        struct mount_attr attr = { .attr_set = attrs };
        auto_fd tree = open_tree(srcfd, "", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC |
                                 AT_EMPTY_PATH | AT_RECURSIVE);

        if (tree < 0 || mount_setattr(tree, "", AT_EMPTY_PATH | AT_RECURSIVE, &attr, sizeof(attr)) < 0)
                die_errno("bind %s", path);
        attach(tree, rootfd, path, is_dir, who);
}

/* The directory name below dirfd, reached without a symlink, bound at path. */
static void bind_dir(int dirfd, const char *name, int rootfd, const char *path, unsigned attrs,
                     const struct caller *who)
{
        auto_fd src = openat(dirfd, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

        if (src < 0)
                die_errno("bind %s", path);
        bind_tree(src, rootfd, path, true, attrs, who);
}

/* Merged-/usr hosts have /bin -> usr/bin: recreate the symlink, bind the rest. */
static void add_system_dirs(int rootfd, const struct caller *who)
{
        char target[256];
        struct stat st;

        for (const char *const *dir = sbx_system_dirs; *dir; dir++) {
                const char *path = *dir;
                ssize_t n;

                if (lstat(path, &st) < 0)
                        continue;
                if (S_ISLNK(st.st_mode)) {
                        if ((n = readlink(path, target, sizeof(target) - 1)) < 0)
                                die_errno("readlink %s", path);
                        target[n] = '\0';
                        if (symlinkat(target, rootfd, path + 1) < 0)
                                die_errno("symlink %s in the sandbox", path);
                } else if (S_ISDIR(st.st_mode)) {
                        bind_dir(AT_FDCWD, path, rootfd, path, RO_ATTRS, who);
                }
        }
}

/* The writable directories: root's, mode 0700 and hidden in the root
 * tmpfs, each bound to its place; init runs with umask 0. */
static int make_scratch(int rootfd, const struct caller *who)
{
        static const struct { const char *name; mode_t mode; bool callers; } dirs[] = {
                { "tmp", 01777, false }, { "shm", 01777, false }, { "home", 0700, true }, { "work", 0700, true },
        };
        auto_fd scratch = -1;

        if (mkdirat(rootfd, SCRATCH_DIR, 0700) < 0 ||
            (scratch = openat(rootfd, SCRATCH_DIR, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0)
                die_errno("create /%s", SCRATCH_DIR);
        for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
                if (mkdirat(scratch, dirs[i].name, dirs[i].mode) < 0 ||
                    (dirs[i].callers && fchownat(scratch, dirs[i].name, who->uid, who->gid, AT_SYMLINK_NOFOLLOW) < 0))
                        die_errno("create /%s/%s", SCRATCH_DIR, dirs[i].name);
        }
        return take_fd(&scratch);
}

static void add_dev(int rootfd, int scratch, const struct caller *who)
{
        const char *opts[] = { "size", DEV_TMPFS_SIZE, "mode", "0755", "uid", "0", "gid", "0", NULL };
        struct mount_attr ro = { .attr_set = MOUNT_ATTR_RDONLY };
        auto_fd dev = new_fs("tmpfs", opts, MOUNT_ATTR_NOSUID | MOUNT_ATTR_NOEXEC);

        for (size_t i = 0; i < sizeof(dev_entries) / sizeof(dev_entries[0]); i++) {
                const char *name = dev_entries[i].name, *link = dev_entries[i].link;
                dev_t dev_id = makedev(dev_entries[i].major, dev_entries[i].minor);

                if (link ? symlinkat(link, dev, name) < 0 : mknodat(dev, name, S_IFCHR | 0666, dev_id) < 0)
                        die_errno("create /dev/%s", name);
        }
        if (mkdirat(dev, "shm", 0755) < 0)
                die_errno("mkdir /dev/shm");
        attach(dev, rootfd, "/dev", true, who);
        bind_dir(scratch, "shm", rootfd, "/dev/shm", RW_ATTRS, who);
        if (mount_setattr(dev, "", AT_EMPTY_PATH, &ro, sizeof(ro)) < 0)
                die_errno("make /dev read-only");
}

/* A fresh /proc, with the kernel's knobs in it bound over themselves
 * read-only (those this kernel lacks are skipped). Not for the zygote: its
 * user namespace could mount no /proc of its own over locked binds (its
 * per-sample init binds them in each sample's /proc). */
static void add_proc(int rootfd, const struct caller *who, bool zygote)
{
        auto_fd proc = new_fs("proc", NULL, MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC);
        char path[64];
        struct stat st;

        attach(proc, rootfd, "/proc", true, who);
        for (const char *const *name = proc_read_only; *name && !zygote; name++) {
                auto_fd src = openat(proc, *name, O_PATH | O_NOFOLLOW | O_CLOEXEC);

                if (src < 0 && errno == ENOENT)
                        continue;
                if (src < 0 || fstat(src, &st) < 0)
                        die_errno("open /proc/%s", *name);
                snprintf(path, sizeof(path), "/proc/%s", *name);
                bind_tree(src, rootfd, path, S_ISDIR(st.st_mode), RO_ATTRS, who);
        }
}

static void add_user_paths(int rootfd, int scratch, const struct request *rq, const struct caller *who,
                           struct sources *src)
{
        bind_dir(scratch, "tmp", rootfd, "/tmp", RW_ATTRS, who);
        /* A home of / or inside a system directory is no place for a tmpfs. */
        if (strcmp(who->home, "/") != 0 && path_is_clean(who->home) && !path_is_reserved(who->home))
                bind_dir(scratch, "home", rootfd, who->home, RW_ATTRS, who);
        if (rq->workdir && rq->private_workdir)
                bind_dir(scratch, "work", rootfd, rq->workdir, RW_ATTRS, who);
        else if (rq->workdir)
                bind_tree(src->workdir_fd, rootfd, rq->workdir, true, RW_ATTRS, who);
        for (size_t i = 0; i < rq->n_ro_binds; i++)
                bind_tree(src->ro_fds[i], rootfd, rq->ro_binds[i], src->ro_is_dir[i], RO_ATTRS, who);
}

void mounts_build_root(const struct request *rq, const struct config *cfg, const struct caller *who)
{
        char size[32], inodes[32];
        const char *opts[] = { "size", size, "nr_inodes", inodes, "mode", "0755", "uid", "0", "gid", "0", NULL };
        struct mount_attr ro = { .attr_set = RO_ATTRS };
        auto_fd root = -1, scratch = -1;
        struct sources src;

        /* What init creates is root's, not in the caller's group. */
        privs_fs_identity(0, 0);
        open_sources(rq, cfg, who, &src);
        snprintf(size, sizeof(size), "%llu", (unsigned long long)rq->limit[LIM_TMPFS]);
        /* Inodes are kernel memory outside size: one per 2 KiB of it. */
        snprintf(inodes, sizeof(inodes), "%llu", (unsigned long long)(rq->limit[LIM_TMPFS] / SCRATCH_BYTES_PER_INODE + 64));
        /* Nothing we mount may propagate back to the host. */
        if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
                die_errno("make / private");
        root = new_fs("tmpfs", opts, MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV);
        if (move_mount(root, "", AT_FDCWD, "/tmp", MOVE_MOUNT_F_EMPTY_PATH) < 0)
                die_errno("mount the new root");
        scratch = make_scratch(root, who);
        add_system_dirs(root, who);
        add_proc(root, who, rq->zygote);
        add_dev(root, scratch, who);
        add_user_paths(root, scratch, rq, who, &src);
        if (mount_setattr(root, "", AT_EMPTY_PATH, &ro, sizeof(ro)) < 0)
                die_errno("make the new root read-only");
        if (fchdir(root) < 0 || syscall(SYS_pivot_root, ".", ".") < 0)
                die_errno("pivot_root");
        if (umount2(".", MNT_DETACH) < 0 || chdir("/") < 0)
                die_errno("detach the old root");
        for (size_t i = 0; i < rq->n_ro_binds; i++)
                close(src.ro_fds[i]);
        close_fdp(&src.workdir_fd);
}
