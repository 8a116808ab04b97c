/* SandboxFusion's /run_code translated (frontend/serve/http/http_sf.c): the
 * fields and defaults verl sends, limits clamped to the server's, what
 * SandboxFusion refuses with a 422, the file names sbx refuses (outside
 * the workdir, control bytes, too deep, too many, twice), strict base64,
 * and the answer's status chosen as parse_run_status chooses it. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <cjson/cJSON.h>

#include "encoding.h"
#include "http.h"

static const struct http_limits lim = {
        .max_timeout_ms = 60000, .max_memory_bytes = 4LL << 30, .max_files = 4, .max_fetch = 3,
};
static struct http_sf_error e;

static enum http_sf_verdict parse(const char *body, struct http_code_request *rq)
{
        return http_sf_parse(body, strlen(body), &lim, rq, &e);
}

static void invalid(const char *body, const char *field, const char *type)
{
        struct http_code_request rq;

        if (parse(body, &rq) != HTTP_SF_INVALID)
                fail_msg("'%s' was not a 422", body);
        if (strcmp(e.field, field) || strcmp(e.type, type))
                fail_msg("'%s': loc %s type %s, want %s %s", body, e.field, e.type, field, type);
        assert_null(rq.code);
}

static void refused(const char *body, const char *reason)
{
        struct http_code_request rq;

        if (parse(body, &rq) != HTTP_SF_REFUSED)
                fail_msg("'%s' was not refused", body);
        if (!strstr(e.msg, reason))
                fail_msg("'%s': '%s' lacks '%s'", body, e.msg, reason);
        assert_null(rq.files);
}

/* What verl's call_sandbox_api sends, byte for byte (json.dumps). */
static void verl_request_is_translated(void **state)
{
        struct http_code_request rq;
        const char *body = "{\"compile_timeout\": 10, \"run_timeout\": 10, \"code\": "
                           "\"print(input())\", \"stdin\": \"7\\n\", \"memory_limit_MB\": 1024, "
                           "\"language\": \"python\", \"files\": {}, \"fetch_files\": []}";

        assert_int_equal(parse(body, &rq), HTTP_SF_OK);
        assert_string_equal(rq.language, "python");
        assert_string_equal(rq.code, "print(input())");
        assert_int_equal(rq.code_len, 14);
        assert_string_equal(rq.stdin_data, "7\n");
        assert_int_equal(rq.stdin_len, 2);
        assert_int_equal(rq.run_timeout_ms, 10000);
        assert_int_equal(rq.compile_timeout_ms, 10000);
        assert_int_equal(rq.memory_bytes, 1024LL << 20);
        assert_int_equal(rq.n_files, 0);
        assert_int_equal(rq.n_fetch, 0);
        http_code_request_free(&rq);
}

static void defaults_are_sandboxfusions(void **state)
{
        struct http_code_request rq;

        assert_int_equal(parse("{\"code\":\"1\",\"language\":\"python\",\"stdin\":null}", &rq), HTTP_SF_OK);
        assert_int_equal(rq.run_timeout_ms, 10000);
        assert_int_equal(rq.compile_timeout_ms, 10000);
        assert_int_equal(rq.memory_bytes, 0);   /* -1 by default: the server's */
        assert_null(rq.stdin_data);
        http_code_request_free(&rq);
}

static void limits_are_clamped(void **state)
{
        struct http_code_request rq;

        assert_int_equal(parse("{\"code\":\"1\",\"language\":\"python\",\"run_timeout\":1e9,"
                               "\"compile_timeout\":0.0001,\"memory_limit_MB\":1e12}", &rq), HTTP_SF_OK);
        assert_int_equal(rq.run_timeout_ms, 60000);
        assert_int_equal(rq.compile_timeout_ms, 1);
        assert_int_equal(rq.memory_bytes, 4LL << 30);
        http_code_request_free(&rq);
        assert_int_equal(parse("{\"code\":\"1\",\"language\":\"python\",\"memory_limit_MB\":-1}", &rq),
                         HTTP_SF_OK);
        assert_int_equal(rq.memory_bytes, 0);
        http_code_request_free(&rq);
        assert_int_equal(parse("{\"code\":\"1\",\"language\":\"python\",\"run_timeout\":2.5}", &rq),
                         HTTP_SF_OK);
        assert_int_equal(rq.run_timeout_ms, 2500);
        http_code_request_free(&rq);
}

static void what_sandboxfusion_refuses_is_a_422(void **state)
{
        invalid("{\"language\":\"python\"}", "code", "missing");
        invalid("{\"code\":\"1\"}", "language", "missing");
        invalid("{\"code\":1,\"language\":\"python\"}", "code", "string_type");
        invalid("{\"code\":\"1\",\"language\":\"js\"}", "language", "literal_error");
        invalid("{\"code\":\"1\",\"language\":\"Python\"}", "language", "literal_error");
        invalid("{\"code\":\"1\",\"language\":\"python\",\"run_timeout\":\"10\"}", "run_timeout", "float_type");
        invalid("{\"code\":\"1\",\"language\":\"python\",\"run_timeout\":0}", "run_timeout", "greater_than");
        invalid("{\"code\":\"1\",\"language\":\"python\",\"run_timeout\":-3}", "run_timeout", "greater_than");
        invalid("{\"code\":\"1\",\"language\":\"python\",\"memory_limit_MB\":1.5}", "memory_limit_MB", "int_type");
        invalid("{\"code\":\"1\",\"language\":\"python\",\"stdin\":[]}", "stdin", "string_type");
        invalid("{\"code\":\"1\",\"language\":\"python\",\"files\":[]}", "files", "dict_type");
        invalid("{\"code\":\"1\",\"language\":\"python\",\"files\":{\"a\":3}}", "files", "string_type");
        invalid("{\"code\":\"1\",\"language\":\"python\",\"fetch_files\":\"a\"}", "fetch_files", "list_type");
        invalid("{\"code\":\"1\",\"language\":\"python\",\"fetch_files\":[3]}", "fetch_files", "string_type");
        invalid("[1]", "", "model_attributes_type");
        invalid("{\"code\":", "", "json_invalid");
        invalid("{\"code\":\"1\",\"language\":\"python\"} x", "", "json_invalid");
        invalid("", "", "json_invalid");
        /* the answer is FastAPI's shape, with the field in loc */
        char *text = http_sf_invalid(&e);
        cJSON *o = cJSON_Parse(text);
        cJSON *d = cJSON_GetArrayItem(cJSON_GetObjectItem(o, "detail"), 0);
        assert_string_equal(cJSON_GetArrayItem(cJSON_GetObjectItem(d, "loc"), 0)->valuestring, "body");
        assert_string_equal(cJSON_GetObjectItem(d, "type")->valuestring, "json_invalid");
        cJSON_Delete(o);
        free(text);
}

static void file_names_outside_the_workdir_are_refused(void **state)
{
        refused("{\"code\":\"1\",\"language\":\"python\",\"files\":{\"/etc/passwd\":\"\"}}", "absolute");
        refused("{\"code\":\"1\",\"language\":\"python\",\"files\":{\"../x\":\"\"}}", "'..'");
        refused("{\"code\":\"1\",\"language\":\"python\",\"files\":{\"a/../../x\":\"\"}}", "'..'");
        refused("{\"code\":\"1\",\"language\":\"python\",\"files\":{\"a/./b\":\"\"}}", "'.'");
        refused("{\"code\":\"1\",\"language\":\"python\",\"files\":{\"a//b\":\"\"}}", "empty");
        refused("{\"code\":\"1\",\"language\":\"python\",\"files\":{\"a/\":\"\"}}", "empty");
        refused("{\"code\":\"1\",\"language\":\"python\",\"files\":{\"\":\"\"}}", "empty");
        refused("{\"code\":\"1\",\"language\":\"python\",\"files\":{\"a\\nb\":\"\"}}", "control");
        refused("{\"code\":\"1\",\"language\":\"python\",\"files\":{\"a\\\\b\":\"\"}}", "backslash");
        refused("{\"code\":\"1\",\"language\":\"python\",\"files\":{\"1/2/3/4/5/6/7/8/9\":\"\"}}", "deeper");
        refused("{\"code\":\"1\",\"language\":\"python\",\"fetch_files\":[\"/etc/shadow\"]}", "absolute");
        refused("{\"code\":\"1\",\"language\":\"python\",\"fetch_files\":[\"../../x\"]}", "'..'");
        refused("{\"code\":\"1\",\"language\":\"python\",\"files\":{\"a\":\"\",\"a\":\"\"}}", "twice");
        refused("{\"code\":\"1\",\"language\":\"python\",\"files\":{\"a\":\"\",\"b\":\"\",\"c\":\"\","
                "\"d\":\"\",\"e\":\"\"}}", "at most 4");
        refused("{\"code\":\"1\",\"language\":\"python\",\"fetch_files\":[\"a\",\"b\",\"c\",\"d\"]}", "at most 3");
        refused("{\"code\":\"1\",\"language\":\"python\",\"files\":{\"a\":\"abc\"}}", "base64");
        char why[160];
        assert_int_equal(http_file_name_check("\xff\xfe", why, sizeof(why)), -1);
        assert_int_equal(http_file_name_check("dir1/dir2/dir3/secret_flag", why, sizeof(why)), 0);
        assert_int_equal(http_file_name_check(".hidden/..x/x..", why, sizeof(why)), 0);
        assert_int_equal(http_file_name_check("1/2/3/4/5/6/7/8", why, sizeof(why)), 0);
}

static void files_are_decoded_and_some_skipped(void **state)
{
        struct http_code_request rq;

        assert_int_equal(parse("{\"code\":\"1\",\"language\":\"python\",\"files\":{"
                               "\"dir1/flag\":\"ImhlbGxvIg==\",\"skip\":null,"
                               "\"x_IGNORE_THIS_FILE\":\"!!!\",\"e\":\"\"},"
                               "\"fetch_files\":[\"out/a.txt\"]}", &rq), HTTP_SF_OK);
        assert_int_equal(rq.n_files, 2);
        assert_string_equal(rq.files[0].name, "dir1/flag");
        assert_int_equal(rq.files[0].len, 7);
        assert_memory_equal(rq.files[0].data, "\"hello\"", 7);
        assert_string_equal(rq.files[1].name, "e");
        assert_int_equal(rq.files[1].len, 0);
        assert_int_equal(rq.n_fetch, 1);
        assert_string_equal(rq.fetch[0], "out/a.txt");
        http_code_request_free(&rq);
}

static void base64_is_strict_and_round_trips(void **state)
{
        static const char *const bad[] = { "a", "ab=c", "abc", "ab\ncd==", "a===", "====",
                                           "ab=", "Zh==", "Zm9=", "Zm9v\n", "Zm 9v", NULL };
        unsigned char *out;
        size_t n;

        for (const char *const *b = bad; *b; b++)
                if (http_base64_decode(*b, strlen(*b), &out, &n) == 0)
                        fail_msg("'%s' decoded", *b);
        for (size_t len = 0; len < 300; len++) {
                unsigned char in[300];
                for (size_t i = 0; i < len; i++)
                        in[i] = (unsigned char)(i * 37 + len);
                char *enc = base64_encode(in, len);
                assert_int_equal(http_base64_decode(enc, strlen(enc), &out, &n), 0);
                assert_int_equal(n, len);
                assert_memory_equal(out, in, len);
                free(out);
                free(enc);
        }
        char *enc = base64_encode((const unsigned char *)"foobar", 6);
        assert_string_equal(enc, "Zm9vYmFy");
        free(enc);
}

static struct http_step_result step(enum http_step_status s, bool has_rc, int rc)
{
        return (struct http_step_result){ .present = true, .status = s, .execution_time_s = 0.25,
                                          .has_return_code = has_rc, .return_code = rc,
                                          .out = "o", .err = "e" };
}

static const char *status_of(const struct http_code_result *r, cJSON **o)
{
        char *text = http_sf_render(r);

        *o = cJSON_Parse(text);
        free(text);
        assert_non_null(*o);
        return cJSON_GetObjectItem(*o, "status")->valuestring;
}

static void status_follows_parse_run_status(void **state)
{
        struct http_code_result r = { .run = step(HTTP_STEP_FINISHED, true, 0) };
        cJSON *o;

        assert_string_equal(status_of(&r, &o), "Success");
        cJSON *run = cJSON_GetObjectItem(o, "run_result");
        assert_string_equal(cJSON_GetObjectItem(run, "status")->valuestring, "Finished");
        assert_int_equal(cJSON_GetObjectItem(run, "return_code")->valueint, 0);
        assert_true(cJSON_IsNull(cJSON_GetObjectItem(o, "compile_result")));
        assert_true(cJSON_IsNull(cJSON_GetObjectItem(o, "executor_pod_name")));
        assert_true(cJSON_IsObject(cJSON_GetObjectItem(o, "files")));
        assert_string_equal(cJSON_GetObjectItem(o, "message")->valuestring, "");
        cJSON_Delete(o);
        r.run = step(HTTP_STEP_FINISHED, true, -9);
        assert_string_equal(status_of(&r, &o), "Failed");
        cJSON_Delete(o);
        r.run = step(HTTP_STEP_TIME_LIMIT, false, 0);
        assert_string_equal(status_of(&r, &o), "Failed");
        run = cJSON_GetObjectItem(o, "run_result");
        assert_true(cJSON_IsNull(cJSON_GetObjectItem(run, "return_code")));
        cJSON_Delete(o);
        r.run = step(HTTP_STEP_ERROR, false, 0);
        r.run.err = "the sandbox did not start";
        assert_string_equal(status_of(&r, &o), "SandboxError");
        assert_string_equal(cJSON_GetObjectItem(o, "message")->valuestring, "the sandbox did not start");
        cJSON_Delete(o);
        /* a compile step that failed: Failed, with no run step */
        struct http_code_result c = { .compile = step(HTTP_STEP_FINISHED, true, 1) };
        assert_string_equal(status_of(&c, &o), "Failed");
        assert_true(cJSON_IsNull(cJSON_GetObjectItem(o, "run_result")));
        cJSON_Delete(o);
        char *text = http_sf_sandbox_error("no such language here");
        o = cJSON_Parse(text);
        assert_string_equal(cJSON_GetObjectItem(o, "status")->valuestring, "SandboxError");
        assert_string_equal(cJSON_GetObjectItem(o, "message")->valuestring, "no such language here");
        cJSON_Delete(o);
        free(text);
}

static void fetched_files_come_back_base64(void **state)
{
        struct http_file f = { .name = "out/a.txt", .data = (unsigned char *)"secret", .len = 6 };
        struct http_code_result r = { .run = step(HTTP_STEP_FINISHED, true, 0), .files = &f, .n_files = 1 };
        cJSON *o;

        status_of(&r, &o);
        assert_string_equal(cJSON_GetObjectItem(cJSON_GetObjectItem(o, "files"), "out/a.txt")->valuestring,
                            "c2VjcmV0");
        cJSON_Delete(o);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(verl_request_is_translated),
                cmocka_unit_test(defaults_are_sandboxfusions),
                cmocka_unit_test(limits_are_clamped),
                cmocka_unit_test(what_sandboxfusion_refuses_is_a_422),
                cmocka_unit_test(file_names_outside_the_workdir_are_refused),
                cmocka_unit_test(files_are_decoded_and_some_skipped),
                cmocka_unit_test(base64_is_strict_and_round_trips),
                cmocka_unit_test(status_follows_parse_run_status),
                cmocka_unit_test(fetched_files_come_back_base64),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
