/* What libcap-ng adds to one bounding-set drop over raw prctl(PR_CAPBSET_DROP)
 * calls, in a user namespace of its own (docs/performance.md). Build:
 * cc -O2 -o capng-cost bench/lib/capng-bounding-cost.c -lcap-ng; run as a
 * user that may create user namespaces. */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <time.h>
#include <cap-ng.h>
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec*1e6 + t.tv_nsec/1e3; }
int main(void)
{
        if (unshare(CLONE_NEWUSER) < 0) return 9;
        double best_ng = 1e9, best_raw = 1e9;
        for (int b = 0; b < 50; b++) {
                double t0 = now();
                for (int i = 0; i < 20; i++) { capng_clear(CAPNG_SELECT_BOUNDS); if (capng_apply(CAPNG_SELECT_BOUNDS) < 0) return 2; }
                double t1 = now();
                for (int i = 0; i < 20; i++) { int cap = 0; while (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) == 0) cap++; if (errno != EINVAL) return 3; }
                double t2 = now();
                if ((t1 - t0) / 20 < best_ng) best_ng = (t1 - t0) / 20;
                if ((t2 - t1) / 20 < best_raw) best_raw = (t2 - t1) / 20;
        }
        printf("bounding-set drop, best of 50 batches of 20: libcap-ng %.1f us, raw prctl %.1f us\n", best_ng, best_raw);
        return 0;
}
