/* The interpreter query's cache: one small file per interpreter under
 * <cache root>/interp/, keyed by everything the answer depends on, so a hit
 * costs a few stat() calls instead of an interpreter start. Nothing here is
 * ever an error for the user: every doubt is a miss, every failure to write
 * is silent (the cache is an optimization). */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "interp_cache.h"
#include "strbuf.h"
#include "util.h"
#include "venv.h"

#define ELF_MAGIC "\x7f" "ELF"

void interp_info_free(struct interp_info *info)
{
        free(info->exe);
        free(info->prefix);
        free(info->base_prefix);
        free(info->version);
        memset(info, 0, sizeof(*info));
}

bool interp_cache_disabled(void)
{
        const char *v = getenv("SBX_NO_INTERP_CACHE");

        return v && v[0] && strcmp(v, "0") != 0;
}

/* Length-prefixed, so no two different paths give the same key text. */
static void key_add_path(struct strbuf *b, const char *label, const char *path)
{
        char num[32];

        snprintf(num, sizeof(num), " %s %zu:", label, strlen(path));
        strbuf_add(b, num);
        strbuf_add(b, path);
}

static void key_add_stat(struct strbuf *b, const char *label, const struct stat *st)
{
        char text[256];

        snprintf(text, sizeof(text), " %s %llu:%llu:%lld:%lld.%09ld:%lld.%09ld", label,
                 (unsigned long long)st->st_dev, (unsigned long long)st->st_ino,
                 (long long)st->st_size, (long long)st->st_mtim.tv_sec,
                 st->st_mtim.tv_nsec, (long long)st->st_ctim.tv_sec,
                 st->st_ctim.tv_nsec);
        strbuf_add(b, text);
}

/* "-" for a file that is not there; any other stat failure means we cannot
 * tell what the interpreter would see: not cacheable (-1). */
static int key_add_optional(struct strbuf *b, const char *label, const char *path)
{
        struct stat st;

        if (stat(path, &st) == 0) {
                key_add_stat(b, label, &st);
                return 0;
        }
        if (errno != ENOENT && errno != ENOTDIR)
                return -1;
        strbuf_add(b, " ");
        strbuf_add(b, label);
        strbuf_add(b, " -");
        return 0;
}

/* A venv's sys.prefix comes from pyvenv.cfg beside the path as given (or
 * one level up), not from the binary the symlink leads to. */
static int key_add_venv_cfgs(struct strbuf *b, const char *path)
{
        auto_free char *copy = strdup(path);
        char cfg[PATH_MAX];

        if (!copy)
                return -1;
        char *dir = dirname(copy);
        if (snprintf(cfg, sizeof(cfg), "%s/pyvenv.cfg", dir) >= (int)sizeof(cfg) ||
            key_add_optional(b, "cfg1", cfg) < 0)
                return -1;
        dir = dirname(dir);
        if (snprintf(cfg, sizeof(cfg), "%s/pyvenv.cfg", dir) >= (int)sizeof(cfg) ||
            key_add_optional(b, "cfg2", cfg) < 0)
                return -1;
        return 0;
}

/* Opened once: the ELF check and the stat are of the same file. A script
 * (a pyenv shim, a wrapper) picks its Python per call, so only an ELF
 * binary is cacheable. */
static int stat_elf(const char *real, struct stat *st)
{
        auto_fd fd = open(real, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
        char magic[4];

        if (fd < 0 || fstat(fd, st) < 0 || !S_ISREG(st->st_mode))
                return -1;
        if (read(fd, magic, sizeof(magic)) != (ssize_t)sizeof(magic) ||
            memcmp(magic, ELF_MAGIC, sizeof(magic)) != 0)
                return -1;
        return 0;
}

/* Where the binary sits decides sys.prefix of a plain (non-venv) install:
 * Python looks for lib/pythonX.Y/os.py walking up from the binary's
 * directory. Their change times catch a lib/ appearing beside bin/. */
static int key_add_install_dirs(struct strbuf *b, const char *real)
{
        auto_free char *copy = strdup(real);
        struct stat st;

        if (!copy)
                return -1;
        char *dir = dirname(copy);
        if (stat(dir, &st) < 0)
                return -1;
        key_add_stat(b, "bindir", &st);
        dir = dirname(dir);
        if (stat(dir, &st) < 0)
                return -1;
        key_add_stat(b, "rootdir", &st);
        return 0;
}

char *interp_cache_key(const char *path)
{
        auto_free char *real = realpath(path, NULL);
        struct strbuf b = { 0 };
        struct stat st;

        /* the key is one line of the entry */
        if (!real || strchr(path, '\n') || strchr(real, '\n') || stat_elf(real, &st) < 0)
                return NULL;
        strbuf_add(&b, "v1");
        key_add_path(&b, "path", path);
        key_add_path(&b, "real", real);
        key_add_stat(&b, "bin", &st);
        if (key_add_venv_cfgs(&b, path) < 0 || key_add_install_dirs(&b, real) < 0) {
                free(strbuf_done(&b));
                return NULL;
        }
        return strbuf_done(&b);
}

static bool field_ok(const char *s, bool absolute)
{
        return s && s[0] && !strchr(s, '\n') && (!absolute || s[0] == '/');
}

static bool info_cacheable(const struct interp_info *info)
{
        return field_ok(info->exe, true) && field_ok(info->prefix, true) &&
               field_ok(info->base_prefix, true) && field_ok(info->version, false);
}

char *interp_cache_format(const char *key, const struct interp_info *info)
{
        struct strbuf b = { 0 };
        const char *lines[] = {
                INTERP_CACHE_MAGIC, key, info->exe, info->prefix,
                info->base_prefix, info->version,
        };

        if (!field_ok(key, false) || !info_cacheable(info))
                return NULL;
        for (size_t i = 0; i < sizeof(lines) / sizeof(*lines); i++) {
                strbuf_add(&b, lines[i]);
                strbuf_add(&b, "\n");
        }
        return strbuf_done(&b);
}

/* Cuts the next '\n'-terminated line out of *cursor; NULL when none. */
static char *take_line(char **cursor)
{
        char *line = *cursor;
        char *nl = strchr(line, '\n');

        if (!nl)
                return NULL;
        *nl = '\0';
        *cursor = nl + 1;
        return line;
}

int interp_cache_parse(const char *text, size_t len, const char *key,
                       struct interp_info *info)
{
        auto_free char *copy = NULL;
        char *lines[6];
        char *cursor;

        memset(info, 0, sizeof(*info));
        /* a NUL inside the entry is junk, not an early end */
        if (strlen(text) != len || !(copy = strdup(text)))
                return -1;
        cursor = copy;
        for (size_t i = 0; i < 6; i++)
                if (!(lines[i] = take_line(&cursor)))
                        return -1;
        if (*cursor || strcmp(lines[0], INTERP_CACHE_MAGIC) != 0 ||
            strcmp(lines[1], key) != 0)
                return -1;
        info->exe = strdup(lines[2]);
        info->prefix = strdup(lines[3]);
        info->base_prefix = strdup(lines[4]);
        info->version = strdup(lines[5]);
        if (!info_cacheable(info)) {
                interp_info_free(info);
                return -1;
        }
        return 0;
}

/* O_NOFOLLOW and O_NONBLOCK: a symlink or a FIFO in place of the entry is a
 * miss, never something we follow or wait on; checked on the fd. */
static char *read_entry(const char *entry, size_t *len_out)
{
        auto_fd fd = open(entry, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
        struct stat st;
        size_t len = 0;
        char *buf;

        if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
            st.st_uid != getuid() || st.st_size > INTERP_CACHE_MAX_BYTES)
                return NULL;
        if (!(buf = malloc(INTERP_CACHE_MAX_BYTES + 2)))
                return NULL;
        for (;;) {
                ssize_t n = read(fd, buf + len, INTERP_CACHE_MAX_BYTES + 1 - len);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0 || (len += (size_t)n) > INTERP_CACHE_MAX_BYTES) {
                        free(buf);      /* grew after the fstat */
                        return NULL;
                }
                if (n == 0)
                        break;
        }
        buf[len] = '\0';
        *len_out = len;
        return buf;
}

/* Ours and writable only by us: anyone else who can write the directory
 * could swap entries under us. */
static bool dir_trusted(const char *dir)
{
        struct stat st;

        return lstat(dir, &st) == 0 && S_ISDIR(st.st_mode) &&
               st.st_uid == getuid() && !(st.st_mode & (S_IWGRP | S_IWOTH));
}

/* The entry is named by the path as given, not by the whole key: a changed
 * binary or pyvenv.cfg rewrites the one entry of that path instead of
 * leaving the old one behind for ever. The full key inside decides. */
int interp_cache_open(const char *path, struct interp_cache *cache)
{
        auto_free char *root = NULL;

        memset(cache, 0, sizeof(*cache));
        if (interp_cache_disabled() || !(root = venv_cache_root()) || root[0] != '/')
                return -1;
        if (asprintf(&cache->dir, "%s/interp", root) < 0) {
                cache->dir = NULL;
                return -1;
        }
        if (!(cache->key = interp_cache_key(path)) ||
            sbx_mkdir_p(cache->dir) < 0 || !dir_trusted(cache->dir) ||
            asprintf(&cache->entry, "%s/%016llx", cache->dir,
                     (unsigned long long)venv_hash(path, strlen(path))) < 0) {
                cache->entry = NULL;
                interp_cache_close(cache);
                return -1;
        }
        return 0;
}

bool interp_cache_load(const struct interp_cache *cache, struct interp_info *info)
{
        size_t len = 0;
        auto_free char *text = read_entry(cache->entry, &len);

        return text && interp_cache_parse(text, len, cache->key, info) == 0;
}

/* Exclusive create, never through a symlink; a temp file of a crashed
 * earlier process with our pid is ours to replace. */
static int create_temp(const char *tmp)
{
        int flags = O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC;
        int fd = open(tmp, flags, 0600);

        if (fd < 0 && errno == EEXIST && unlink(tmp) == 0)
                fd = open(tmp, flags, 0600);
        return fd;
}

/* Written beside the entry and renamed over it: a reader sees the old
 * entry or the whole new one, and a crash leaves only a temp file. */
void interp_cache_store(const struct interp_cache *cache, const struct interp_info *info)
{
        auto_free char *text = interp_cache_format(cache->key, info);
        auto_free char *tmp = NULL;

        if (!text || asprintf(&tmp, "%s.tmp.%ld", cache->entry, (long)getpid()) < 0) {
                tmp = NULL;
                return;
        }
        int fd = create_temp(tmp);
        if (fd < 0)
                return;
        int rc = sbx_write_all(fd, text, strlen(text));
        if (close(fd) < 0 || rc < 0 || rename(tmp, cache->entry) < 0)
                unlink(tmp);
}

void interp_cache_close(struct interp_cache *cache)
{
        free(cache->dir);
        free(cache->key);
        free(cache->entry);
        memset(cache, 0, sizeof(*cache));
}
