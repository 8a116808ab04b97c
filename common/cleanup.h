/* Scope-bound release of memory and file descriptors, shared by the helper
 * and the frontend: early returns leak nothing (as bubblewrap's utils.h). */
#ifndef SBX_CLEANUP_H
#define SBX_CLEANUP_H

#include <stdlib.h>
#include <unistd.h>

static inline void free_p(void *p) { free(*(void **)p); }
#define auto_free __attribute__((cleanup(free_p)))
/* -1: nothing to close. */
static inline void close_fdp(int *fd) { if (*fd >= 0) close(*fd); }
#define auto_fd __attribute__((cleanup(close_fdp))) int

/* Hands an auto_fd's fd to the caller: the cleanup then closes nothing. */
static inline int take_fd(int *fd) { int keep = *fd; *fd = -1; return keep; }
/* The same for an auto_free pointer (any pointer type). */
#define steal_pointer(pp) \
        ({ __typeof__(*(pp)) steal_kept_ = *(pp); *(pp) = NULL; steal_kept_; })

#endif
