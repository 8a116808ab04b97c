/* Fuzz target: sbx-run --http's /run_code translator (http_sf_parse,
 * frontend/serve/http/http_sf.c) and its answers. Input: a request body.
 * Properties beyond "no crash": an accepted request is within the limits
 * (timeouts in (0, max], memory at most the server's, every file name
 * one the name check passes, no more files than allowed); a refusal has a
 * reason, and every answer is one line of JSON with SandboxFusion's keys. */
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "fuzz_input.h"
#include "http.h"

static const struct http_limits lim = {
        .max_timeout_ms = 30000, .max_memory_bytes = 1LL << 30, .max_files = 8, .max_fetch = 8,
};

static void check_json(char *text, const char *key)
{
        cJSON *o = text ? cJSON_Parse(text) : NULL;

        if (!o || strchr(text, '\n') || !cJSON_GetObjectItemCaseSensitive(o, key))
                abort();
        cJSON_Delete(o);
        free(text);
}

static void check_accepted(const struct http_code_request *rq)
{
        char why[160];

        if (!rq->code || strlen(rq->code) != rq->code_len || !http_sf_language_known(rq->language))
                abort();
        if (rq->run_timeout_ms <= 0 || rq->run_timeout_ms > lim.max_timeout_ms ||
            rq->compile_timeout_ms <= 0 || rq->compile_timeout_ms > lim.max_timeout_ms)
                abort();
        if (rq->memory_bytes < 0 || rq->memory_bytes > lim.max_memory_bytes)
                abort();
        if (rq->n_files > lim.max_files || rq->n_fetch > lim.max_fetch)
                abort();
        for (size_t i = 0; i < rq->n_files; i++)
                if (http_file_name_check(rq->files[i].name, why, sizeof(why)) < 0)
                        abort();
        for (size_t i = 0; i < rq->n_fetch; i++)
                if (http_file_name_check(rq->fetch[i], why, sizeof(why)) < 0)
                        abort();
}

/* An answer built from the request: its stdin as output, its files as fetched. */
static void check_render(const struct http_code_request *rq)
{
        struct http_code_result res = {
                .run = { .present = true, .status = HTTP_STEP_FINISHED, .has_return_code = true,
                         .out = rq->stdin_data, .err = rq->code },
                .files = rq->files, .n_files = rq->n_files,
        };

        check_json(http_sf_render(&res), "status");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        struct http_code_request rq;
        struct http_sf_error e;

        switch (http_sf_parse((const char *)data, size, &lim, &rq, &e)) {
        case HTTP_SF_OK:
                check_accepted(&rq);
                check_render(&rq);
                http_code_request_free(&rq);
                break;
        case HTTP_SF_INVALID:
                if (!e.msg[0] || rq.code)
                        abort();
                check_json(http_sf_invalid(&e), "detail");
                break;
        case HTTP_SF_REFUSED:
                if (!e.msg[0] || rq.code)
                        abort();
                check_json(http_sf_sandbox_error(e.msg), "message");
                break;
        }
        return 0;
}
