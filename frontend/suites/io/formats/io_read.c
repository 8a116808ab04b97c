/* The format names, and the choice of reader for a row: by the fields
 * only one format has, unless the caller names the format. */
#include <string.h>

#include "io.h"

static const char *const format_names[IO_FORMATS] = {
        [IO_FORMAT_AUTO] = "auto",
        [IO_FORMAT_APPS] = "apps",
        [IO_FORMAT_CODECONTESTS] = "codecontests",
        [IO_FORMAT_LCB] = "livecodebench",
        [IO_FORMAT_SANDBOXFUSION] = "sandboxfusion",
        [IO_FORMAT_SBX] = "sbx",
};

const char *io_format_name(enum io_format f)
{
        return (unsigned)f < IO_FORMATS ? format_names[f] : "?";
}

int io_format_parse(const char *name)
{
        for (int f = 0; f < IO_FORMATS; f++)
                if (strcmp(name, format_names[f]) == 0)
                        return f;
        if (strcmp(name, "taco") == 0)
                return IO_FORMAT_APPS;
        if (strcmp(name, "lcb") == 0)
                return IO_FORMAT_LCB;
        return -1;
}

static bool has(const cJSON *row, const char *key)
{
        return cJSON_GetObjectItemCaseSensitive(row, key) != NULL;
}

/* By the fields only one format has; SandboxFusion's rows are the only
 * ones with "content" and "test". */
static enum io_format detect(const cJSON *row)
{
        if (has(row, "input_output"))
                return IO_FORMAT_APPS;
        if (has(row, "public_tests") || has(row, "private_tests") || has(row, "generated_tests"))
                return IO_FORMAT_CODECONTESTS;
        if (has(row, "public_test_cases") || has(row, "private_test_cases"))
                return IO_FORMAT_LCB;
        if (has(row, "test") && has(row, "content"))
                return IO_FORMAT_SANDBOXFUSION;
        if (has(row, "tests") || has(row, "tests_dir"))
                return IO_FORMAT_SBX;
        return IO_FORMAT_AUTO;
}

int io_read_row(cJSON *row, enum io_format fmt, const struct io_origin *at,
                struct io_problem *p, struct sbx_err *err)
{
        int rc;

        if (!cJSON_IsObject(row))
                return sbx_fail(err, 0, "%s:%ld: expected a JSON object", at->path, at->line);
        if (fmt == IO_FORMAT_AUTO && (fmt = detect(row)) == IO_FORMAT_AUTO)
                return sbx_fail(err, 0, "%s:%ld: not an input/output problem: no input_output "
                                "(APPS, TACO), public_tests (CodeContests), public_test_cases "
                                "(LiveCodeBench), test and content (SandboxFusion) or tests or tests_dir (sbx) field",
                                at->path, at->line);
        p->format = fmt;
        switch (fmt) {
        case IO_FORMAT_APPS:            rc = io_read_apps(row, at, p, err); break;
        case IO_FORMAT_CODECONTESTS:    rc = io_read_codecontests(row, at, p, err); break;
        case IO_FORMAT_LCB:             rc = io_read_lcb(row, at, p, err); break;
        case IO_FORMAT_SANDBOXFUSION:   rc = io_read_sandboxfusion(row, at, p, err); break;
        case IO_FORMAT_SBX:             rc = io_read_sbx(row, at, p, err); break;
        default:
                return sbx_fail(err, 0, "%s:%ld: unknown problem format %d", at->path,
                                at->line, (int)fmt);
        }
        /* a call's value is compared as a value, as each harness does */
        if (rc == 0 && p->call != IO_CALL_NONE && p->compare.kind != IO_CMP_CHECKER)
                p->compare.kind = p->call == IO_CALL_APPS ? IO_CMP_JSON_APPS : IO_CMP_JSON;
        if (rc == 0 && p->n_tests == 0)
                rc = sbx_fail(err, 0, "%s:%ld: problem %s has no tests", at->path, at->line,
                              p->task_id ? p->task_id : "?");
        if (rc < 0)
                io_problem_free(p);
        return rc;
}
