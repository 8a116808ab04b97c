/* Verdict kinds and their words, both ways, in one table. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "sandbox.h"
#include "verdict.h"

static const char *const words[VERDICT_KINDS] = {
        [VERDICT_FAILED] = "failed: ",
        [VERDICT_PASSED] = "passed",
        [VERDICT_TIMED_OUT] = "timed out",
        [VERDICT_ERROR] = "failed: ",
        [VERDICT_COMPILE_ERROR] = "failed: compilation error",
};

void verdict_set(struct verdict *v, enum verdict_kind kind, const char *why, ...)
{
        int n = snprintf(v->result, sizeof(v->result), "%s", words[kind]);
        va_list ap;

        v->kind = kind;
        v->passed = kind == VERDICT_PASSED;
        if ((kind != VERDICT_FAILED && kind != VERDICT_COMPILE_ERROR) || !why || n < 0 ||
            (size_t)n >= sizeof(v->result))
                return;
        va_start(ap, why);
        vsnprintf(v->result + n, sizeof(v->result) - (size_t)n, why, ap);
        va_end(ap);
}

enum verdict_kind verdict_kind_of(const char *result, const char *status)
{
        if (!strcmp(status, run_status_name(RUN_ERROR)))
                return VERDICT_ERROR;
        if (!strcmp(result, words[VERDICT_PASSED]))
                return VERDICT_PASSED;
        if (!strcmp(result, words[VERDICT_TIMED_OUT]))
                return VERDICT_TIMED_OUT;
        if (!strncmp(result, words[VERDICT_COMPILE_ERROR], strlen(words[VERDICT_COMPILE_ERROR])))
                return VERDICT_COMPILE_ERROR;
        return VERDICT_FAILED;
}
