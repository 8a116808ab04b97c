/* The trusted driver that runs each suite program, and the parsing of its
 * markers out of the captured stdout. */
#ifndef SBX_DRIVER_H
#define SBX_DRIVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "classeval.h"
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

/* "python -I -B -c DRIVER MODE OPERAND...": the command of one run, with
 * room for the classeval mode's operands it formats itself. */
#define DRIVER_MAX_ARGS (CLASSEVAL_MAX_TEST_CLASSES + 16)
struct driver_argv {
        const char *argv[DRIVER_MAX_ARGS + 1];  /* NULL-terminated */
        size_t argc;
        char limit_s[32], module[256];
};
void driver_argv_init(struct driver_argv *a, const char *python);
/* "script PROGRAM" */
void driver_argv_script(struct driver_argv *a, const char *program_path);
/* "plain PROGRAM path|isolated": a single run's program as `python
 * PROGRAM` runs it (its directory first on sys.path with dir_on_path), no
 * markers (its stdin is the run spec's). The shape a zygote runs warm
 * (docs/warm.md). */
void driver_argv_plain(struct driver_argv *a, const char *program_path, bool dir_on_path);
/* "classeval PROGRAM LIMIT_S MODULE CLASS...": LIMIT_S from timeout_ms,
 * MODULE from module (any bytes outside [A-Za-z0-9_] become _, as does a
 * leading digit, so that it imports). */
int driver_argv_classeval(struct driver_argv *a, const char *program_path, int64_t timeout_ms,
                          const char *module, char *const *classes, size_t n_classes,
                          struct sbx_err *err);

/* Finds the begin marker at the start of stdout and the end marker with the
 * same nonce at the very end of the stream (in the kept tail). */
void driver_parse(const struct run_output *out, struct driver_report *rep);
void driver_report_free(struct driver_report *rep);

#endif
