/* `sbx-run --shard auto`: the shard this process is, read from the array
 * job's environment, so a job script needs no arithmetic of its own. */
#ifndef SBX_CLUSTER_ENV_H
#define SBX_CLUSTER_ENV_H

#include "err.h"

/* Sets *index (0-based) and *count (>= 1, index < count) from:
 *
 *   Slurm job arrays: SLURM_ARRAY_TASK_ID, with the count from
 *     SBX_SHARD_COUNT when set (the task ID is then the shard index itself,
 *     so one task can be resubmitted alone as --array=I), else from
 *     SLURM_ARRAY_TASK_COUNT, with the index counted from
 *     SLURM_ARRAY_TASK_MIN in steps of SLURM_ARRAY_TASK_STEP (an array
 *     1-4 is shards 0..3). Arrays with gaps (--array=1,5,7) are refused.
 *   Kubernetes indexed jobs: JOB_COMPLETION_INDEX, with the count from
 *     SBX_SHARD_COUNT (Kubernetes exports no count; pass spec.completions).
 *
 * Returns 0, or -1 with err (SBX_EXIT_USAGE) naming the variable at fault
 * when none is set, both schedulers' are set, or a value is not a
 * non-negative decimal integer or is out of range. Reads only the
 * environment; changes nothing. */
int cluster_shard_from_env(int *index, int *count, struct sbx_err *err);

#endif
