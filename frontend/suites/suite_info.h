/* What a suite run's summary records besides its scores: sbx's version,
 * the inputs (paths, sha256, sample format), the limits and the tier, so
 * that a number can be traced to what produced it. And --dump. */
#ifndef SBX_SUITE_INFO_H
#define SBX_SUITE_INFO_H

#include <stdbool.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "err.h"
#include "results.h"
#include "sandbox.h"
#include "suite.h"

struct run_info {
        const struct suite *suite;
        const struct sandbox_opts *sb_opts;
        const char *tier;               /* the session's tier, or NULL (nothing ran) */
        int64_t timeout_ms, cpu_limit_s, wall_backstop_ms;
        bool interrupted;
        const char *tasks;              /* --tasks, or NULL */
};

int suite_add_run_info(cJSON *summary, const struct run_info *ri, struct sbx_err *err);

/* --dump DIR: writes each chosen sample's program to DIR/<task>_<index>.py
 * (task id with every byte outside [A-Za-z0-9._-] as _), runs nothing. */
int suite_dump_programs(const struct suite *s, const bool *task_on,
                        const struct result_meta *m, const char *dir, struct sbx_err *err);

#endif
