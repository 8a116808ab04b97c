/* Size-capped capture of one output stream: the first max bytes, plus the
 * last OUTPUT_TAIL_BYTES of everything, in bounded memory whatever the
 * program writes. */
#ifndef SBX_OUTPUT_H
#define SBX_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>

#define OUTPUT_TAIL_BYTES 4096          /* always kept, even past the cap */

/* One captured stream of a run (struct run_result's out and err). */
struct run_output {
        char *data;                     /* first max_output bytes, NUL-terminated */
        size_t len;
        bool truncated;
        char tail[OUTPUT_TAIL_BYTES + 1]; /* the last bytes of the whole stream */
        size_t tail_len;
        size_t total;                   /* bytes the program wrote in all */
};

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

/* A copy of buf[0..len) safe to show on a terminal: what a terminal would
 * act on (ESC and every other C0/C1 control, DEL, bidi overrides) and
 * bytes that are not UTF-8 are shown escaped (\x1b, \r, \u202e), so a
 * program cannot set the clipboard (OSC 52) or the title, move the cursor,
 * hide text or overwrite a line. keep_lines leaves \n and \t as they are.
 * malloc'd, NULL on allocation failure. */
char *output_terminal_escape(const char *buf, size_t len, bool keep_lines);

#endif
