/* Tier names, in the order of enum tier (strongest first). */
#include <string.h>

#include "tier.h"

static const char *const tier_names[TIER_COUNT] = {
        [TIER_HELPER] = "helper",
        [TIER_BWRAP] = "bwrap",
        [TIER_UNSHARE] = "unshare",
        [TIER_UNSHARE_ROOT] = "unshare-root",
        [TIER_RLIMIT] = "rlimit",
};

const char *tier_name(enum tier t)
{
        if (t < 0 || t >= TIER_COUNT)
                return "none";
        return tier_names[t];
}

int tier_from_name(const char *name, enum tier *out)
{
        for (int t = 0; t < TIER_COUNT; t++) {
                if (strcmp(name, tier_names[t]) == 0) {
                        *out = (enum tier)t;
                        return 0;
                }
        }
        return -1;
}
