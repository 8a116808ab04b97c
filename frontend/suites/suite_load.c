/* Loading problems and samples (JSONL or a JSON array, through
 * suite_file.c and suite_jsonl.c), each sample checked against the task
 * index, and the canonical samples. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "evalplus.h"
#include "suite.h"
#include "suite_ops.h"
#include "util.h"

/* ---- problems ---- */

static int check_problem(const struct suite *s, cJSON *obj, const char *where,
                         struct sbx_err *err)
{
        if (cJSON_GetObjectItemCaseSensitive(obj, "plus_input"))
                return 0;               /* evalplus's native form: evalplus_attach */
        if (s->def.row->evalplus_only && !evalplus_is_mbpp_originfmt(obj))
                return sbx_fail(err, 0, "%s: not evalplus's MbppPlus.jsonl.gz (no plus_input) nor "
                                "MbppPlus-OriginFmt (no \"test\"): --suite mbppplus reads only "
                                "those forms", where);
        for (const char *const *f = s->def.row->ops->required_fields; *f; f++)
                if (!cJSON_GetObjectItemCaseSensitive(obj, *f))
                        return sbx_fail(err, 0, "%s: missing field \"%s\" for suite %s",
                                        where, *f, s->def.name);
        return 0;
}

/* A row the task list could not take, and what its kind read of it. */
static int drop_row(const struct suite *s, cJSON *obj, void *data)
{
        if (data)
                s->def.row->ops->free_problem(data);
        cJSON_Delete(obj);
        return -1;
}

static int add_task(struct suite *s, cJSON *obj, long line, const char *where,
                    struct sbx_err *err)
{
        const struct suite_ops *ops = s->def.row->ops;
        struct suite_task *t;
        void *data = NULL;

        /* a kind that reads its benchmark's own form (io) names the task */
        if (ops->read_problem && ops->read_problem(s, obj, line, s->n_tasks, &data, err) < 0)
                return drop_row(s, obj, NULL);
        cJSON *id = cJSON_GetObjectItemCaseSensitive(obj, "task_id");
        if (!id) {
                drop_row(s, obj, data);
                return sbx_fail(err, 0, "%s: missing field \"task_id\"", where);
        }
        if (check_problem(s, obj, where, err) < 0)
                return drop_row(s, obj, data);
        t = realloc(s->tasks, (s->n_tasks + 1) * sizeof(*t));
        if (!t) {
                drop_row(s, obj, data);
                return sbx_fail_oom(err, "%s", where);
        }
        s->tasks = t;
        t = &s->tasks[s->n_tasks++];
        memset(t, 0, sizeof(*t));
        t->problem = obj;
        t->kind_data = data;
        t->line = line;
        if (!(t->task_id = suite_task_id_string(id)))
                return sbx_fail(err, 0, "%s: task_id must be a non-empty string or an integer", where);
        if (s->def.row->ops->add_task)
                return s->def.row->ops->add_task(t, where, err);
        return 0;
}

struct load_ctx {
        struct suite *s;
        const char *path;
        bool samples;                   /* other harnesses' formats are samples only */
};

static int problem_line(void *vctx, cJSON *obj, long line, struct sbx_err *err)
{
        struct load_ctx *ctx = vctx;
        char where[4096];

        snprintf(where, sizeof(where), "%s:%ld", ctx->path, line);
        return add_task(ctx->s, obj, line, where, err);
}

static const char *skip_ws(const char *p)
{
        while (*p && strchr(" \t\r\n", *p))
                p++;
        return p;
}

/* A JSON array file (ClassEval's form): each element is one record,
 * "line" is its 1-based position. */
static int parse_array(const char *path, const char *buf, size_t len,
                       jsonl_fn fn, struct load_ctx *ctx, struct sbx_err *err)
{
        cJSON *arr = suite_parse_json(path, buf, len, err), *it;
        long pos = 0;

        if (!arr)
                return -1;
        if (!cJSON_IsArray(arr)) {
                cJSON_Delete(arr);
                return sbx_fail(err, 0, "%s: expected a JSON array", path);
        }
        /* a list of lists: bigcode-evaluation-harness's generations.json */
        if (ctx->samples && cJSON_IsArray(cJSON_GetArrayItem(arr, 0))) {
                int rc = suite_load_bigcode(ctx->s, path, arr, err);
                cJSON_Delete(arr);
                return rc;
        }
        while ((it = cJSON_DetachItemFromArray(arr, 0))) {
                pos++;
                if (!cJSON_IsObject(it)) {
                        cJSON_Delete(it);
                        cJSON_Delete(arr);
                        return sbx_fail(err, 0, "%s: element %ld: expected a JSON object",
                                        path, pos);
                }
                if (fn(ctx, it, pos, err) < 0) {
                        cJSON_Delete(arr);
                        return -1;
                }
        }
        cJSON_Delete(arr);
        return 0;
}

static int parse_records(const char *path, jsonl_fn fn, struct load_ctx *ctx,
                         char hash[17], struct sbx_err *err)
{
        auto_free char *buf = NULL;
        size_t len;

        if (suite_read_file(path, &buf, &len, err) < 0)
                return -1;
        if (hash) {
                uint64_t h = sbx_fnv1a(SBX_FNV1A_INIT, buf, len);
                snprintf(hash, 17, "%016llx", (unsigned long long)h);
        }
        const char *first = skip_ws(buf);
        if (!*first)
                return sbx_fail(err, 0, "%s: empty file", path);
        ctx->s->samples_format = *first == '[' ? "json" : "jsonl";
        if (*first == '[')
                return parse_array(path, buf, len, fn, ctx, err);
        return suite_parse_jsonl(path, buf, len, fn, ctx, err);
}

int suite_load_problems(struct suite *s, const char *path, struct sbx_err *err)
{
        struct load_ctx ctx = { s, path, false };

        if (!(s->problems_path = strdup(path)))
                return sbx_fail_oom(err, "%s", path);
        if (parse_records(path, problem_line, &ctx, NULL, err) < 0)
                return -1;
        if (suite_index_tasks(s, err) < 0 || evalplus_attach(s, err) < 0)
                return -1;
        s->ops = s->evalplus ? &suite_evalplus_ops : s->def.row->ops;
        return 0;
}

/* ---- samples ---- */


static int sample_code(struct suite_sample *smp, const char *where, struct sbx_err *err)
{
        cJSON *c = cJSON_GetObjectItemCaseSensitive(smp->fields, "completion");
        cJSON *sol = cJSON_GetObjectItemCaseSensitive(smp->fields, "solution");

        /* CodeGeeX's HumanEval-X samples name the completion "generation" */
        if (!c && !sol)
                c = cJSON_GetObjectItemCaseSensitive(smp->fields, "generation");
        if (c && !cJSON_IsString(c))
                return sbx_fail(err, 0, "%s: \"completion\" must be a string", where);
        if (!c && sol && !cJSON_IsString(sol))
                return sbx_fail(err, 0, "%s: \"solution\" must be a string", where);
        if (!c && !sol)
                return sbx_fail(err, 0, "%s: missing field \"completion\" (or evalplus \"solution\", "
                                "HumanEval-X's \"generation\")", where);
        smp->code = c ? c->valuestring : sol->valuestring;
        smp->is_solution = !c;
        return 0;
}

/* ClassEval's model-output form: one record per task, a list of predictions. */
static int add_predictions(struct suite *s, struct suite_task *t, cJSON *obj,
                           cJSON *predict, long pos, const char *where,
                           struct sbx_err *err)
{
        cJSON *p;
        int i = 0;

        if (!cJSON_IsArray(predict))
                return sbx_fail(err, 0, "%s: \"predict\" must be a list of strings", where);
        cJSON_ArrayForEach(p, predict) {
                struct suite_sample *smp;
                if (!cJSON_IsString(p))
                        return sbx_fail(err, 0, "%s: predict[%d] is not a string", where, i);
                if (!(smp = suite_new_sample(s, err)))
                        return -1;
                smp->line = pos;
                smp->task = (size_t)(t - s->tasks);
                smp->predict_index = i++;
                smp->fields = cJSON_CreateObject();
                if (!smp->fields ||
                    !cJSON_AddItemToObject(smp->fields, "task_id",
                                           cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(obj, "task_id"), true)) ||
                    !cJSON_AddNumberToObject(smp->fields, "predict_index", smp->predict_index) ||
                    !cJSON_AddStringToObject(smp->fields, "completion", p->valuestring))
                        return sbx_fail_oom(err, "%s", where);
                smp->code = cJSON_GetObjectItemCaseSensitive(smp->fields, "completion")->valuestring;
                t->n_samples++;
        }
        return 0;
}

static int sample_record(void *vctx, cJSON *obj, long line, struct sbx_err *err)
{
        struct load_ctx *ctx = vctx;
        struct suite *s = ctx->s;
        char where[4096];
        cJSON *id = cJSON_GetObjectItemCaseSensitive(obj, "task_id");
        cJSON *predict = cJSON_GetObjectItemCaseSensitive(obj, "predict");
        struct suite_task *t;
        struct suite_sample *smp;
        char *tid;
        int rc;

        snprintf(where, sizeof(where), "%s:%ld", ctx->path, line);
        if (!id || !(tid = suite_task_id_string(id))) {
                cJSON_Delete(obj);
                return sbx_fail(err, 0, "%s: missing or empty field \"task_id\"", where);
        }
        t = suite_find_task(s, tid);
        if (!t) {
                sbx_fail(err, 0, "%s: unknown task_id \"%s\" (not in %s)",
                         where, tid, s->problems_path);
                free(tid);
                cJSON_Delete(obj);
                return -1;
        }
        free(tid);
        if (predict) {
                rc = add_predictions(s, t, obj, predict, line, where, err);
                cJSON_Delete(obj);
                return rc;
        }
        if (!(smp = suite_new_sample(s, err))) {
                cJSON_Delete(obj);
                return -1;
        }
        smp->line = line;
        smp->task = (size_t)(t - s->tasks);
        smp->fields = obj;
        t->n_samples++;
        return sample_code(smp, where, err);
}

/* The shape errors say which formats are accepted. */
static int samples_format_error(struct sbx_err *err)
{
        size_t n = strlen(err->msg);

        if (strstr(err->msg, "expected a JSON") || strstr(err->msg, "missing field \"completion\""))
                snprintf(err->msg + n, sizeof(err->msg) - n, " [accepted: %s]", SUITE_SAMPLE_FORMATS);
        return -1;
}

int suite_load_samples(struct suite *s, const char *path, struct sbx_err *err)
{
        struct load_ctx ctx = { s, path, true };
        struct stat st;

        if (!(s->samples_path = strdup(path)))
                return sbx_fail_oom(err, "%s", path);
        if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
                if (suite_load_evalplus_dir(s, path, err) < 0)
                        return -1;
        } else if (parse_records(path, sample_record, &ctx, s->samples_hash, err) < 0) {
                return samples_format_error(err);
        }
        if (s->n_samples == 0)
                return sbx_fail(err, 0, "%s: no samples", path);
        return 0;
}

static const char *canonical_field(const struct suite *s)
{
        return s->ops->canonical_field ? s->ops->canonical_field : s->def.canonical_field;
}

int suite_make_canonical(struct suite *s, struct sbx_err *err)
{
        const char *field = canonical_field(s);

        if (!field)
                return sbx_fail(err, 0, "suite %s has no canonical solution field "
                                "(\"canonical_field\")", s->def.name);
        s->canonical = true;
        snprintf(s->samples_hash, sizeof(s->samples_hash), "canonical");
        for (size_t i = 0; i < s->n_tasks; i++) {
                struct suite_task *t = &s->tasks[i];
                cJSON *sol = cJSON_GetObjectItemCaseSensitive(t->problem, field);
                struct suite_sample *smp;

                if (!cJSON_IsString(sol))
                        return sbx_fail(err, 0, "%s:%ld: task %s has no string \"%s\"",
                                        s->problems_path, t->line, t->task_id, field);
                if (!(smp = suite_new_sample(s, err)))
                        return -1;
                smp->line = t->line;
                smp->task = i;
                smp->fields = cJSON_CreateObject();
                if (!smp->fields ||
                    !cJSON_AddItemToObject(smp->fields, "task_id",
                                           cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(t->problem, "task_id"), true)) ||
                    !cJSON_AddStringToObject(smp->fields, "completion", sol->valuestring))
                        return sbx_fail_oom(err, "canonical samples");
                smp->code = cJSON_GetObjectItemCaseSensitive(smp->fields, "completion")->valuestring;
                t->n_samples = 1;
        }
        if (s->n_samples == 0)
                return sbx_fail(err, 0, "%s: no problems", s->problems_path);
        return 0;
}

void suite_free(struct suite *s)
{
        for (size_t i = 0; i < s->n_tasks; i++) {
                struct suite_task *t = &s->tasks[i];
                free(t->task_id);
                cJSON_Delete(t->problem);
                if (t->kind_data)
                        s->def.row->ops->free_problem(t->kind_data);
                for (size_t j = 0; j < t->n_test_classes; j++)
                        free(t->test_classes[j]);
                free(t->test_classes);
        }
        for (size_t i = 0; i < s->n_samples; i++)
                cJSON_Delete(s->samples[i].fields);
        free(s->tasks);
        free(s->by_id);
        free(s->samples);
        free(s->problems_path);
        free(s->samples_path);
        evalplus_free(s->evalplus);
        suite_lang_free(s);
        suite_def_free(&s->def);
        memset(s, 0, sizeof(*s));
}
