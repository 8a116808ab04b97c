/* The compile cache (issue 32): what a compile left (its artifact files, or
 * its compile_error and the compiler's message tail), kept per user under
 * <cache root>/compile/v1/<2 hex>/<64 hex>/ and found by the sha256 of
 * everything the build depends on (cache_key.c): the source, the
 * toolchain's version and real path, the expanded compile argv and env,
 * the support files, and the language table's version.
 *
 * - Never shared: the cache directories must be the user's own and open to
 *   no one else (0700); anything else is refused, not repaired.
 * - Safe under parallel writers, lock-free: an entry is built in a temp
 *   directory and renamed into place; the first rename wins and the others
 *   drop theirs. A reader sees a whole entry or none. Eviction renames an
 *   entry away before removing it.
 * - Bounded: past max_bytes the least recently used entries go (a hit
 *   touches its entry's mtime) until a tenth is free.
 * - A cached artifact is as untrusted as the sample that built it: it is
 *   copied into the next run's workdir (never linked: a run could write
 *   through a link into the cache) and only ever run in the sandbox.
 *
 * Every doubt on reading (a symlink, a file not ours, a bad meta) is a
 * miss: the caller compiles again. */
#ifndef SBX_LANG_CACHE_H
#define SBX_LANG_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "err.h"
#include "sha256.h"

#define LANG_CACHE_MAGIC            "sbx-compile-cache 1"
#define LANG_CACHE_DIR              "compile/v1"
#define LANG_CACHE_DEFAULT_MAX_BYTES (1LL << 30)
#define LANG_CACHE_MAX_FILES        256         /* a Java build's classes */
#define LANG_CACHE_MESSAGE_MAX      65536       /* a compile error's tail */

/* ---- the key (cache_key.c, pure) ---- */
struct lang_cache_key {
        struct sha256 sha;
};
void lang_cache_key_init(struct lang_cache_key *k);
/* A labelled, length-prefixed piece: no two different sequences of pieces
 * give the same bytes to hash. */
void lang_cache_key_add(struct lang_cache_key *k, const char *label,
                        const void *data, size_t len);
void lang_cache_key_add_str(struct lang_cache_key *k, const char *label, const char *s);
/* A NULL-terminated list, its length first. */
void lang_cache_key_add_list(struct lang_cache_key *k, const char *label,
                             const char *const *items);
void lang_cache_key_hex(struct lang_cache_key *k, char out[SHA256_HEX_LEN + 1]);
/* Is s 64 lowercase hex digits? */
bool lang_cache_key_valid(const char *s);

/* ---- what an entry says (cache_key.c, pure) ---- */
enum lang_cache_status {
        LANG_CACHE_COMPILED,            /* the artifact files are there */
        LANG_CACHE_COMPILE_ERROR,       /* the compiler said no: message */
};
struct lang_cache_meta {
        enum lang_cache_status status;
        char *message;                  /* malloc'd, "" when none */
};
char *lang_cache_meta_format(const struct lang_cache_meta *m);
/* Strict: -1 on any doubt. */
int lang_cache_meta_parse(const char *text, size_t len, struct lang_cache_meta *m);
void lang_cache_meta_free(struct lang_cache_meta *m);

/* ---- the store (cache.c, cache_evict.c) ---- */
struct lang_cache {
        char *dir;                      /* <root>/compile/v1 */
        int64_t max_bytes;
        int64_t stored_bytes;           /* since the last eviction scan */
};

/* Opens (and makes, 0700) <root>/compile/v1 and runs one eviction scan.
 * -1 with err when root is not absolute, or a directory on the way from
 * root down is not the caller's or is open to others. */
int lang_cache_open(const char *root, int64_t max_bytes, struct lang_cache *c,
                    struct sbx_err *err);
void lang_cache_close(struct lang_cache *c);

/* A hit copies the artifact files into dest_dir (which must not hold
 * them yet) and fills meta: 1. A miss: 0 (dest_dir may then hold some
 * of the files: the caller's compile overwrites them). */
int lang_cache_fetch(struct lang_cache *c, const char *key, const char *dest_dir,
                     struct lang_cache_meta *meta);
/* Stores meta and the files of src_dir whose names match pattern
 * (lang_artifact_match; NULL with a compile error: none). Regular files
 * only, never through a symlink; at most LANG_CACHE_MAX_FILES and a
 * quarter of max_bytes. 0 when stored or another writer stored the key
 * first; -1 with err (the caller goes on: the cache is an optimization). */
int lang_cache_store(struct lang_cache *c, const char *key, const char *src_dir,
                     const char *pattern, const struct lang_cache_meta *meta,
                     struct sbx_err *err);
/* Removes the least recently used entries until the cache holds at most
 * 9/10 of max_bytes (nothing when it holds less than max_bytes); and
 * leftovers of writers that died. Returns the bytes the cache holds. */
int64_t lang_cache_evict(struct lang_cache *c);

/* The cache's size limit: SBX_COMPILE_CACHE_MAX (bytes, K/M/G) or the
 * default; 0 turns the cache off. -1 with err for a bad value. */
int64_t lang_cache_max_bytes(const char *value, struct sbx_err *err);

#endif
