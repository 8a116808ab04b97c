/* Fuzz target: reading results files back, which sbx-run does for
 * `merge` (results_read, then suite_summary over the lines) and for
 * --resume (results_open, which adopts or refuses each line). Results
 * files come from other machines' shards and from killed runs.
 * Input: one byte choosing the path (even: merge, odd: resume), then the
 * file. Properties beyond "no crash": errors name the file; a resume never
 * adopts more lines than there are samples. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz_input.h"
#include "results.h"
#include "suite_ops.h"
#include "suite_summary.h"

#define FUZZ_SAMPLES 4

static void fuzz_merge(const uint8_t *data, size_t size, bool classeval)
{
        struct summary_opts o = { .suite = "humaneval", .ks = { 1, 2, 10 }, .nk = 3,
                                  .wall_s = 1.0,
                                  .extra = classeval ? suite_classeval_ops.summary : NULL };
        struct sbx_err err = { 0 };
        cJSON **lines = NULL;
        size_t n = 0;
        char path[64];
        int fd = fuzz_memfd(data, size, path, sizeof(path));

        if (results_read(path, &lines, &n, &err) < 0) {
                if (!strstr(err.msg, path))
                        abort();
        } else {
                o.total = n;
                cJSON *sum = suite_summary(lines, n, &o, &err);
                if (sum) {
                        FILE *null = fopen("/dev/null", "w");
                        if (null) {
                                suite_summary_print(null, sum);
                                fclose(null);
                        }
                        cJSON_Delete(sum);
                }
                for (size_t i = 0; i < n; i++)
                        cJSON_Delete(lines[i]);
                free(lines);
        }
        close(fd);
}

/* results_open writes (it rewrites the adopted lines in order), so this
 * path uses a private directory on /dev/shm (tmpfs), removed afterwards. */
static void fuzz_resume(const uint8_t *data, size_t size)
{
        static const long sample_lines[FUZZ_SAMPLES] = { 1, 2, 3, 4 };
        const struct result_meta m = { .suite = "humaneval", .samples_hash = "0123456789abcdef",
                                       .total = FUZZ_SAMPLES, .shard_index = 0, .shard_count = 1 };
        cJSON *fields[FUZZ_SAMPLES];
        struct results_file rf;
        struct sbx_err err = { 0 };
        char dir[64], path[96], tmp[128];
        FILE *f;

        snprintf(dir, sizeof(dir), "/dev/shm/sbx-fuzz-%d", (int)getpid());
        snprintf(path, sizeof(path), "%s/results.jsonl", dir);
        /* results_rewrite_ordered's temporary file, in case it is left */
        snprintf(tmp, sizeof(tmp), "%s.tmp.%d", path, (int)getpid());
        if (mkdir(dir, 0700) < 0 && errno != EEXIST)
                abort();
        if (!(f = fopen(path, "w")))
                abort();
        if (fwrite(data, 1, size, f) != size || fclose(f) != 0)
                abort();
        for (int i = 0; i < FUZZ_SAMPLES; i++) {
                fields[i] = cJSON_CreateObject();
                cJSON_AddStringToObject(fields[i], "task_id", i < 2 ? "demo/0" : "demo/1");
        }
        if (results_open(&rf, path, FUZZ_SAMPLES, true, &m, (const cJSON *const *)fields,
                         sample_lines, &err) < 0) {
                if (!strstr(err.msg, path))
                        abort();
        } else if (rf.done > FUZZ_SAMPLES) {
                abort();
        }
        results_close(&rf);
        for (int i = 0; i < FUZZ_SAMPLES; i++)
                cJSON_Delete(fields[i]);
        unlink(path);
        unlink(tmp);
        if (rmdir(dir) < 0)
                abort();        /* something else was left behind */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        if (size < 1)
                return 0;
        if (data[0] & 1)
                fuzz_resume(data + 1, size - 1);
        else
                fuzz_merge(data + 1, size - 1, data[0] & 2);
        return 0;
}
