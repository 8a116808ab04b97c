/* What cache.c, cache_store.c and cache_evict.c share; not for callers. */
#ifndef SBX_LANG_CACHE_INTERNAL_H
#define SBX_LANG_CACHE_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

/* 0 when path is a directory (not a link) of the caller's that no one
 * else may write (nor enter, unless others_may_read); -1 with errno. */
int lang_cache_dir_private(const char *path, bool others_may_read);
/* Copies the regular file src_dirfd/name, the caller's own, never through
 * a symlink, at most max bytes, to a new file dst_dirfd/name (the owner's
 * mode bits kept). The bytes copied, or -1 with errno (EFBIG past max,
 * EPERM for a file that is not a regular file of ours). */
int64_t lang_cache_copy_file(int src_dirfd, int dst_dirfd, const char *name, int64_t max);

/* Leftovers of a writer that died (tmp.*) older than this are removed. */
#define LANG_CACHE_STALE_TMP_S 3600

#endif
