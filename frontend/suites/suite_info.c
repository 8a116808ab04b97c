/* The summary's record of how a run was made, and --dump. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "sha256.h"
#include "suite_info.h"
#include "suite_ops.h"
#include "util.h"

static int add_file(cJSON *sum, const char *key, const char *path, const char *format,
                    struct sbx_err *err)
{
        cJSON *o = cJSON_AddObjectToObject(sum, key);
        char hex[SHA256_HEX_LEN + 1];
        struct stat st;

        if (!o || !cJSON_AddStringToObject(o, "path", path))
                return sbx_fail_oom(err, "summary");
        if (format)
                cJSON_AddStringToObject(o, "format", format);
        if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
                return 0;       /* a samples directory: its files are in the results */
        if (sha256_file(path, hex, err) < 0)
                return -1;
        cJSON_AddStringToObject(o, "sha256", hex);
        return 0;
}

static void add_limits(cJSON *sum, const struct run_info *ri)
{
        const struct sandbox_opts *o = ri->sb_opts;
        cJSON *l = cJSON_AddObjectToObject(sum, "limits");
        long long mem = o->memory_bytes ? o->memory_bytes : limit_default(LIMIT_MEMORY);

        if (!l)
                return;
        cJSON_AddNumberToObject(l, "timeout_s", (double)ri->timeout_ms / 1000);
        cJSON_AddNumberToObject(l, "cpu_s", (double)ri->cpu_limit_s);
        cJSON_AddNumberToObject(l, "wall_backstop_s", (double)ri->wall_backstop_ms / 1000);
        if (mem < 0)
                cJSON_AddNullToObject(l, "memory_bytes");
        else
                cJSON_AddNumberToObject(l, "memory_bytes", (double)mem);
        cJSON_AddNumberToObject(l, "fsize_bytes", (double)(o->fsize_bytes ? o->fsize_bytes
                                                           : limit_default(LIMIT_FSIZE)));
        cJSON_AddNumberToObject(l, "max_output_bytes", (double)(o->max_output_bytes ?
                                o->max_output_bytes : (size_t)limit_default(LIMIT_MAX_OUTPUT)));
}

int suite_add_run_info(cJSON *sum, const struct run_info *ri, struct sbx_err *err)
{
        const struct suite *s = ri->suite;

        cJSON_AddStringToObject(sum, "sbx_version", SBX_VERSION);
        if (add_file(sum, "problems_file", s->problems_path, NULL, err) < 0)
                return -1;
        if (s->canonical)
                cJSON_AddStringToObject(cJSON_AddObjectToObject(sum, "samples_file"), "format",
                                        "canonical");
        else if (add_file(sum, "samples_file", s->samples_path, s->samples_format, err) < 0)
                return -1;
        add_limits(sum, ri);
        if (ri->tier)
                cJSON_AddStringToObject(sum, "session_tier", ri->tier);
        if (ri->tasks)
                cJSON_AddStringToObject(sum, "tasks_chosen", ri->tasks);
        cJSON_AddBoolToObject(sum, "interrupted", ri->interrupted);
        return 0;
}

/* ---- --dump ---- */

/* A program's file ending: its language's (HumanEval-X's row's, an io
 * sample's own), else Python's. */
static const char *ending(const struct suite *s, const struct suite_sample *smp)
{
        const struct lang_row *row = suite_language(s);
        struct sbx_err ignored = { 0 };

        if (!row && s->ops->sample_language && s->ops->sample_language(s, smp, &row, &ignored) < 0)
                row = NULL;
        return row && row->extensions[0] ? row->extensions[0] : ".py";
}

static int dump_one(const char *dir, const char *task_id, size_t index, const char *ext,
                    const char *text, struct sbx_err *err)
{
        auto_free char *safe = strdup(task_id), *path = NULL;

        if (!safe)
                return sbx_fail_oom(err, "dump");
        for (char *p = safe; *p; p++)
                if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-_", *p))
                        *p = '_';
        if (safe[0] == '.')
                safe[0] = '_';
        if (asprintf(&path, "%s/%s_%zu%s", dir, safe, index, ext) < 0)
                return sbx_fail_oom(err, "dump");
        auto_fd fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
        if (fd < 0 || sbx_write_all(fd, text, strlen(text)) < 0)
                return sbx_fail(err, errno, "%s", path);
        return 0;
}

int suite_dump_programs(const struct suite *s, const bool *task_on,
                        const struct result_meta *m, const char *dir, struct sbx_err *err)
{
        size_t written = 0;

        if (mkdir(dir, 0755) < 0 && errno != EEXIST)
                return sbx_fail(err, errno, "--dump %s", dir);
        for (size_t i = 0; i < s->n_samples; i++) {
                const struct suite_sample *smp = &s->samples[i];
                if (!task_on[smp->task] || !suite_in_shard(i, m->shard_index, m->shard_count))
                        continue;
                auto_free char *program = suite_build_program(s, smp, err);
                if (!program || dump_one(dir, s->tasks[smp->task].task_id, i, ending(s, smp),
                                         program, err) < 0)
                        return -1;
                written++;
        }
        printf("wrote %zu programs to %s (<task>_<sample index>.py, or the language's "
               "ending; nothing was run)\n",
               written, dir);
        return 0;
}
