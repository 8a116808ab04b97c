/* Fuzz target: custom-suite template expansion (suite_expand_template:
 * {field} from the problem, {completion}, {{ and }} literal braces).
 * Input: the template, FUZZ_SEP, the problem's JSON, FUZZ_SEP, the
 * completion. Property beyond "no crash": a failed expansion says why and
 * names where the template came from. */
#include <stdlib.h>
#include <string.h>

#include "fuzz_input.h"
#include "suite.h"

#define FUZZ_WHERE "fuzz-suite.json"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        const uint8_t *rest, *completion;
        size_t rest_len, completion_len;
        size_t tmpl_len = fuzz_split(data, size, &rest, &rest_len);
        size_t problem_len = fuzz_split(rest, rest_len, &completion, &completion_len);
        char *tmpl = fuzz_strndup(data, tmpl_len);
        char *problem_text = fuzz_strndup(rest, problem_len);
        char *comp = fuzz_strndup(completion, completion_len);
        cJSON *problem = cJSON_Parse(problem_text);
        struct sbx_err err = { 0 };

        if (!problem)
                problem = cJSON_CreateObject();
        char *program = suite_expand_template(tmpl, problem, comp, FUZZ_WHERE, &err);
        if (!program && !strstr(err.msg, FUZZ_WHERE))
                abort();
        free(program);
        cJSON_Delete(problem);
        free(comp);
        free(problem_text);
        free(tmpl);
        return 0;
}
