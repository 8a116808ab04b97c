/* The run's root, in its mount namespace (a copy of the zygote's, locked):
 * everything inherited read-only, one size-capped tmpfs whose directories
 * are /tmp, /dev/shm and the homes, the session's binds under those put
 * back on top (as the cold path binds them after its /tmp), the workdir in
 * it with its files copied in and bound read-only; B1 adds a fresh /proc.
 * As the zygote's build_root did (docs/warm.md). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/mount.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cleanup.h"
#include "run_init.h"

#define TMPFS_FLAGS (MS_NOSUID | MS_NODEV)
#define PROC_FLAGS (MS_NOSUID | MS_NODEV | MS_NOEXEC)

struct kept_bind { const char *path; int fd; bool is_dir; };

static void bind(const char *src, const char *target, unsigned long flags)
{
        if (mount(src, target, NULL, MS_BIND, NULL) < 0)
                init_die(errno, "bind %s", target);
        if (mount(NULL, target, NULL, MS_REMOUNT | MS_BIND | flags, NULL) < 0)
                init_die(errno, "remount %s", target);
}

/* Whatever the zygote's sandbox left writable (its /tmp, a home, a host's
 * /var/tmp) is read-only here: nothing a sample writes outlives its run. */
static void make_all_read_only(void)
{
        struct mount_attr attr = { .attr_set = MOUNT_ATTR_RDONLY };

        if (syscall(SYS_mount_setattr, AT_FDCWD, "/", AT_RECURSIVE, &attr, sizeof(attr)) < 0)
                init_die(errno, "make / read-only");
}

static void mkdir_p(const char *path, mode_t mode)
{
        char buf[PATH_MAX];

        if (snprintf(buf, sizeof(buf), "%s", path) >= (int)sizeof(buf))
                init_die(ENAMETOOLONG, "mkdir %s", path);
        for (char *c = buf + 1;; c++) {
                bool last = *c == '\0';

                if (*c != '/' && !last)
                        continue;
                *c = '\0';
                if (mkdir(buf, mode) < 0 && errno != EEXIST)
                        init_die(errno, "mkdir %s", buf);
                if (last)
                        return;
                *c = '/';
        }
}

static void copy_binds(const struct init_request *rq, struct kept_bind *kept)
{
        for (int i = 0; i < rq->nbinds; i++) {
                struct stat st;
                int fd = (int)syscall(SYS_open_tree, AT_FDCWD, rq->binds[i],
                                      OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_RECURSIVE);

                if (fd < 0 || fstat(fd, &st) < 0)
                        init_die(errno, "copy the bind %s", rq->binds[i]);
                kept[i] = (struct kept_bind){ rq->binds[i], fd, S_ISDIR(st.st_mode) };
        }
}

static void put_back(const struct kept_bind *kept, int n)
{
        for (int i = 0; i < n; i++) {
                char parent[PATH_MAX];
                char *slash;

                snprintf(parent, sizeof(parent), "%s", kept[i].path);
                slash = strrchr(parent, '/');
                if (slash && slash != parent) {
                        *slash = '\0';
                        mkdir_p(parent, 0755);
                }
                if (kept[i].is_dir) {
                        mkdir_p(kept[i].path, 0755);
                } else {
                        int fd = open(kept[i].path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0444);

                        if (fd < 0 && errno != EEXIST)
                                init_die(errno, "make %s", kept[i].path);
                        if (fd >= 0)
                                close(fd);
                }
                if (syscall(SYS_move_mount, kept[i].fd, "", AT_FDCWD, kept[i].path, MOVE_MOUNT_F_EMPTY_PATH) < 0)
                        init_die(errno, "bind %s again", kept[i].path);
                close(kept[i].fd);
        }
}

static bool is_real_dir(const char *path)
{
        struct stat st;

        return lstat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static void mount_tmpfs(const struct init_request *rq)
{
        char opts[128];
        const char *scratch = "/tmp/" INIT_SCRATCH;

        snprintf(opts, sizeof(opts), "size=%lld,nr_inodes=%lld,mode=0755", rq->tmpfs_bytes,
                 rq->tmpfs_bytes / INIT_TMPFS_INODE_BYTES + 64);
        if (mount("tmpfs", "/tmp", "tmpfs", TMPFS_FLAGS, opts) < 0)
                init_die(errno, "mount the run's tmpfs on /tmp");
        if (mkdir(scratch, 0700) < 0 || mkdir("/tmp/" INIT_SCRATCH "/tmp", 01777) < 0 ||
            mkdir("/tmp/" INIT_SCRATCH "/shm", 01777) < 0 || mkdir("/tmp/" INIT_SCRATCH "/home", 0700) < 0)
                init_die(errno, "make the run's tmpfs directories");
        if (is_real_dir("/dev/shm"))
                bind("/tmp/" INIT_SCRATCH "/shm", "/dev/shm", TMPFS_FLAGS);
        for (int i = 0; i < rq->nhomes; i++)
                if (is_real_dir(rq->homes[i]))
                        bind("/tmp/" INIT_SCRATCH "/home", rq->homes[i], TMPFS_FLAGS);
        bind("/tmp/" INIT_SCRATCH "/tmp", "/tmp", TMPFS_FLAGS);
        for (int i = 0; i < rq->ntmp_dirs; i++)
                mkdir_p(rq->tmp_dirs[i], 0700);
}

static void copy_in(int src, const char *path)
{
        struct stat st;
        auto_fd out = -1;

        if (fstat(src, &st) < 0 || !S_ISREG(st.st_mode))
                init_die(0, "%s: not a regular file", path);
        out = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
        if (out < 0)
                init_die(errno, "copy %s into the workdir", path);
        for (off_t offset = 0;;) {
                ssize_t n = sendfile(out, src, &offset, 1 << 30);

                if (n < 0)
                        init_die(errno, "copy %s into the workdir", path);
                if (n == 0)
                        return;
        }
}

static void add_workdir(const struct init_request *rq)
{
        umask(022);
        mkdir_p(rq->cwd, 0755);
        if (chmod(rq->cwd, 0700) < 0)
                init_die(errno, "chmod %s", rq->cwd);
        for (int i = 0; i < rq->nfiles; i++) {
                char path[PATH_MAX];

                if (snprintf(path, sizeof(path), "%s/%s", rq->cwd, rq->files[i].name) >= (int)sizeof(path))
                        init_die(ENAMETOOLONG, "workdir file %s", rq->files[i].name);
                copy_in(rq->files[i].fd, path);
                bind(path, path, MS_RDONLY | MS_NOSUID | MS_NODEV);
        }
}

void init_build_root(const struct init_request *rq)
{
        struct kept_bind kept[INIT_MAX_BINDS];

        umask(0);
        make_all_read_only();
        copy_binds(rq, kept);
        mount_tmpfs(rq);
        put_back(kept, rq->nbinds);
        add_workdir(rq);
}

/* By B1, in the run's pid namespace (a proc shows its mounter's). The
 * tier's /proc read-only and locked so: a new one must be too. */
void init_mount_proc(void)
{
        static const char *const read_only[] = { "sys", "sysrq-trigger", "irq", "bus" };

        if (mount("proc", "/proc", "proc", PROC_FLAGS, NULL) < 0 &&
            mount("proc", "/proc", "proc", PROC_FLAGS | MS_RDONLY, NULL) < 0)
                init_die(errno, "mount a fresh /proc");
        for (size_t i = 0; i < sizeof(read_only) / sizeof(read_only[0]); i++) {
                char path[32];
                struct stat st;

                snprintf(path, sizeof(path), "/proc/%s", read_only[i]);
                if (lstat(path, &st) == 0)
                        bind(path, path, MS_RDONLY | PROC_FLAGS);
        }
}
