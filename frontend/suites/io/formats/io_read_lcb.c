/* LiveCodeBench rows (code_generation_lite): `question_id`,
 * `public_test_cases` and `private_test_cases` (JSON strings of lists of
 * {"input", "output", "testtype"}), `metadata` (a JSON string; `func_name`
 * for functional problems) and `starter_code`. The private tests are, in
 * most releases, base64(zlib(pickle(json string))): LiveCodeBench's own
 * loader tries json.loads first and unpickles otherwise. sbx never
 * unpickles: io_pickle_str reads only a pickled str and refuses anything
 * else. Public tests run first, then private, as get_evaluation_sample
 * lists them. */
#include <stdlib.h>
#include <string.h>

#include "io.h"

/* The test list in row[key]: a JSON array, a JSON string of one, or (the
 * private tests) a packed one. NULL with err set, or a fresh cJSON. */
static cJSON *unpack_list(const char *text, size_t len, const char *key,
                          const struct io_origin *at, struct sbx_err *err)
{
        auto_free char *raw = NULL;
        size_t raw_len = 0, js_len = 0;
        const char *js;
        cJSON *list;

        if ((list = cJSON_ParseWithLength(text, len)))
                return list;
        if (io_unpack_b64_zlib(text, len, &raw, &raw_len, err) < 0 ||
            io_pickle_str((const unsigned char *)raw, raw_len, &js, &js_len, err) < 0) {
                sbx_err_wrap(err, "%s:%ld: %s is neither JSON nor a packed test list: ",
                             at->path, at->line, key);
                return NULL;
        }
        if (!(list = cJSON_ParseWithLength(js, js_len)))
                sbx_fail(err, 0, "%s:%ld: %s unpacks to text that is not JSON", at->path,
                         at->line, key);
        return list;
}

static int add_case(cJSON *tc, const struct io_origin *at, struct io_problem *p,
                    const char *group, struct sbx_err *err)
{
        const char *type = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(tc, "testtype"));
        enum io_call_style call = IO_CALL_NONE;
        char *in = NULL, *out = NULL;
        size_t in_len = 0, out_len = 0;

        if (!cJSON_IsObject(tc))
                return sbx_fail(err, 0, "%s:%ld: a %s test case is not an object", at->path,
                                at->line, group);
        if (type && strcmp(type, "functional") == 0)
                call = IO_CALL_LCB;
        else if (type && strcmp(type, "stdin") != 0)
                return sbx_fail(err, 0, "%s:%ld: testtype \"%.40s\" is neither stdin nor functional",
                                at->path, at->line, type);
        if (p->n_tests > 0 && call != p->call)
                return sbx_fail(err, 0, "%s:%ld: stdin and functional test cases mixed",
                                at->path, at->line);
        p->call = call;
        int has_in = io_take_str(tc, "input", &in, &in_len, at, err);
        int has_out = has_in < 0 ? -1 : io_take_str(tc, "output", &out, &out_len, at, err);
        if (has_in < 0 || has_out < 0) {
                free(in);
                return -1;
        }
        if (!has_in || !has_out) {
                free(in);
                free(out);
                return sbx_fail(err, 0, "%s:%ld: a %s test case has no input or output",
                                at->path, at->line, group);
        }
        return io_add_test(p, in, in_len, out, out_len, group, at, err);
}

static int read_cases(cJSON *row, const char *key, const char *group,
                      const struct io_origin *at, struct io_problem *p, struct sbx_err *err)
{
        cJSON *v = cJSON_GetObjectItemCaseSensitive(row, key);
        cJSON *list = NULL, *tc;
        int rc = 0;

        if (!v || cJSON_IsNull(v))
                return 0;
        if (cJSON_IsString(v)) {
                if (!(list = unpack_list(v->valuestring, strlen(v->valuestring), key, at, err)))
                        return -1;
        } else if (cJSON_IsArray(v)) {
                list = cJSON_DetachItemViaPointer(row, v);      /* taken, not copied */
        } else {
                return sbx_fail(err, 0, "%s:%ld: %s is neither a string nor a list",
                                at->path, at->line, key);
        }
        if (!cJSON_IsArray(list))
                rc = sbx_fail(err, 0, "%s:%ld: %s is not a list", at->path, at->line, key);
        for (tc = rc == 0 ? list->child : NULL; tc; tc = tc->next) {
                if ((rc = add_case(tc, at, p, group, err)) < 0)
                        break;
        }
        cJSON_Delete(list);
        return rc;
}

/* metadata's func_name, which functional problems need. */
static int read_fn_name(const cJSON *row, const struct io_origin *at,
                        struct io_problem *p, struct sbx_err *err)
{
        const cJSON *meta = cJSON_GetObjectItemCaseSensitive(row, "metadata");
        cJSON *parsed = NULL;
        const char *fn;

        if (cJSON_IsString(meta))
                meta = parsed = cJSON_Parse(meta->valuestring);
        fn = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(meta, "func_name"));
        if (fn && fn[0] && !(p->fn_name = strdup(fn))) {
                cJSON_Delete(parsed);
                return sbx_fail_oom(err, "%s:%ld: metadata", at->path, at->line);
        }
        cJSON_Delete(parsed);
        if (p->call == IO_CALL_LCB && !p->fn_name)
                return sbx_fail(err, 0, "%s:%ld: functional test cases but no func_name in "
                                "metadata", at->path, at->line);
        return 0;
}

int io_read_lcb(cJSON *row, const struct io_origin *at, struct io_problem *p,
                struct sbx_err *err)
{
        size_t len;

        p->compare.kind = IO_CMP_LCB;
        p->prelude = IO_PRELUDE_LCB;
        if (io_set_task_id(p, row, "question_id", at, err) < 0 ||
            io_take_str(row, "starter_code", &p->starter_code, &len, at, err) < 0)
                return -1;
        if (read_cases(row, "public_test_cases", "public", at, p, err) < 0 ||
            read_cases(row, "private_test_cases", "private", at, p, err) < 0)
                return -1;
        return read_fn_name(row, at, p, err);
}
