/* SandboxFusion's own rows (sandbox/tests/datasets/samples/ and
 * its database): `id`, `content` (the prompt), `labels` (a JSON string),
 * `test`, and sometimes `canonical_solution`. Two kinds of `test` are
 * input/output problems:
 *   - code_contests and the other common_oj sets: a JSON string of a list
 *     of {"input": {"stdin": ...}, "output": {"stdout": ...}}, judged by
 *     sandbox/utils/testing.py (IO_CMP_SANDBOXFUSION);
 *   - live_code_bench_v1: base64(zlib(pickle({"input_output": json}))),
 *     the json being APPS's {inputs, outputs, fn_name}, call-based inputs
 *     one JSON argument a line (read by io_pickle_str: nothing unpickled). */
#include <stdlib.h>
#include <string.h>

#include "io.h"

static int stdio_case(cJSON *tc, const struct io_origin *at, struct io_problem *p,
                      struct sbx_err *err)
{
        cJSON *in = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(tc, "input"), "stdin");
        cJSON *out = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(tc, "output"), "stdout");
        char *i_text = NULL, *o_text = NULL;
        size_t i_len = 0, o_len = 0;

        if (!in || !out)
                return sbx_fail(err, 0, "%s:%ld: a test is not {\"input\": {\"stdin\": ...}, "
                                "\"output\": {\"stdout\": ...}}", at->path, at->line);
        if (io_take_item_str(in, &i_text, &i_len, "input.stdin", at, err) < 0)
                return -1;
        if (io_take_item_str(out, &o_text, &o_len, "output.stdout", at, err) < 0) {
                free(i_text);
                return -1;
        }
        return io_add_test(p, i_text, i_len, o_text, o_len, "", at, err);
}

static int read_stdio_list(cJSON *list, const struct io_origin *at,
                           struct io_problem *p, struct sbx_err *err)
{
        cJSON *tc;

        p->compare.kind = IO_CMP_SANDBOXFUSION;
        cJSON_ArrayForEach(tc, list) {
                if (stdio_case(tc, at, p, err) < 0)
                        return -1;
        }
        return 0;
}

static int read_packed(const char *text, const struct io_origin *at,
                       struct io_problem *p, struct sbx_err *err)
{
        auto_free char *raw = NULL;
        size_t raw_len = 0, js_len = 0;
        const char *js;
        cJSON *io;
        int rc;

        if (io_unpack_b64_zlib(text, strlen(text), &raw, &raw_len, err) < 0 ||
            io_pickle_str((const unsigned char *)raw, raw_len, &js, &js_len, err) < 0)
                return sbx_err_wrap(err, "%s:%ld: test is neither a JSON list nor packed tests: ",
                                    at->path, at->line);
        if (!(io = cJSON_ParseWithLength(js, js_len)))
                return sbx_fail(err, 0, "%s:%ld: test unpacks to text that is not JSON",
                                at->path, at->line);
        /* SandboxFusion runs an older LiveCodeBench testing_util on these
         * (APPS's comparisons); IO_CMP_LCB is the nearest sbx has. */
        p->compare.kind = IO_CMP_LCB;
        p->call = IO_CALL_LCB;
        p->prelude = IO_PRELUDE_LCB;
        rc = io_read_apps_io(io, at, p, err);
        cJSON_Delete(io);
        return rc;
}

int io_read_sandboxfusion(cJSON *row, const struct io_origin *at,
                          struct io_problem *p, struct sbx_err *err)
{
        const char *test = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(row, "test"));
        cJSON *list;
        size_t len;
        int rc;

        if (io_set_task_id(p, row, "id", at, err) < 0 ||
            io_take_str(row, "canonical_solution", &p->canonical, &len, at, err) < 0)
                return -1;
        if (!test)
                return sbx_fail(err, 0, "%s:%ld: test is not a string", at->path, at->line);
        list = cJSON_Parse(test);
        if (!list)
                return read_packed(test, at, p, err);
        rc = cJSON_IsArray(list) ? read_stdio_list(list, at, p, err)
             : sbx_fail(err, 0, "%s:%ld: test is JSON but not a list of tests "
                        "(an assert-style SandboxFusion set, not input/output?)",
                        at->path, at->line);
        cJSON_Delete(list);
        return rc;
}
