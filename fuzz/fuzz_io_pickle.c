/* Fuzz target: LiveCodeBench's packed tests: the strict pickle reader
 * (io_pickle_str) on raw bytes, and base64 + zlib (io_unpack_b64_zlib,
 * capped at 1 MiB here) on the same bytes as text. Properties beyond "no
 * crash": an accepted pickle's str lies inside the input; every refusal
 * says why; an unpacked buffer is NUL-terminated at its length. */
#include <stdlib.h>
#include <string.h>

#include "fuzz_input.h"
#include "io.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        struct sbx_err err = { 0 };
        const char *s = NULL;
        char *out = NULL;
        size_t n = 0;

        if (io_pickle_str(data, size, &s, &n, &err) == 0) {
                if (s < (const char *)data || s + n > (const char *)data + size)
                        abort();
        } else if (!err.msg[0]) {
                abort();
        }
        err.msg[0] = '\0';
        if (io_unpack_b64_zlib_max((const char *)data, size, 1 << 20, &out, &n, &err) == 0) {
                if (out[n] != '\0' || n > (1 << 20))
                        abort();
                free(out);
        } else if (!err.msg[0] || out) {
                abort();
        }
        return 0;
}
