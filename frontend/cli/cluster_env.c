/* --shard auto: which shard an array-job task is, from the scheduler's
 * environment (Slurm job arrays, Kubernetes indexed jobs). */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "cluster_env.h"

#define SLURM_ID_VAR    "SLURM_ARRAY_TASK_ID"
#define SLURM_COUNT_VAR "SLURM_ARRAY_TASK_COUNT"
#define SLURM_MIN_VAR   "SLURM_ARRAY_TASK_MIN"
#define SLURM_MAX_VAR   "SLURM_ARRAY_TASK_MAX"
#define SLURM_STEP_VAR  "SLURM_ARRAY_TASK_STEP"
#define K8S_INDEX_VAR   "JOB_COMPLETION_INDEX"
#define SHARD_COUNT_VAR "SBX_SHARD_COUNT"

/* A set but empty variable counts as set and fails here: an empty value is
 * a broken job script, which should hear so rather than fall through.
 * Strict decimal: digits only (no sign, blanks or suffix), fits an int.
 * strtol alone would take " 3", "+3" and "3abc". */
static int parse_env_int(const char *name, const char *value, int *out,
                         struct sbx_err *err)
{
        char *end;
        long v;

        if (value[0] < '0' || value[0] > '9')
                return sbx_fail(err, 0, "%s=\"%s\": not a non-negative integer",
                                name, value);
        errno = 0;
        v = strtol(value, &end, 10);
        if (*end != '\0')
                return sbx_fail(err, 0, "%s=\"%s\": not a non-negative integer",
                                name, value);
        if (errno == ERANGE || v > INT_MAX)
                return sbx_fail(err, 0, "%s=\"%s\": too large", name, value);
        *out = (int)v;
        return 0;
}

/* An optional variable: *out keeps its default when it is unset. */
static int read_env_int(const char *name, int *out, struct sbx_err *err)
{
        const char *value = getenv(name);

        if (!value)
                return 0;
        return parse_env_int(name, value, out, err);
}

static int read_shard_count(int *count, struct sbx_err *err)
{
        if (parse_env_int(SHARD_COUNT_VAR, getenv(SHARD_COUNT_VAR), count,
                          err) < 0)
                return -1;
        if (*count < 1)
                return sbx_fail(err, 0, "%s=%d: the shard count must be at least 1",
                                SHARD_COUNT_VAR, *count);
        return 0;
}

static int check_index(const char *name, int index, int count,
                       struct sbx_err *err)
{
        if (index >= count)
                return sbx_fail(err, 0,
                                "%s gives shard index %d, but there are only %d shards (0..%d)",
                                name, index, count, count - 1);
        return 0;
}

/* SLURM_ARRAY_TASK_COUNT alone counts the tasks, not the span of IDs: an
 * array with gaps (--array=1,5,7) would map two tasks to one shard or
 * leave a shard out, so the span MIN..MAX in STEPs must match the count. */
static int slurm_from_array_vars(int task_id, int *index, int *count,
                                 struct sbx_err *err)
{
        int min = 0, max = -1, step = 1;

        if (!getenv(SLURM_COUNT_VAR))
                return sbx_fail(err, 0,
                                "%s is set but %s is not (Slurm older than 18.08?); set %s to the number of shards",
                                SLURM_ID_VAR, SLURM_COUNT_VAR, SHARD_COUNT_VAR);
        if (read_env_int(SLURM_COUNT_VAR, count, err) < 0 ||
            read_env_int(SLURM_MIN_VAR, &min, err) < 0 ||
            read_env_int(SLURM_MAX_VAR, &max, err) < 0 ||
            read_env_int(SLURM_STEP_VAR, &step, err) < 0)
                return -1;
        if (*count < 1)
                return sbx_fail(err, 0, "%s=%d: an array has at least one task",
                                SLURM_COUNT_VAR, *count);
        if (step < 1)
                return sbx_fail(err, 0, "%s=%d: the step must be at least 1",
                                SLURM_STEP_VAR, step);
        if (task_id < min || (task_id - min) % step != 0)
                return sbx_fail(err, 0,
                                "%s=%d is not in the array (%s=%d, %s=%d)",
                                SLURM_ID_VAR, task_id, SLURM_MIN_VAR, min,
                                SLURM_STEP_VAR, step);
        if (max >= min && (max - min) / step + 1 != *count)
                return sbx_fail(err, 0,
                                "the job array %d-%d:%d has gaps (%s=%d): use a contiguous --array=0-%d, or set %s",
                                min, max, step, SLURM_COUNT_VAR, *count,
                                *count - 1, SHARD_COUNT_VAR);
        *index = (task_id - min) / step;
        return check_index(SLURM_ID_VAR, *index, *count, err);
}

static int shard_from_slurm(int *index, int *count, struct sbx_err *err)
{
        int task_id;

        if (parse_env_int(SLURM_ID_VAR, getenv(SLURM_ID_VAR), &task_id,
                          err) < 0)
                return -1;
        if (!getenv(SHARD_COUNT_VAR))
                return slurm_from_array_vars(task_id, index, count, err);
        /* With an explicit count the task ID is the shard index, so one
         * failed task can be resubmitted alone (--array=I) as shard I. */
        if (read_shard_count(count, err) < 0)
                return -1;
        *index = task_id;
        return check_index(SLURM_ID_VAR " (with " SHARD_COUNT_VAR " set, task IDs are shard indices)",
                           *index, *count, err);
}

static int shard_from_kubernetes(int *index, int *count, struct sbx_err *err)
{
        if (parse_env_int(K8S_INDEX_VAR, getenv(K8S_INDEX_VAR), index,
                          err) < 0)
                return -1;
        if (!getenv(SHARD_COUNT_VAR))
                return sbx_fail(err, 0,
                                "%s is set but %s is not: Kubernetes exports no count; set %s to the job's completions",
                                K8S_INDEX_VAR, SHARD_COUNT_VAR, SHARD_COUNT_VAR);
        if (read_shard_count(count, err) < 0)
                return -1;
        return check_index(K8S_INDEX_VAR, *index, *count, err);
}

/* Every message starts with the option it explains. */
#define SHARD_AUTO "--shard auto: "

int cluster_shard_from_env(int *index, int *count, struct sbx_err *err)
{
        bool slurm = getenv(SLURM_ID_VAR) != NULL;
        bool kubernetes = getenv(K8S_INDEX_VAR) != NULL;
        int found_index = 0, found_count = 0;
        int rc;

        if (slurm && kubernetes) {
                sbx_fail(err, 0, "both %s and %s are set; unset one or use --shard I/N",
                         SLURM_ID_VAR, K8S_INDEX_VAR);
                return sbx_err_wrap(err, SHARD_AUTO);
        }
        if (!slurm && !kubernetes) {
                sbx_fail(err, 0, "neither %s (Slurm job array) nor %s "
                         "(Kubernetes indexed job) is set; use --shard I/N",
                         SLURM_ID_VAR, K8S_INDEX_VAR);
                return sbx_err_wrap(err, SHARD_AUTO);
        }
        rc = slurm ? shard_from_slurm(&found_index, &found_count, err)
                   : shard_from_kubernetes(&found_index, &found_count, err);
        if (rc < 0)
                return sbx_err_wrap(err, SHARD_AUTO);
        *index = found_index;
        *count = found_count;
        return 0;
}
