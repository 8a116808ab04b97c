/* Fuzz target: `--shard auto` reading the job array's environment
 * (cluster_shard_from_env, frontend/cli/cluster_env.c). Input: a byte saying
 * which of the seven variables are set, then their values separated by
 * NUL bytes. Properties beyond "no crash": an accepted shard has
 * 0 <= index < count; a refusal names a variable. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "cluster_env.h"
#include "fuzz_input.h"

static const char *const vars[] = {
        "SLURM_ARRAY_TASK_ID", "SLURM_ARRAY_TASK_COUNT", "SLURM_ARRAY_TASK_MIN",
        "SLURM_ARRAY_TASK_MAX", "SLURM_ARRAY_TASK_STEP", "JOB_COMPLETION_INDEX",
        "SBX_SHARD_COUNT",
};
#define N_VARS (sizeof(vars) / sizeof(vars[0]))

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        struct sbx_err err = { 0 };
        int index = -1, count = -1;
        char *values, *p;

        if (size < 1)
                return 0;
        values = fuzz_strndup(data + 1, size - 1);
        p = values;
        for (size_t i = 0; i < N_VARS; i++) {
                unsetenv(vars[i]);
                if (!(data[0] & (1u << i)))
                        continue;
                setenv(vars[i], p, 1);
                /* On to the next value while there is one; when the
                 * input runs out, later variables repeat the last. */
                if (p + strlen(p) < values + size - 1)
                        p += strlen(p) + 1;
        }
        if (cluster_shard_from_env(&index, &count, &err) == 0) {
                if (count < 1 || index < 0 || index >= count)
                        abort();
        } else {
                bool named = false;
                for (size_t i = 0; i < N_VARS; i++)
                        named |= strstr(err.msg, vars[i]) != NULL;
                if (!named)
                        abort();        /* a refusal that names no variable */
        }
        for (size_t i = 0; i < N_VARS; i++)
                unsetenv(vars[i]);
        free(values);
        return 0;
}
