/* Fuzz target: the helper's command line parser (request_parse and
 * parse_limit_value, helper/request.c): the argv a caller of the setuid
 * helper controls completely. Input: the arguments, separated by NUL
 * bytes. Properties beyond "no crash": a refusal always says why; an
 * accepted run request has a program, a workdir that the other checks
 * will vet, and bounded list sizes; an accepted --zygote one is
 * PYTHON -I -B -c <the built-in zygote source>, without a workdir. */
#include <stdlib.h>
#include <string.h>

#include "fuzz_input.h"
#include "helper.h"
#include "zygote.h"

#define FUZZ_MAX_ARGS 512

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        char *text = fuzz_strndup(data, size);
        char *argv[FUZZ_MAX_ARGS + 2];
        int argc = 0;
        struct request rq;
        char err[SBX_ERRLEN] = "";

        argv[argc++] = "sbx-helper";
        for (char *p = text; p < text + size && argc < FUZZ_MAX_ARGS; p += strlen(p) + 1)
                argv[argc++] = p;
        argv[argc] = NULL;

        memset(&rq, 0, sizeof(rq));
        if (request_parse(&rq, argc, argv, err, sizeof(err)) < 0) {
                if (err[0] == '\0')
                        abort();
        } else if (rq.mode == MODE_RUN) {
                if (!rq.argv || !rq.argv[0])
                        abort();        /* a run without a program */
                if (rq.n_ro_binds > SBX_MAX_RO_BINDS || rq.n_env > SBX_MAX_ENV)
                        abort();
                /* --zygote runs the built-in zygote only, never with a workdir. */
                if (rq.zygote && (rq.workdir || strcmp(rq.argv[4], sbx_zygote_source) != 0 || rq.argv[5]))
                        abort();
        }
        /* Each limit's value parser on its own, on the whole input. */
        for (int i = 0; i < LIM_COUNT; i++) {
                uint64_t v;
                parse_limit_value(limit_descs[i].unit, limit_descs[i].none_allowed, text, &v);
        }
        free(text);
        return 0;
}
