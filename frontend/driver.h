/* The trusted driver that runs each suite program, and the parsing of its
 * markers out of the captured stdout. */
#ifndef SBX_DRIVER_H
#define SBX_DRIVER_H

#include <cjson/cJSON.h>

#include "sandbox.h"

#define DRIVER_NONCE_HEX 32

extern const char *const driver_source;       /* driver.py */

enum driver_outcome {
        DRIVER_NONE = 0,        /* no valid end marker: died or exited early */
        DRIVER_RETURNED,        /* the program returned normally */
        DRIVER_RAISED,          /* it raised: payload {"type", "msg"} */
        DRIVER_CLASSES,         /* ClassEval: payload {class: [run, errors, failures]} */
};

struct driver_report {
        enum driver_outcome outcome;
        cJSON *payload;         /* owned; NULL for NONE/RETURNED */
};

/* Finds the begin marker at the start of stdout and the end marker with the
 * same nonce at the very end of the stream (in the kept tail). */
void driver_parse(const struct run_output *out, struct driver_report *rep);
void driver_report_free(struct driver_report *rep);

#endif
