/* --serve's request parser: one JSON line into a struct serve_request,
 * every field checked, and the error response. Pure code (unit tested in
 * tests/unit/frontend_serve.c): nothing here touches the sandbox. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "limit.h"
#include "serve_request.h"
#include "util.h"

#define WHY(...) (snprintf(why, why_len, __VA_ARGS__), -1)

void serve_request_free(struct serve_request *rq)
{
        cJSON_Delete(rq->id);
        free(rq->code);
        sbx_strv_free(rq->argv);
        free(rq->workdir);
        sbx_strv_free(rq->env);
        free(rq->stdin_text);
        free(rq->suite);
        free(rq->problems);
        free(rq->samples);
        free(rq->out);
        free(rq->k);
        free(rq->compare);
        free(rq->checker);
        free(rq->io_format);
        free(rq->io_language);
        memset(rq, 0, sizeof(*rq));
}

/* Optional string field: absent = NULL; present must be a string. */
static int get_str(const cJSON *o, const char *key, bool required, char **out,
                   char *why, size_t why_len)
{
        int rc = json_dup_str(o, key, out);

        if (rc == 0 && required)
                return WHY("missing \"%s\"", key);
        if (rc < 0 && errno == ENOMEM)
                return WHY("out of memory");
        if (rc < 0)
                return WHY("\"%s\" must be a string", key);
        return 0;
}

static int get_timeout(const cJSON *o, int64_t *ms, char *why, size_t why_len)
{
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, "timeout");

        if (!v || cJSON_IsNull(v))
                return 0;
        double s = cJSON_IsNumber(v) ? v->valuedouble : -1;
        if (!isfinite(s) || s <= 0 || s * 1000 > (double)SERVE_MAX_TIMEOUT_MS)
                return WHY("\"timeout\" must be a number of seconds in (0, %lld]",
                           SERVE_MAX_TIMEOUT_MS / 1000);
        *ms = (int64_t)ceil(s * 1000);
        return 0;
}

/* "memory": bytes of address space for this run (it may only lower the
 * server's --memory, which the run engine sees to). */
static int get_memory(const cJSON *o, long long *bytes, char *why, size_t why_len)
{
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, "memory");

        if (!v || cJSON_IsNull(v))
                return 0;
        double b = cJSON_IsNumber(v) ? v->valuedouble : -1;
        if (!isfinite(b) || b < 1 || b > (double)(1LL << 62) || b != floor(b))
                return WHY("\"memory\" must be a whole number of bytes in [1, 2^62]");
        *bytes = (long long)b;
        return 0;
}

static int get_argv(const cJSON *o, char ***out, char *why, size_t why_len)
{
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, "argv");
        int n = cJSON_GetArraySize(v);

        if (!v)
                return WHY("missing \"argv\"");
        if (!cJSON_IsArray(v) || n < 1 || n > SERVE_MAX_ARGS)
                return WHY("\"argv\" must be an array of 1 to %d strings", SERVE_MAX_ARGS);
        if (!(*out = calloc((size_t)n + 1, sizeof(char *))))
                return WHY("out of memory");
        for (int i = 0; i < n; i++) {
                const cJSON *a = cJSON_GetArrayItem(v, i);
                if (!cJSON_IsString(a) || !a->valuestring)
                        return WHY("\"argv\"[%d] must be a string", i);
                if (!((*out)[i] = strdup(a->valuestring)))
                        return WHY("out of memory");
        }
        if (!(*out)[0][0])
                return WHY("\"argv\"[0] is empty");
        return 0;
}

static bool env_name_ok(const char *name)
{
        if (!name[0] || (name[0] >= '0' && name[0] <= '9'))
                return false;
        for (const char *p = name; *p; p++)
                if (!(*p == '_' || (*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') ||
                      (*p >= '0' && *p <= '9')))
                        return false;
        return true;
}

/* "env": {"NAME": "VALUE", ...} becomes NAME=VALUE strings. */
static int get_env(const cJSON *o, char ***out, char *why, size_t why_len)
{
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, "env");
        const cJSON *e;
        size_t i = 0;
        int n = cJSON_GetArraySize(v);

        if (!v || cJSON_IsNull(v))
                return 0;
        if (!cJSON_IsObject(v) || n > SERVE_MAX_ARGS)
                return WHY("\"env\" must be an object of at most %d strings", SERVE_MAX_ARGS);
        if (!(*out = calloc((size_t)n + 1, sizeof(char *))))
                return WHY("out of memory");
        cJSON_ArrayForEach(e, v) {
                if (!env_name_ok(e->string))
                        return WHY("\"env\": '%s' is not a variable name", e->string);
                if (!cJSON_IsString(e) || !e->valuestring)
                        return WHY("\"env\".%s must be a string", e->string);
                if (asprintf(&(*out)[i++], "%s=%s", e->string, e->valuestring) < 0) {
                        (*out)[i - 1] = NULL;
                        return WHY("out of memory");
                }
        }
        return 0;
}

static int get_id(const cJSON *o, cJSON **id, char *why, size_t why_len)
{
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, "id");

        if (!v)
                return WHY("missing \"id\"");
        if (!cJSON_IsString(v) && !cJSON_IsNumber(v))
                return WHY("\"id\" must be a string or a number");
        if (!(*id = cJSON_Duplicate(v, false)))
                return WHY("out of memory");
        return 0;
}

/* "language": a name or alias of lang/'s table ("cpp", "c++", "Java");
 * "python" or absent: Python, as before. */
static int get_language(const cJSON *o, struct serve_request *rq, char *why, size_t why_len)
{
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, "language");
        const cJSON *t = cJSON_GetObjectItemCaseSensitive(o, "compile_timeout");
        char names[256];

        if (v && !cJSON_IsNull(v)) {
                if (!cJSON_IsString(v) || !v->valuestring)
                        return WHY("\"language\" must be a string");
                if (!(rq->language = lang_find(v->valuestring))) {
                        lang_names(names, sizeof(names));
                        return WHY("unknown \"language\" '%.64s' (%s)", v->valuestring, names);
                }
                if (!strcmp(rq->language->name, "python"))
                        rq->language = NULL;
        }
        if (!t || cJSON_IsNull(t))
                return 0;
        double s = cJSON_IsNumber(t) ? t->valuedouble : -1;
        if (!isfinite(s) || s <= 0 || s * 1000 > (double)SERVE_MAX_TIMEOUT_MS)
                return WHY("\"compile_timeout\" must be a number of seconds in (0, %lld]",
                           SERVE_MAX_TIMEOUT_MS / 1000);
        rq->compile_timeout_ms = (int64_t)ceil(s * 1000);
        return 0;
}

static int parse_run(const cJSON *o, struct serve_request *rq, char *why, size_t why_len)
{
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, "code");

        if (!v)
                return WHY("missing \"code\"");
        if (!cJSON_IsString(v) || !v->valuestring)
                return WHY("\"code\" must be a string");
        rq->code_len = strlen(v->valuestring);
        if (!(rq->code = strdup(v->valuestring)))
                return WHY("out of memory");
        return get_language(o, rq, why, why_len);
}

/* An optional positive number of at most max: absent or null leave *v 0. */
static int get_positive(const cJSON *o, const char *key, double max, double *v,
                        char *why, size_t why_len)
{
        const cJSON *n = cJSON_GetObjectItemCaseSensitive(o, key);

        if (!n || cJSON_IsNull(n))
                return 0;
        if (!cJSON_IsNumber(n) || !(n->valuedouble > 0) || n->valuedouble > max)
                return WHY("\"%s\" must be a number in (0, %g]", key, max);
        *v = n->valuedouble;
        return 0;
}

/* An io suite's judging, as sbx-run's options of the same names. */
static int parse_judge(const cJSON *o, struct serve_request *rq, char *why, size_t why_len)
{
        const cJSON *all = cJSON_GetObjectItemCaseSensitive(o, "all_tests");

        if (all && !cJSON_IsNull(all) && !cJSON_IsBool(all))
                return WHY("\"all_tests\" must be true or false");
        rq->all_tests = cJSON_IsTrue(all);
        if (get_positive(o, "test_timeout", 86400, &rq->test_timeout_s, why, why_len) < 0 ||
            get_positive(o, "time_scale", 1000, &rq->time_scale, why, why_len) < 0 ||
            get_str(o, "compare", false, &rq->compare, why, why_len) < 0 ||
            get_str(o, "checker", false, &rq->checker, why, why_len) < 0 ||
            get_str(o, "io_format", false, &rq->io_format, why, why_len) < 0 ||
            get_str(o, "language", false, &rq->io_language, why, why_len) < 0)
                return -1;
        return 0;
}

static int parse_suite(const cJSON *o, struct serve_request *rq, char *why, size_t why_len)
{
        const cJSON *canon = cJSON_GetObjectItemCaseSensitive(o, "canonical");
        const cJSON *jobs = cJSON_GetObjectItemCaseSensitive(o, "jobs");

        if (get_str(o, "suite", true, &rq->suite, why, why_len) < 0 ||
            get_str(o, "problems", false, &rq->problems, why, why_len) < 0 ||
            get_str(o, "samples", false, &rq->samples, why, why_len) < 0 ||
            get_str(o, "out", false, &rq->out, why, why_len) < 0 ||
            get_str(o, "k", false, &rq->k, why, why_len) < 0)
                return -1;
        if (canon && !cJSON_IsBool(canon))
                return WHY("\"canonical\" must be true or false");
        rq->canonical = cJSON_IsTrue(canon);
        if (rq->canonical == (rq->samples != NULL))
                return WHY("give exactly one of \"samples\" and \"canonical\": true");
        if (parse_judge(o, rq, why, why_len) < 0)
                return -1;
        if (jobs && !cJSON_IsNull(jobs)) {
                if (!cJSON_IsNumber(jobs) || jobs->valuedouble < 1 || jobs->valuedouble > SBX_JOBS_MAX ||
                    jobs->valuedouble != (int)jobs->valuedouble)
                        return WHY("\"jobs\" must be an integer in [1, %d]", SBX_JOBS_MAX);
                rq->jobs = (int)jobs->valuedouble;
        }
        return 0;
}

static int parse_object(const cJSON *o, struct serve_request *rq, char *why, size_t why_len)
{
        char *type = NULL;
        int rc;

        if (get_str(o, "type", true, &type, why, why_len) < 0)
                return -1;
        if (strcmp(type, "run") == 0)
                rq->type = SERVE_RUN;
        else if (strcmp(type, "run_argv") == 0)
                rq->type = SERVE_RUN_ARGV;
        else if (strcmp(type, "suite") == 0)
                rq->type = SERVE_SUITE;
        else {
                rc = WHY("unknown \"type\" '%.64s' (run, run_argv, suite)", type);
                free(type);
                return rc;
        }
        free(type);
        if (get_timeout(o, &rq->timeout_ms, why, why_len) < 0 ||
            (rq->type != SERVE_SUITE && get_memory(o, &rq->memory_bytes, why, why_len) < 0))
                return -1;
        /* "stdin": the program's input (null or absent: /dev/null) */
        if (rq->type != SERVE_SUITE && !cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(o, "stdin")) &&
            get_str(o, "stdin", false, &rq->stdin_text, why, why_len) < 0)
                return -1;
        rq->stdin_len = rq->stdin_text ? strlen(rq->stdin_text) : 0;
        switch (rq->type) {
        case SERVE_RUN:
                return parse_run(o, rq, why, why_len) < 0 ? -1 : get_env(o, &rq->env, why, why_len);
        case SERVE_RUN_ARGV:
                if (get_argv(o, &rq->argv, why, why_len) < 0 ||
                    get_str(o, "workdir", true, &rq->workdir, why, why_len) < 0)
                        return -1;
                if (rq->workdir[0] != '/')
                        return WHY("\"workdir\" must be an absolute path");
                return get_env(o, &rq->env, why, why_len);
        case SERVE_SUITE:
                return parse_suite(o, rq, why, why_len);
        }
        return WHY("internal: unhandled type");
}

int serve_parse_request(const char *line, size_t len, struct serve_request *rq,
                        cJSON **id_out, char *why, size_t why_len)
{
        const char *end = NULL;
        cJSON *o = cJSON_ParseWithLengthOpts(line, len, &end, false);
        int rc;

        memset(rq, 0, sizeof(*rq));
        *id_out = NULL;
        if (!o) {
                size_t at = end && end >= line ? (size_t)(end - line) : 0;
                return WHY("malformed JSON near byte %zu", at);
        }
        while (end && end < line + len && (*end == ' ' || *end == '\t' || *end == '\r'))
                end++;
        if (end != line + len) {
                cJSON_Delete(o);
                return WHY("malformed JSON: text after the object at byte %zu",
                           (size_t)(end - line));
        }
        if (!cJSON_IsObject(o)) {
                cJSON_Delete(o);
                return WHY("a request must be a JSON object");
        }
        rc = get_id(o, &rq->id, why, why_len);
        if (rc == 0)
                rc = parse_object(o, rq, why, why_len);
        if (rc < 0 && rq->id)
                *id_out = cJSON_Duplicate(rq->id, false);
        cJSON_Delete(o);
        if (rc < 0)
                serve_request_free(rq);
        return rc;
}

char *serve_error_line(const cJSON *id, const char *why)
{
        cJSON *o = cJSON_CreateObject();
        char *text;

        if (!o)
                return NULL;
        cJSON_AddItemToObject(o, "id", id ? cJSON_Duplicate(id, false) : cJSON_CreateNull());
        cJSON_AddStringToObject(o, "type", "error");
        cJSON_AddStringToObject(o, "error", why);
        text = cJSON_PrintUnformatted(o);
        cJSON_Delete(o);
        return text;
}
