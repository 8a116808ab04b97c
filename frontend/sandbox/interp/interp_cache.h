/* The interpreter's answer (where it lives, its version) and the cache
 * of it (interp_cache.c): a layer below interp.c, which asks the
 * interpreter on a miss; nothing here calls back into interp.c. */
#ifndef SBX_INTERP_CACHE_H
#define SBX_INTERP_CACHE_H

#include <stdbool.h>
#include <stddef.h>

struct interp_info {
        char *exe;              /* sys.executable */
        char *prefix;           /* sys.prefix */
        char *base_prefix;      /* sys.base_prefix */
        char *version;          /* sys.version, one line */
};

void interp_info_free(struct interp_info *info);

/* The interpreter cache (interp_cache.c): <cache root>/interp/<hash of the
 * path>, one entry per interpreter path. Lines: the magic, the key, exe,
 * prefix, base_prefix, version. Only ELF binaries are cached (a script
 * picks its Python per call); SBX_NO_INTERP_CACHE=1 turns it off. A cache
 * problem is never an error: it is a miss. */
#define INTERP_CACHE_MAGIC     "sbx-interp-cache 1"
#define INTERP_CACHE_MAX_BYTES 65536

struct interp_cache {
        char *dir;              /* <cache root>/interp */
        char *key;              /* one line: everything the answer depends on */
        char *entry;            /* dir/<16 hex digits> */
};

bool interp_cache_disabled(void);
/* 0 with cache filled (free with interp_cache_close), -1 when there is no
 * cache for path (disabled, no usable cache dir, not an ELF binary). */
int interp_cache_open(const char *path, struct interp_cache *cache);
/* True with info filled from a valid entry whose key matches. */
bool interp_cache_load(const struct interp_cache *cache, struct interp_info *info);
/* Atomically replaces the entry; silent on failure. */
void interp_cache_store(const struct interp_cache *cache, const struct interp_info *info);
void interp_cache_close(struct interp_cache *cache);
/* The key of path as it is now, or NULL when it is not cacheable. malloc'd. */
char *interp_cache_key(const char *path);
/* Pure, unit tested: the entry text (NULL if a field does not fit its
 * line), and its strict reading (-1 on any doubt). */
char *interp_cache_format(const char *key, const struct interp_info *info);
int interp_cache_parse(const char *text, size_t len, const char *key,
                       struct interp_info *info);

#endif
