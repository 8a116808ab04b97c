/* SandboxFusion's /run_code, both ways (docs/http.md): a request body into
 * a struct http_code_request, checked and clamped to the server's limits,
 * and a struct http_code_result into SandboxFusion's answer, its status
 * chosen as its parse_run_status does. Pure (tests/unit/frontend_http_sf.c,
 * fuzz/fuzz_http_run_code.c). */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "encoding.h"
#include "http.h"

/* SandboxFusion's Language literal (sandbox/runners/types.py), in order. */
const char *const http_sf_languages[] = {
        "python", "cpp", "nodejs", "go", "go_test", "java", "php", "csharp", "bash",
        "typescript", "sql", "rust", "cuda", "lua", "R", "perl", "D_ut", "ruby", "scala",
        "julia", "pytest", "junit", "kotlin_script", "jest", "verilog", "python_gpu",
        "lean", "swift", "racket", NULL,
};

#define SF_DEFAULT_TIMEOUT_S    10.0    /* compile_timeout, run_timeout */
#define SF_IGNORED_NAME         "IGNORE_THIS_FILE"

bool http_sf_language_known(const char *name)
{
        for (const char *const *l = http_sf_languages; *l; l++)
                if (strcmp(*l, name) == 0)
                        return true;
        return false;
}

void http_code_request_free(struct http_code_request *rq)
{
        free(rq->language);
        free(rq->code);
        free(rq->stdin_data);
        http_files_free(rq->files, rq->n_files);
        for (size_t i = 0; i < rq->n_fetch; i++)
                free(rq->fetch[i]);
        free(rq->fetch);
        memset(rq, 0, sizeof(*rq));
}

void http_code_result_free(struct http_code_result *res)
{
        free(res->compile.out);
        free(res->compile.err);
        free(res->run.out);
        free(res->run.err);
        http_files_free(res->files, res->n_files);
        free(res->message);
        memset(res, 0, sizeof(*res));
}

static int fail(struct http_sf_error *e, enum http_sf_verdict v, const char *field,
                const char *key, const char *type, const char *fmt, ...)
        __attribute__((format(printf, 6, 7)));
static int fail(struct http_sf_error *e, enum http_sf_verdict v, const char *field,
                const char *key, const char *type, const char *fmt, ...)
{
        va_list ap;

        snprintf(e->field, sizeof(e->field), "%s", field);
        snprintf(e->key, sizeof(e->key), "%s", key ? key : "");
        snprintf(e->type, sizeof(e->type), "%s", type);
        va_start(ap, fmt);
        vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
        va_end(ap);
        return v;
}

#define INVALID(field, key, type, ...) fail(e, HTTP_SF_INVALID, field, key, type, __VA_ARGS__)
#define REFUSED(field, key, ...) fail(e, HTTP_SF_REFUSED, field, key, "refused", __VA_ARGS__)
#define NOMEM(field) REFUSED(field, NULL, "out of memory reading \"%s\"", field)

static int get_string(const cJSON *o, const char *field, bool required, char **out,
                      size_t *len, struct http_sf_error *e)
{
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, field);

        if (!v || (cJSON_IsNull(v) && !required))
                return required ? INVALID(field, NULL, "missing", "Field required") : 0;
        if (!cJSON_IsString(v) || !v->valuestring)
                return INVALID(field, NULL, "string_type", "Input should be a valid string");
        *len = strlen(v->valuestring);
        if (!(*out = strdup(v->valuestring)))
                return NOMEM(field);
        return 0;
}

/* A timeout in seconds: absent is SandboxFusion's 10 s; clamped to max. */
static int get_timeout(const cJSON *o, const char *field, int64_t max_ms, int64_t *ms,
                       struct http_sf_error *e)
{
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, field);
        double s = SF_DEFAULT_TIMEOUT_S;

        if (v && !cJSON_IsNumber(v))
                return INVALID(field, NULL, "float_type", "Input should be a valid number");
        if (v)
                s = v->valuedouble;
        if (!isfinite(s) || s <= 0)
                return INVALID(field, NULL, "greater_than", "Input should be greater than 0");
        *ms = s * 1000 >= (double)max_ms ? max_ms : (int64_t)ceil(s * 1000);
        return 0;
}

/* memory_limit_MB: -1 (its default) or 0 is the server's; else MiB,
 * never above the server's. */
static int get_memory(const cJSON *o, long long max_bytes, long long *bytes,
                      struct http_sf_error *e)
{
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, "memory_limit_MB");

        *bytes = 0;
        if (!v)
                return 0;
        if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble) || v->valuedouble != floor(v->valuedouble))
                return INVALID("memory_limit_MB", NULL, "int_type", "Input should be a valid integer");
        if (v->valuedouble <= 0)
                return 0;
        double b = v->valuedouble * 1048576.0;
        if (max_bytes > 0 && b >= (double)max_bytes)
                *bytes = max_bytes;
        else
                *bytes = b >= 9.0e18 ? (long long)9e18 : (long long)b;
        return 0;
}

static int get_language(const cJSON *o, char **out, struct http_sf_error *e)
{
        size_t len;
        int rc = get_string(o, "language", true, out, &len, e);

        if (rc < 0)
                return rc;
        if (!http_sf_language_known(*out))
                return INVALID("language", NULL, "literal_error", "Input should be one of "
                               "SandboxFusion's languages ('python', 'cpp', 'nodejs', ...), not '%.40s'",
                               *out);
        return 0;
}

/* One entry of "files": a checked name and its decoded bytes; 1 when it
 * is skipped, as SandboxFusion's restore_files skips it. */
static int take_file(const cJSON *f, struct http_file *out, struct http_sf_error *e)
{
        char why[160];

        if (cJSON_IsNull(f) || strstr(f->string, SF_IGNORED_NAME))
                return 1;
        if (!cJSON_IsString(f) || !f->valuestring)
                return INVALID("files", f->string, "string_type", "Input should be a valid string");
        if (http_file_name_check(f->string, why, sizeof(why)) < 0)
                return REFUSED("files", f->string, "files: '%.200s': %s", f->string, why);
        if (http_base64_decode(f->valuestring, strlen(f->valuestring), &out->data, &out->len) < 0)
                return errno == ENOMEM ? NOMEM("files") :
                       REFUSED("files", f->string, "files: '%.200s': not valid base64", f->string);
        if (!(out->name = strdup(f->string)))
                return NOMEM("files");
        return 0;
}

static void file_clear(struct http_file *f)
{
        free(f->name);
        free(f->data);
        memset(f, 0, sizeof(*f));
}

static bool name_taken(const struct http_file *files, size_t n, const char *name)
{
        for (size_t i = 0; i < n; i++)
                if (strcmp(files[i].name, name) == 0)
                        return true;
        return false;
}

static int get_files(const cJSON *o, const struct http_limits *lim, struct http_code_request *rq,
                     struct http_sf_error *e)
{
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, "files"), *f;
        int n = cJSON_GetArraySize(v);

        if (!v || cJSON_IsNull(v))
                return 0;
        if (!cJSON_IsObject(v))
                return INVALID("files", NULL, "dict_type", "Input should be a valid dictionary");
        if ((size_t)n > lim->max_files)
                return REFUSED("files", NULL, "files: %d files, this server takes at most %zu",
                               n, lim->max_files);
        if (n && !(rq->files = calloc((size_t)n, sizeof(*rq->files))))
                return NOMEM("files");
        cJSON_ArrayForEach(f, v) {
                struct http_file *slot = &rq->files[rq->n_files];
                int rc = take_file(f, slot, e);
                if (rc < 0) {
                        file_clear(slot);
                        return rc;
                }
                if (rc == 1)
                        continue;
                if (name_taken(rq->files, rq->n_files, slot->name)) {
                        file_clear(slot);
                        return REFUSED("files", f->string, "files: '%.200s' given twice", f->string);
                }
                rq->n_files++;
        }
        return 0;
}

static int get_fetch(const cJSON *o, const struct http_limits *lim, struct http_code_request *rq,
                     struct http_sf_error *e)
{
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, "fetch_files"), *f;
        int n = cJSON_GetArraySize(v);
        char why[160];

        if (!v || cJSON_IsNull(v))
                return 0;
        if (!cJSON_IsArray(v))
                return INVALID("fetch_files", NULL, "list_type", "Input should be a valid list");
        if ((size_t)n > lim->max_fetch)
                return REFUSED("fetch_files", NULL, "fetch_files: %d names, this server takes "
                               "at most %zu", n, lim->max_fetch);
        if (n && !(rq->fetch = calloc((size_t)n, sizeof(char *))))
                return NOMEM("fetch_files");
        cJSON_ArrayForEach(f, v) {
                if (!cJSON_IsString(f) || !f->valuestring)
                        return INVALID("fetch_files", NULL, "string_type", "Input should be a valid string");
                if (http_file_name_check(f->valuestring, why, sizeof(why)) < 0)
                        return REFUSED("fetch_files", f->valuestring, "fetch_files: '%.200s': %s",
                                       f->valuestring, why);
                if (!(rq->fetch[rq->n_fetch] = strdup(f->valuestring)))
                        return NOMEM("fetch_files");
                rq->n_fetch++;
        }
        return 0;
}

static int parse_object(const cJSON *o, const struct http_limits *lim,
                        struct http_code_request *rq, struct http_sf_error *e)
{
        int rc;

        if ((rc = get_string(o, "code", true, &rq->code, &rq->code_len, e)) < 0 ||
            (rc = get_language(o, &rq->language, e)) < 0 ||
            (rc = get_timeout(o, "compile_timeout", lim->max_timeout_ms, &rq->compile_timeout_ms, e)) < 0 ||
            (rc = get_timeout(o, "run_timeout", lim->max_timeout_ms, &rq->run_timeout_ms, e)) < 0 ||
            (rc = get_memory(o, lim->max_memory_bytes, &rq->memory_bytes, e)) < 0 ||
            (rc = get_string(o, "stdin", false, &rq->stdin_data, &rq->stdin_len, e)) < 0)
                return rc;
        /* the check that can refuse comes after every check that can invalidate */
        const cJSON *files = cJSON_GetObjectItemCaseSensitive(o, "fetch_files");
        if (files && !cJSON_IsNull(files) && !cJSON_IsArray(files))
                return INVALID("fetch_files", NULL, "list_type", "Input should be a valid list");
        rc = get_files(o, lim, rq, e);
        return rc < 0 ? rc : get_fetch(o, lim, rq, e);
}

enum http_sf_verdict http_sf_parse(const char *body, size_t len, const struct http_limits *lim,
                                   struct http_code_request *rq, struct http_sf_error *e)
{
        const char *end = NULL;
        cJSON *o;
        int rc;

        memset(rq, 0, sizeof(*rq));
        memset(e, 0, sizeof(*e));
        o = cJSON_ParseWithLengthOpts(body, len, &end, false);
        if (!o) {
                size_t at = end && end >= body ? (size_t)(end - body) : 0;
                return INVALID("", NULL, "json_invalid", "JSON decode error near byte %zu", at);
        }
        while (end && end < body + len && (*end == ' ' || *end == '\t' || *end == '\r' || *end == '\n'))
                end++;
        if (end != body + len)
                rc = INVALID("", NULL, "json_invalid", "JSON decode error: text after the object "
                             "at byte %zu", (size_t)(end - body));
        else if (!cJSON_IsObject(o))
                rc = INVALID("", NULL, "model_attributes_type", "Input should be a valid "
                             "dictionary or object to extract fields from");
        else
                rc = parse_object(o, lim, rq, e);
        cJSON_Delete(o);
        if (rc < 0)
                http_code_request_free(rq);
        return rc < 0 ? (enum http_sf_verdict)rc : HTTP_SF_OK;
}

/* ---- answers -------------------------------------------------------- */

static const char *step_status_name(enum http_step_status s)
{
        switch (s) {
        case HTTP_STEP_FINISHED: return "Finished";
        case HTTP_STEP_TIME_LIMIT: return "TimeLimitExceeded";
        case HTTP_STEP_ERROR: return "Error";
        }
        return "Error";
}

static void add_text(cJSON *o, const char *key, const char *text)
{
        if (text)
                cJSON_AddStringToObject(o, key, text);
        else
                cJSON_AddNullToObject(o, key);
}

static cJSON *step_json(const struct http_step_result *s)
{
        cJSON *o;

        if (!s->present)
                return cJSON_CreateNull();
        if (!(o = cJSON_CreateObject()))
                return NULL;
        cJSON_AddStringToObject(o, "status", step_status_name(s->status));
        if (s->status == HTTP_STEP_ERROR)
                cJSON_AddNullToObject(o, "execution_time");
        else
                cJSON_AddNumberToObject(o, "execution_time", s->execution_time_s);
        if (s->has_return_code)
                cJSON_AddNumberToObject(o, "return_code", s->return_code);
        else
                cJSON_AddNullToObject(o, "return_code");
        add_text(o, "stdout", s->out);
        add_text(o, "stderr", s->err);
        return o;
}

/* parse_run_status: an Error step makes SandboxError (its stderr the
 * message); else a time limit or a non-zero return code makes Failed. */
static const char *overall_status(const struct http_code_result *r, const char **message)
{
        const struct http_step_result *steps[] = { &r->compile, &r->run };

        for (size_t i = 0; i < 2; i++)
                if (steps[i]->present && steps[i]->status == HTTP_STEP_ERROR) {
                        *message = steps[i]->err ? steps[i]->err : "";
                        return "SandboxError";
                }
        for (size_t i = 0; i < 2; i++)
                if (steps[i]->present && (steps[i]->status == HTTP_STEP_TIME_LIMIT ||
                                          (steps[i]->has_return_code && steps[i]->return_code)))
                        return "Failed";
        return "Success";
}

static char *print_and_free(cJSON *o)
{
        char *text = o ? cJSON_PrintUnformatted(o) : NULL;

        cJSON_Delete(o);
        return text;
}

static char *render_with(const struct http_code_result *res, const char *status,
                         const char *message)
{
        cJSON *o = cJSON_CreateObject(), *files = cJSON_CreateObject();

        if (!o || !files) {
                cJSON_Delete(files);
                return print_and_free(o);
        }
        cJSON_AddStringToObject(o, "status", status);
        cJSON_AddStringToObject(o, "message", message);
        cJSON_AddItemToObject(o, "compile_result", step_json(&res->compile));
        cJSON_AddItemToObject(o, "run_result", step_json(&res->run));
        cJSON_AddNullToObject(o, "executor_pod_name");
        cJSON_AddItemToObject(o, "files", files);
        for (size_t i = 0; i < res->n_files; i++) {
                auto_free char *b64 = base64_encode(res->files[i].data, res->files[i].len);
                if (!b64) {
                        cJSON_Delete(o);
                        return NULL;
                }
                cJSON_AddStringToObject(files, res->files[i].name, b64);
        }
        return print_and_free(o);
}

char *http_sf_render(const struct http_code_result *res)
{
        const char *message = res->message ? res->message : "";
        const char *status = overall_status(res, &message);

        return render_with(res, status, message);
}

char *http_sf_sandbox_error(const char *message)
{
        static const struct http_code_result none;

        return render_with(&none, "SandboxError", message);
}

char *http_sf_invalid(const struct http_sf_error *e)
{
        cJSON *o = cJSON_CreateObject(), *list = cJSON_CreateArray();
        cJSON *item = cJSON_CreateObject(), *loc = cJSON_CreateArray();

        if (!o || !list || !item || !loc) {
                cJSON_Delete(list);
                cJSON_Delete(item);
                cJSON_Delete(loc);
                return print_and_free(o);
        }
        cJSON_AddItemToArray(loc, cJSON_CreateString("body"));
        if (e->field[0])
                cJSON_AddItemToArray(loc, cJSON_CreateString(e->field));
        if (e->key[0])
                cJSON_AddItemToArray(loc, cJSON_CreateString(e->key));
        cJSON_AddStringToObject(item, "type", e->type);
        cJSON_AddItemToObject(item, "loc", loc);
        cJSON_AddStringToObject(item, "msg", e->msg);
        cJSON_AddItemToArray(list, item);
        cJSON_AddItemToObject(o, "detail", list);
        return print_and_free(o);
}
