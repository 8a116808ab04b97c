/* Isolation tiers, strongest first (README.md and SECURITY.md compare them). */
#ifndef SBX_TIER_H
#define SBX_TIER_H

#include <stdbool.h>

enum tier {
        TIER_HELPER = 0,
        TIER_BWRAP,
        TIER_UNSHARE,
        TIER_UNSHARE_ROOT,
        TIER_RLIMIT,
        TIER_COUNT,
        TIER_NONE = -1,
};

const char *tier_name(enum tier t);
/* Returns 0 and sets *out, or -1 for an unknown name. */
int tier_from_name(const char *name, enum tier *out);
/* True when a is at least as strong as b. */
static inline bool tier_at_least(enum tier a, enum tier b) { return a <= b; }

#endif
