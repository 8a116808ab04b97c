/* Fuzz target: the JSONL reader every suite file goes through
 * (suite_parse_jsonl, frontend/suites/suite_load.c). Input: file content.
 * Property beyond "no crash": every error names the file. */
#include <stdlib.h>
#include <string.h>

#include "fuzz_input.h"
#include "suite.h"

#define FUZZ_PATH "fuzz.jsonl"

static int count_record(void *ctx, cJSON *obj, long line, struct sbx_err *err)
{
        long *last = ctx;

        if (line <= *last)
                abort();        /* line numbers must increase */
        *last = line;
        cJSON_Delete(obj);
        return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        struct sbx_err err = { 0 };
        long last = 0;

        if (suite_parse_jsonl(FUZZ_PATH, (const char *)data, size, count_record,
                              &last, &err) < 0 && !strstr(err.msg, FUZZ_PATH))
                abort();        /* an error that does not name the file */
        return 0;
}
