/* Fuzz target: the input/output problem readers (io_read_row,
 * frontend/suites/io/). Input: a format byte (0: by the fields, 1-5 one
 * format), then one JSONL row. Properties beyond "no crash": a refusal
 * names the file and line and leaves the problem empty; an accepted
 * problem has a task id and tests whose lengths are their text's, and a
 * call-based one a function name. */
#include <stdlib.h>
#include <string.h>

#include "fuzz_input.h"
#include "io.h"

static void check_accepted(const struct io_problem *p)
{
        if (!p->task_id || p->n_tests == 0 || p->n_tests > IO_MAX_TESTS)
                abort();
        if (p->call != IO_CALL_NONE && !p->fn_name)
                abort();
        for (size_t i = 0; i < p->n_tests; i++) {
                const struct io_data *in = &p->tests[i].input, *out = &p->tests[i].output;
                if (!in->text || !out->text)    /* JSON rows hold no file names */
                        if (p->format != IO_FORMAT_SBX)
                                abort();
                if (in->text && strlen(in->text) != in->len)
                        abort();
                if (out->text && strlen(out->text) != out->len)
                        abort();
        }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        struct io_origin at = { .path = "fuzz.jsonl", .line = 3, .index = 2 };
        struct io_problem p = { 0 };
        struct sbx_err err = { 0 };
        cJSON *row;

        if (size < 1)
                return 0;
        row = cJSON_ParseWithLength((const char *)data + 1, size - 1);
        if (!row)
                return 0;
        if (io_read_row(row, (enum io_format)(data[0] % IO_FORMATS), &at, &p, &err) == 0) {
                check_accepted(&p);
                io_problem_free(&p);
        } else if (!strstr(err.msg, "fuzz.jsonl:3: ") || p.tests || p.task_id) {
                abort();
        }
        cJSON_Delete(row);
        return 0;
}
