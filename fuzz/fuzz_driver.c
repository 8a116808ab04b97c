/* Fuzz target: reading the verdict out of a candidate's stdout
 * (driver_parse, frontend/suites/driver/driver.c). The candidate writes whatever it
 * likes there, so this is the most directly hostile input sbx-run parses.
 * Input: the captured stream; with FUZZ_SEP in it, the part before is the
 * kept head and the part after the kept tail (as after truncation).
 * Property beyond "no crash": a verdict is only found when the tail repeats
 * the head's nonce. */
#include <stdlib.h>
#include <string.h>

#include "driver.h"
#include "fuzz_input.h"

#define BEGIN_TAG "@@SBX-BEGIN "

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        struct run_output out;
        struct driver_report rep;
        const uint8_t *rest;
        size_t rest_len, head_len = fuzz_split(data, size, &rest, &rest_len);
        const uint8_t *tail = rest_len ? rest : data;
        size_t tail_len = rest_len ? rest_len : head_len;

        if (tail_len > OUTPUT_TAIL_BYTES) {
                tail += tail_len - OUTPUT_TAIL_BYTES;
                tail_len = OUTPUT_TAIL_BYTES;
        }
        memset(&out, 0, sizeof(out));
        out.data = fuzz_strndup(data, head_len);
        out.len = head_len;
        memcpy(out.tail, tail, tail_len);
        out.tail[tail_len] = '\0';
        out.tail_len = tail_len;
        out.total = size;
        out.truncated = rest_len != 0;

        driver_parse(&out, &rep);
        if (rep.outcome != DRIVER_NONE) {
                const size_t tag = strlen(BEGIN_TAG);
                if (head_len < tag + DRIVER_NONCE_HEX ||
                    !memmem(out.tail, out.tail_len, out.data + tag, DRIVER_NONCE_HEX))
                        abort();        /* a verdict without the nonce */
        }
        if ((rep.outcome == DRIVER_RAISED || rep.outcome == DRIVER_CLASSES) != (rep.payload != NULL))
                abort();
        driver_report_free(&rep);
        free(out.data);
        return 0;
}
