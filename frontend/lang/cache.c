/* The compile cache's store: opening (and checking) the user's cache
 * directory, fetching an entry's files into a run's workdir, storing what
 * a compile left. The rules are cache.h's; eviction is cache_evict.c. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cache.h"
#include "lang.h"
#include "lang_cache_internal.h"
#include "util.h"

#define META_MAX_BYTES (LANG_CACHE_MESSAGE_MAX + 256)

static void closedirp(DIR **d)
{
        if (*d)
                closedir(*d);
}
#define auto_dir __attribute__((cleanup(closedirp))) DIR *

int lang_cache_dir_private(const char *path, bool others_may_read)
{
        struct stat st;
        mode_t forbidden = others_may_read ? (S_IWGRP | S_IWOTH) : 077;

        if (lstat(path, &st) < 0)
                return -1;
        if (!S_ISDIR(st.st_mode) || st.st_uid != getuid() || (st.st_mode & forbidden)) {
                errno = EPERM;
                return -1;
        }
        return 0;
}

/* The root may be a link (~/.cache on another disk): checked where it
 * leads. It may be readable by others (an existing ~/.cache/sbx), never
 * writable; compile/ and compile/v1 are made 0700 and must stay so. */
int lang_cache_open(const char *root, int64_t max_bytes, struct lang_cache *c,
                    struct sbx_err *err)
{
        auto_free char *real = NULL, *compile = NULL;

        memset(c, 0, sizeof(*c));
        c->max_bytes = max_bytes;
        if (!root || root[0] != '/')
                return sbx_fail(err, 0, "compile cache: %s is not an absolute path",
                                root ? root : "(no cache directory)");
        if (asprintf(&compile, "%s/" LANG_CACHE_DIR, root) < 0) {
                compile = NULL;
                return sbx_fail_oom(err, "compile cache");
        }
        if (sbx_mkdir_p(compile) < 0)
                return sbx_fail(err, errno, "compile cache: mkdir %s", compile);
        if (!(real = realpath(root, NULL)))
                return sbx_fail(err, errno, "compile cache: %s", root);
        free(compile);
        if (asprintf(&compile, "%s/compile", real) < 0) {
                compile = NULL;
                return sbx_fail_oom(err, "compile cache");
        }
        if (lang_cache_dir_private(real, true) < 0 || lang_cache_dir_private(compile, false) < 0)
                return sbx_fail(err, errno, "compile cache: %s and %s/ must be yours and "
                                "closed to others (chmod 700)", real, compile);
        if (asprintf(&c->dir, "%s/v1", compile) < 0) {
                c->dir = NULL;
                return sbx_fail_oom(err, "compile cache");
        }
        if (lang_cache_dir_private(c->dir, false) < 0) {
                sbx_fail(err, errno, "compile cache: %s must be yours and closed to others",
                         c->dir);
                lang_cache_close(c);
                return -1;
        }
        lang_cache_evict(c);
        return 0;
}

void lang_cache_close(struct lang_cache *c)
{
        free(c->dir);
        memset(c, 0, sizeof(*c));
}

/* Opens name in dirfd for reading: a regular file of ours, never through
 * a symlink, never blocking on a FIFO. */
static int open_ours(int dirfd, const char *name, struct stat *st)
{
        int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);

        if (fd < 0)
                return -1;
        if (fstat(fd, st) < 0 || !S_ISREG(st->st_mode) || st->st_uid != getuid()) {
                close(fd);
                errno = EPERM;
                return -1;
        }
        return fd;
}

int64_t lang_cache_copy_file(int src_dirfd, int dst_dirfd, const char *name, int64_t max)
{
        struct stat st;
        auto_fd in = open_ours(src_dirfd, name, &st);
        char buf[65536];
        int64_t total = 0;

        if (in < 0)
                return -1;
        if (st.st_size > max)
                return errno = EFBIG, -1;
        auto_fd out = openat(dst_dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                             (st.st_mode & 0700) | 0600);
        if (out < 0)
                return -1;
        for (;;) {
                ssize_t n = read(in, buf, sizeof(buf));
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0)
                        return -1;
                if (n == 0)
                        return total;
                if ((total += n) > max)
                        return errno = EFBIG, -1;
                if (sbx_write_all(out, buf, (size_t)n) < 0)
                        return -1;
        }
}

static char *read_meta(int entry_fd, size_t *len)
{
        struct stat st;
        auto_fd fd = open_ours(entry_fd, "meta", &st);
        char *buf;
        ssize_t n;

        if (fd < 0 || st.st_size > META_MAX_BYTES || !(buf = malloc(META_MAX_BYTES + 1)))
                return NULL;
        n = read(fd, buf, META_MAX_BYTES + 1);
        if (n < 0 || n > META_MAX_BYTES) {
                free(buf);
                return NULL;
        }
        buf[n] = '\0';
        *len = (size_t)n;
        return buf;
}

/* Every file of the entry's out/ into dest: all or a miss. */
static int copy_out(int entry_fd, const char *dest_dir)
{
        int out_fd = openat(entry_fd, "out", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        auto_fd dest = open(dest_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        auto_dir d = out_fd >= 0 ? fdopendir(out_fd) : NULL;
        struct dirent *e;
        int files = 0;

        if (!d) {
                if (out_fd >= 0)
                        close(out_fd);
                return -1;
        }
        if (dest < 0)
                return -1;
        while ((e = readdir(d))) {
                if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
                        continue;
                if (++files > LANG_CACHE_MAX_FILES ||
                    lang_cache_copy_file(dirfd(d), dest, e->d_name, INT64_MAX) < 0)
                        return -1;
        }
        return files > 0 ? 0 : -1;
}

int lang_cache_fetch(struct lang_cache *c, const char *key, const char *dest_dir,
                     struct lang_cache_meta *meta)
{
        auto_free char *entry = NULL, *text = NULL;
        size_t len = 0;
        struct stat st;

        memset(meta, 0, sizeof(*meta));
        if (!c->dir || !lang_cache_key_valid(key) ||
            asprintf(&entry, "%s/%.2s/%s", c->dir, key, key) < 0)
                return 0;
        auto_fd fd = open(entry, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0 || fstat(fd, &st) < 0 || st.st_uid != getuid() || (st.st_mode & 077))
                return 0;
        if (!(text = read_meta(fd, &len)) || lang_cache_meta_parse(text, len, meta) < 0)
                return 0;
        if (meta->status == LANG_CACHE_COMPILED && copy_out(fd, dest_dir) < 0) {
                lang_cache_meta_free(meta);
                return 0;
        }
        futimens(fd, NULL);     /* most recently used */
        return 1;
}
