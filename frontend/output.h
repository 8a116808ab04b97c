/* Size-capped capture of one output stream: the first max bytes, plus the
 * last OUTPUT_TAIL_BYTES of everything, in bounded memory whatever the
 * program writes. */
#ifndef SBX_OUTPUT_H
#define SBX_OUTPUT_H

#include <stddef.h>

#include "sandbox.h"

struct output_capture {
        struct run_output *out;
        size_t max;             /* cap on out->data */
        size_t data_cap;        /* allocated bytes of out->data */
        size_t ring_pos;        /* next write position in out->tail */
        int failed_errno;       /* allocation failure: keep draining, say so */
};

void output_capture_init(struct output_capture *c, struct run_output *out,
                         size_t max);
void output_capture_append(struct output_capture *c, const char *buf, size_t n);
/* Linearizes the tail ring and NUL-terminates the data. */
void output_capture_finish(struct output_capture *c);

/* A copy of buf[0..len) that is valid UTF-8 without NUL bytes (each bad
 * byte and each NUL becomes U+FFFD), so a program printing binary cannot
 * make a JSON result unparseable. malloc'd, NULL on allocation failure. */
char *output_utf8_sanitize(const char *buf, size_t len);

#endif
