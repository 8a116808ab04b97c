/* Fuzz target: sbx-run --serve's request parser (serve_parse_request,
 * frontend/serve/serve_request.c). Input: one request line. Properties beyond
 * "no crash": a refusal has a reason and answers with a one-line error; an
 * accepted request has an id and the fields its type needs. */
#include <stdlib.h>
#include <string.h>

#include "fuzz_input.h"
#include "serve.h"

static void check_accepted(const struct serve_request *rq)
{
        if (!rq->id)
                abort();
        if (rq->type == SERVE_RUN && (!rq->code || strlen(rq->code) != rq->code_len))
                abort();
        if (rq->type == SERVE_RUN_ARGV && (!rq->argv || !rq->argv[0] || !rq->argv[0][0] ||
                                           !rq->workdir || rq->workdir[0] != '/'))
                abort();
        if (rq->type == SERVE_SUITE && (!rq->suite || rq->canonical == (rq->samples != NULL)))
                abort();
        if (rq->timeout_ms < 0 || rq->timeout_ms > SERVE_MAX_TIMEOUT_MS)
                abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        struct serve_request rq;
        cJSON *id = NULL;
        char why[512] = "";

        if (serve_parse_request((const char *)data, size, &rq, &id, why, sizeof(why)) == 0) {
                check_accepted(&rq);
                serve_request_free(&rq);
                return 0;
        }
        char *line = serve_error_line(id, why);
        if (!why[0] || !line || strchr(line, '\n'))
                abort();
        free(line);
        cJSON_Delete(id);
        return 0;
}
