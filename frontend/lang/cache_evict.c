/* Keeping the compile cache under its size: a scan of the entries, then
 * the least recently used (oldest mtime: a hit touches it) go first, each
 * renamed out of the way before it is removed, so that a reader sees the
 * whole entry or none. Leftovers of writers that died go too. Several
 * processes may evict at once: each removal is a rename that only one of
 * them wins. */
#include <dirent.h>
#include <stdbool.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cache.h"
#include "lang_cache_internal.h"
#include "util.h"

struct entry {
        char *path;
        struct timespec used;
        int64_t bytes;
};

struct scan {
        struct entry *items;
        size_t len, cap;
        int64_t total;
};

/* dir/name into buf; false when it does not fit. */
static bool join(char *buf, size_t size, const char *dir, const char *name)
{
        int n = snprintf(buf, size, "%s/%s", dir, name);

        return n > 0 && (size_t)n < size;
}

static void closedirp(DIR **d)
{
        if (*d)
                closedir(*d);
}
#define auto_dir __attribute__((cleanup(closedirp))) DIR *

/* The bytes of the regular files one level below dir (meta, out/), by
 * their blocks as du counts them, at least their sizes. */
static int64_t dir_bytes(const char *dir)
{
        auto_dir d = opendir(dir);
        struct dirent *e;
        int64_t total = 0;
        struct stat st;

        while (d && (e = readdir(d))) {
                if (e->d_name[0] == '.' || fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
                        continue;
                if (S_ISREG(st.st_mode))
                        total += st.st_size > st.st_blocks * 512 ? st.st_size : st.st_blocks * 512;
                else if (S_ISDIR(st.st_mode) && !strcmp(e->d_name, "out")) {
                        char sub[4096];
                        if (join(sub, sizeof(sub), dir, "out"))
                                total += dir_bytes(sub);
                }
        }
        return total;
}

static int scan_add(struct scan *s, const char *path, const struct stat *st)
{
        if (s->len == s->cap) {
                size_t cap = s->cap ? s->cap * 2 : 64;
                struct entry *n = realloc(s->items, cap * sizeof(*n));
                if (!n)
                        return -1;
                s->items = n;
                s->cap = cap;
        }
        struct entry *e = &s->items[s->len];
        if (!(e->path = strdup(path)))
                return -1;
        e->used = st->st_mtim;
        e->bytes = dir_bytes(path);
        s->total += e->bytes;
        s->len++;
        return 0;
}

static void scan_shard(struct scan *s, const char *shard)
{
        auto_dir d = opendir(shard);
        struct dirent *e;
        char path[4096];
        struct stat st;

        while (d && (e = readdir(d))) {
                if (!lang_cache_key_valid(e->d_name))
                        continue;
                if (join(path, sizeof(path), shard, e->d_name) && lstat(path, &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == getuid())
                        scan_add(s, path, &st);
        }
}

/* A temp dir older than LANG_CACHE_STALE_TMP_S is a dead writer's; a
 * trash dir is one an eviction did not finish removing. */
static void remove_leftover(const char *dir, const char *name)
{
        char path[4096];
        struct stat st;

        if (!join(path, sizeof(path), dir, name) || lstat(path, &st) < 0 || !S_ISDIR(st.st_mode))
                return;
        if (!strncmp(name, "trash.", 6) || time(NULL) - st.st_mtime > LANG_CACHE_STALE_TMP_S)
                sbx_rm_tree(path);
}

/* Two lowercase hex digits, as a key's first two. */
static bool is_shard_name(const char *n)
{
        for (int i = 0; i < 2; i++)
                if (!((n[i] >= '0' && n[i] <= '9') || (n[i] >= 'a' && n[i] <= 'f')))
                        return false;
        return n[2] == '\0';
}

static void scan_all(struct scan *s, const char *dir)
{
        auto_dir d = opendir(dir);
        struct dirent *e;
        char path[4096];

        while (d && (e = readdir(d))) {
                const char *n = e->d_name;
                if (!strncmp(n, "tmp.", 4) || !strncmp(n, "trash.", 6)) {
                        remove_leftover(dir, n);
                        continue;
                }
                if (!is_shard_name(n))
                        continue;
                if (join(path, sizeof(path), dir, n))
                        scan_shard(s, path);
        }
}

static int by_use(const void *a, const void *b)
{
        const struct entry *x = a, *y = b;

        if (x->used.tv_sec != y->used.tv_sec)
                return x->used.tv_sec < y->used.tv_sec ? -1 : 1;
        if (x->used.tv_nsec != y->used.tv_nsec)
                return x->used.tv_nsec < y->used.tv_nsec ? -1 : 1;
        return strcmp(x->path, y->path);
}

/* Renamed away first (only one evicting process wins the rename), then
 * removed. */
static void remove_entry(const char *dir, const struct entry *e, size_t i)
{
        char trash[4096];

        int n = snprintf(trash, sizeof(trash), "%s/trash.%ld.%zu", dir, (long)getpid(), i);

        if (n > 0 && (size_t)n < sizeof(trash) && rename(e->path, trash) == 0)
                sbx_rm_tree(trash);
}

int64_t lang_cache_evict(struct lang_cache *c)
{
        struct scan s = { 0 };

        if (!c->dir)
                return 0;
        c->stored_bytes = 0;
        scan_all(&s, c->dir);
        if (s.total > c->max_bytes) {
                int64_t target = c->max_bytes - c->max_bytes / 10;
                qsort(s.items, s.len, sizeof(*s.items), by_use);
                for (size_t i = 0; i < s.len && s.total > target; i++) {
                        remove_entry(c->dir, &s.items[i], i);
                        s.total -= s.items[i].bytes;
                }
        }
        for (size_t i = 0; i < s.len; i++)
                free(s.items[i].path);
        free(s.items);
        return s.total;
}
