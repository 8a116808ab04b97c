/* Storing what a compile left: built in a temp directory beside the
 * entries and renamed into place, so that parallel writers need no lock
 * (the first rename wins) and a reader never sees half an entry. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cache.h"
#include "lang.h"
#include "lang_cache_internal.h"
#include "util.h"

static void closedirp(DIR **d)
{
        if (*d)
                closedir(*d);
}
#define auto_dir __attribute__((cleanup(closedirp))) DIR *

static int write_meta(int dirfd, const struct lang_cache_meta *meta)
{
        auto_free char *text = lang_cache_meta_format(meta);
        auto_fd fd = -1;

        if (!text)
                return errno = EINVAL, -1;
        fd = openat(dirfd, "meta", O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (fd < 0 || sbx_write_all(fd, text, strlen(text)) < 0)
                return -1;
        return 0;
}

/* The artifact files of src_dir into tmp/out; their bytes, or -1 with err. */
static int64_t copy_artifacts(const char *src_dir, int tmp_fd, const char *pattern,
                              int64_t max, struct sbx_err *err)
{
        auto_fd src = open(src_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        auto_fd out = -1;
        auto_dir d = NULL;
        struct dirent *e;
        int64_t total = 0;
        int files = 0;

        if (src < 0 || mkdirat(tmp_fd, "out", 0700) < 0 ||
            (out = openat(tmp_fd, "out", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0 ||
            !(d = fdopendir(dup(src))))
                return sbx_fail(err, errno, "compile cache: %s", src_dir);
        while ((e = readdir(d))) {
                if (!lang_artifact_match(pattern, e->d_name))
                        continue;
                int64_t n = lang_cache_copy_file(src, out, e->d_name, max - total);
                if (n < 0)
                        return sbx_fail(err, errno, "compile cache: %s/%s", src_dir, e->d_name);
                total += n;
                if (++files > LANG_CACHE_MAX_FILES)
                        return sbx_fail(err, 0, "compile cache: %s: more than %d files match %s",
                                        src_dir, LANG_CACHE_MAX_FILES, pattern);
        }
        if (!files)
                return sbx_fail(err, 0, "compile cache: %s: no file matches %s", src_dir, pattern);
        return total;
}

/* dir/<first two hex digits of key>, made 0700 when missing. */
static char *shard_dir(const struct lang_cache *c, const char *key)
{
        char *shard = NULL;

        if (asprintf(&shard, "%s/%.2s", c->dir, key) < 0)
                return NULL;
        if ((mkdir(shard, 0700) < 0 && errno != EEXIST) ||
            lang_cache_dir_private(shard, false) < 0) {
                free(shard);
                return NULL;
        }
        return shard;
}

/* Renames tmp to the entry: another writer's entry already there is as
 * good as ours (same key, same inputs), so ours goes. */
static int publish(struct lang_cache *c, const char *tmp, const char *key, int64_t bytes,
                   struct sbx_err *err)
{
        auto_free char *shard = shard_dir(c, key);
        auto_free char *entry = NULL;

        if (!shard || asprintf(&entry, "%s/%s", shard, key) < 0) {
                entry = NULL;
                return sbx_fail(err, errno, "compile cache: %s/%.2s", c->dir, key);
        }
        if (rename(tmp, entry) < 0) {
                if (errno == EEXIST || errno == ENOTEMPTY)
                        return sbx_rm_tree(tmp), 0;
                return sbx_fail(err, errno, "compile cache: rename to %s", entry);
        }
        c->stored_bytes += bytes;
        if (c->stored_bytes > c->max_bytes / 16)
                lang_cache_evict(c);
        return 0;
}

int lang_cache_store(struct lang_cache *c, const char *key, const char *src_dir,
                     const char *pattern, const struct lang_cache_meta *meta,
                     struct sbx_err *err)
{
        auto_free char *tmp = NULL;
        int64_t bytes = 0;

        if (!c->dir || !lang_cache_key_valid(key))
                return sbx_fail(err, 0, "compile cache: not open, or a bad key");
        if (asprintf(&tmp, "%s/tmp.XXXXXX", c->dir) < 0 || !mkdtemp(tmp)) {
                int e = errno;
                free(tmp);
                tmp = NULL;
                return sbx_fail(err, e, "compile cache: mkdtemp in %s", c->dir);
        }
        auto_fd fd = open(tmp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        int rc = fd < 0 ? sbx_fail(err, errno, "compile cache: %s", tmp) : 0;
        if (rc == 0 && write_meta(fd, meta) < 0)
                rc = sbx_fail(err, errno, "compile cache: %s/meta", tmp);
        if (rc == 0 && meta->status == LANG_CACHE_COMPILED) {
                bytes = pattern ? copy_artifacts(src_dir, fd, pattern, c->max_bytes / 4, err)
                                : sbx_fail(err, 0, "compile cache: no artifact pattern");
                rc = bytes < 0 ? -1 : 0;
        }
        if (rc == 0)
                rc = publish(c, tmp, key, bytes, err);
        if (rc < 0)
                sbx_rm_tree(tmp);
        return rc;
}
