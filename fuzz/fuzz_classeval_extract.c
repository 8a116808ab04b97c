/* Fuzz target: ClassEval's code extraction from model output
 * (classeval_extract_code, classeval_add_staticmethod: frontend/results/classeval.c).
 * Input: the model's raw response text. */
#include <stdlib.h>

#include "classeval.h"
#include "fuzz_input.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        char *text = fuzz_strndup(data, size);
        char *code = classeval_extract_code(text);

        if (!code)
                abort();        /* NULL is reserved for out of memory */
        char *with_static = classeval_add_staticmethod(code);
        if (!with_static)
                abort();
        free(with_static);
        free(code);
        free(text);
        return 0;
}
