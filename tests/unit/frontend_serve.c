/* --serve's request parser: every request type, every field checked, and
 * what a hostile or confused client sends (malformed JSON, wrong types,
 * missing fields, unknown types, NUL, deep nesting) refused with a reason
 * and, where it could be read, the request's id. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "serve.h"

static char why[512];

static int parse(const char *line, struct serve_request *rq, cJSON **id)
{
        why[0] = '\0';
        return serve_parse_request(line, strlen(line), rq, id, why, sizeof(why));
}

static void refused(const char *line, const char *reason, bool has_id)
{
        struct serve_request rq;
        cJSON *id = NULL;

        assert_int_equal(parse(line, &rq, &id), -1);
        if (!strstr(why, reason))
                fail_msg("'%s': reason '%s' lacks '%s'", line, why, reason);
        assert_true(has_id ? id != NULL : id == NULL);
        cJSON_Delete(id);
}

static void run_request_is_parsed(void **state)
{
        struct serve_request rq;
        cJSON *id;

        assert_int_equal(parse("{\"id\":7,\"type\":\"run\",\"code\":\"print(1)\\n\","
                               "\"timeout\":2.5,\"env\":{\"A\":\"b c\"},\"memory\":1048576}", &rq, &id), 0);
        assert_int_equal(rq.type, SERVE_RUN);
        assert_int_equal((int)rq.id->valuedouble, 7);
        assert_string_equal(rq.code, "print(1)\n");
        assert_int_equal(rq.code_len, 9);
        assert_int_equal(rq.timeout_ms, 2500);
        assert_int_equal(rq.memory_bytes, 1048576);
        assert_string_equal(rq.env[0], "A=b c");
        assert_null(rq.env[1]);
        serve_request_free(&rq);
}

/* "stdin" reaches the run spec of run and run_argv requests; null and
 * absent are /dev/null; anything else is refused, naming the field. */
static void stdin_is_parsed(void **state)
{
        struct serve_request rq;
        cJSON *id;

        assert_int_equal(parse("{\"id\":1,\"type\":\"run\",\"code\":\"input()\","
                               "\"stdin\":\"3\\n1 2 3\\n\"}", &rq, &id), 0);
        assert_string_equal(rq.stdin_text, "3\n1 2 3\n");
        assert_int_equal(rq.stdin_len, 8);
        serve_request_free(&rq);
        assert_int_equal(parse("{\"id\":1,\"type\":\"run_argv\",\"argv\":[\"cat\"],"
                               "\"workdir\":\"/tmp\",\"stdin\":\"\"}", &rq, &id), 0);
        assert_non_null(rq.stdin_text);
        assert_int_equal(rq.stdin_len, 0);
        serve_request_free(&rq);
        assert_int_equal(parse("{\"id\":1,\"type\":\"run\",\"code\":\"1\",\"stdin\":null}",
                               &rq, &id), 0);
        assert_null(rq.stdin_text);
        serve_request_free(&rq);
        refused("{\"id\":1,\"type\":\"run\",\"code\":\"1\",\"stdin\":[1]}",
                "\"stdin\" must be a string", true);
}

/* "language" is a row of lang/'s table by name or alias (Python: the
 * default, as before); an unknown one is refused with the known names. */
static void language_is_parsed(void **state)
{
        struct serve_request rq;
        cJSON *id;

        assert_int_equal(parse("{\"id\":1,\"type\":\"run\",\"code\":\"int main(){}\","
                               "\"language\":\"c++\",\"compile_timeout\":12}", &rq, &id), 0);
        assert_string_equal(rq.language->name, "cpp");
        assert_int_equal(rq.compile_timeout_ms, 12000);
        serve_request_free(&rq);
        assert_int_equal(parse("{\"id\":1,\"type\":\"run\",\"code\":\"1\","
                               "\"language\":\"Python\"}", &rq, &id), 0);
        assert_null(rq.language);
        serve_request_free(&rq);
        assert_int_equal(parse("{\"id\":1,\"type\":\"run\",\"code\":\"1\"}", &rq, &id), 0);
        assert_null(rq.language);
        assert_int_equal(rq.compile_timeout_ms, 0);
        serve_request_free(&rq);
        refused("{\"id\":1,\"type\":\"run\",\"code\":\"1\",\"language\":\"cobol\"}",
                "unknown \"language\" 'cobol' (python, c, cpp", true);
        refused("{\"id\":1,\"type\":\"run\",\"code\":\"1\",\"language\":7}",
                "\"language\" must be a string", true);
        refused("{\"id\":1,\"type\":\"run\",\"code\":\"1\",\"language\":\"go\","
                "\"compile_timeout\":0}", "\"compile_timeout\" must be", true);
}

static void run_argv_request_is_parsed(void **state)
{
        struct serve_request rq;
        cJSON *id;

        assert_int_equal(parse("{\"id\":\"x\",\"type\":\"run_argv\",\"argv\":[\"python\","
                               "\"-c\",\"1\"],\"workdir\":\"/tmp\"}", &rq, &id), 0);
        assert_int_equal(rq.type, SERVE_RUN_ARGV);
        assert_string_equal(rq.id->valuestring, "x");
        assert_string_equal(rq.argv[0], "python");
        assert_string_equal(rq.argv[2], "1");
        assert_null(rq.argv[3]);
        assert_string_equal(rq.workdir, "/tmp");
        assert_int_equal(rq.timeout_ms, 0);
        assert_int_equal(rq.memory_bytes, 0);
        serve_request_free(&rq);
}

static void suite_request_is_parsed(void **state)
{
        struct serve_request rq;
        cJSON *id;

        assert_int_equal(parse("{\"id\":1,\"type\":\"suite\",\"suite\":\"humaneval\","
                               "\"canonical\":true,\"jobs\":3,\"k\":\"1,10\"}", &rq, &id), 0);
        assert_int_equal(rq.type, SERVE_SUITE);
        assert_true(rq.canonical);
        assert_int_equal(rq.jobs, 3);
        assert_string_equal(rq.k, "1,10");
        assert_null(rq.samples);
        assert_false(rq.all_tests);
        assert_null(rq.compare);
        serve_request_free(&rq);
}

/* An io suite's judging reaches the child sbx-run as its options. */
static void io_suite_request_is_parsed(void **state)
{
        struct serve_request rq;
        cJSON *id;

        assert_int_equal(parse("{\"id\":1,\"type\":\"suite\",\"suite\":\"codecontests\","
                               "\"samples\":\"/s.jsonl\",\"all_tests\":true,\"test_timeout\":2.5,"
                               "\"time_scale\":3,\"compare\":\"floats:1e-4\",\"checker\":\"/c.py\","
                               "\"io_format\":\"apps\",\"language\":\"cpp\"}", &rq, &id), 0);
        assert_true(rq.all_tests);
        assert_string_equal(rq.io_language, "cpp");
        assert_true(rq.test_timeout_s == 2.5 && rq.time_scale == 3);
        assert_string_equal(rq.compare, "floats:1e-4");
        assert_string_equal(rq.checker, "/c.py");
        assert_string_equal(rq.io_format, "apps");
        serve_request_free(&rq);
        refused("{\"id\":1,\"type\":\"suite\",\"suite\":\"io\",\"canonical\":true,"
                "\"all_tests\":1}", "\"all_tests\" must be true or false", true);
        refused("{\"id\":1,\"type\":\"suite\",\"suite\":\"io\",\"canonical\":true,"
                "\"test_timeout\":0}", "\"test_timeout\" must be a number", true);
        refused("{\"id\":1,\"type\":\"suite\",\"suite\":\"io\",\"canonical\":true,"
                "\"compare\":5}", "\"compare\" must be a string", true);
        refused("{\"id\":1,\"type\":\"suite\",\"suite\":\"io\",\"canonical\":true,"
                "\"language\":2}", "\"language\" must be a string", true);
}

static void malformed_json_is_refused(void **state)
{
        refused("garbage", "malformed JSON", false);
        refused("{\"id\":1,\"type\":\"run\",\"code\":\"x\"", "malformed JSON", false);
        refused("{\"id\":1} trailing", "malformed JSON", false);
        refused("[1,2]", "must be a JSON object", false);
        refused("\"just a string\"", "must be a JSON object", false);
        refused("", "malformed JSON", false);
}

static void deep_nesting_is_refused_not_a_crash(void **state)
{
        size_t n = 100000;
        char *line = malloc(2 * n + 1);

        assert_non_null(line);
        memset(line, '[', n);
        memset(line + n, ']', n);
        line[2 * n] = '\0';
        refused(line, "malformed JSON", false);
        free(line);
}

static void missing_or_mistyped_fields_are_refused(void **state)
{
        refused("{\"type\":\"run\",\"code\":\"x\"}", "missing \"id\"", false);
        refused("{\"id\":[1],\"type\":\"run\",\"code\":\"x\"}", "\"id\" must be", false);
        refused("{\"id\":1,\"code\":\"x\"}", "missing \"type\"", true);
        refused("{\"id\":1,\"type\":\"run\"}", "missing \"code\"", true);
        refused("{\"id\":1,\"type\":\"run\",\"code\":5}", "\"code\" must be a string", true);
        refused("{\"id\":1,\"type\":\"rm -rf\",\"code\":\"x\"}", "unknown \"type\"", true);
        refused("{\"id\":1,\"type\":\"run\",\"code\":\"x\",\"timeout\":-1}", "\"timeout\"", true);
        refused("{\"id\":1,\"type\":\"run\",\"code\":\"x\",\"timeout\":1e300}", "\"timeout\"", true);
        refused("{\"id\":1,\"type\":\"run\",\"code\":\"x\",\"timeout\":\"5\"}", "\"timeout\"", true);
        refused("{\"id\":1,\"type\":\"run\",\"code\":\"x\",\"env\":[\"A=1\"]}", "\"env\"", true);
        refused("{\"id\":1,\"type\":\"run\",\"code\":\"x\",\"memory\":0}", "\"memory\"", true);
        refused("{\"id\":1,\"type\":\"run\",\"code\":\"x\",\"memory\":1.5}", "\"memory\"", true);
        refused("{\"id\":1,\"type\":\"run\",\"code\":\"x\",\"memory\":\"1G\"}", "\"memory\"", true);
        refused("{\"id\":1,\"type\":\"run\",\"code\":\"x\",\"memory\":1e300}", "\"memory\"", true);
        refused("{\"id\":1,\"type\":\"run\",\"code\":\"x\",\"env\":{\"A=B\":\"1\"}}",
                "not a variable name", true);
        refused("{\"id\":1,\"type\":\"run\",\"code\":\"x\",\"env\":{\"A\":1}}",
                "must be a string", true);
        refused("{\"id\":1,\"type\":\"run_argv\",\"workdir\":\"/tmp\"}", "missing \"argv\"", true);
        refused("{\"id\":1,\"type\":\"run_argv\",\"argv\":[],\"workdir\":\"/tmp\"}",
                "\"argv\" must be an array", true);
        refused("{\"id\":1,\"type\":\"run_argv\",\"argv\":[\"a\",2],\"workdir\":\"/tmp\"}",
                "\"argv\"[1]", true);
        refused("{\"id\":1,\"type\":\"run_argv\",\"argv\":[\"\"],\"workdir\":\"/tmp\"}",
                "is empty", true);
        refused("{\"id\":1,\"type\":\"run_argv\",\"argv\":[\"a\"]}", "missing \"workdir\"", true);
        refused("{\"id\":1,\"type\":\"run_argv\",\"argv\":[\"a\"],\"workdir\":\"rel\"}",
                "absolute", true);
        refused("{\"id\":1,\"type\":\"suite\",\"canonical\":true}", "missing \"suite\"", true);
        refused("{\"id\":1,\"type\":\"suite\",\"suite\":\"humaneval\"}", "exactly one", true);
        refused("{\"id\":1,\"type\":\"suite\",\"suite\":\"h\",\"samples\":\"s\",\"canonical\":true}",
                "exactly one", true);
        refused("{\"id\":1,\"type\":\"suite\",\"suite\":\"h\",\"canonical\":true,\"jobs\":0}",
                "\"jobs\"", true);
        refused("{\"id\":1,\"type\":\"suite\",\"suite\":\"h\",\"canonical\":true,\"jobs\":1.5}",
                "\"jobs\"", true);
}

static void error_line_carries_id_and_reason(void **state)
{
        cJSON *id = cJSON_CreateString("r\"1");
        char *line = serve_error_line(id, "bad \"thing\"\n");
        cJSON *o = cJSON_Parse(line);

        assert_non_null(o);
        assert_string_equal(cJSON_GetObjectItem(o, "id")->valuestring, "r\"1");
        assert_string_equal(cJSON_GetObjectItem(o, "type")->valuestring, "error");
        assert_string_equal(cJSON_GetObjectItem(o, "error")->valuestring, "bad \"thing\"\n");
        assert_null(strchr(line, '\n'));        /* one line */
        cJSON_Delete(o);
        free(line);
        cJSON_Delete(id);
        line = serve_error_line(NULL, "x");
        assert_non_null(strstr(line, "\"id\":null"));
        free(line);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(run_request_is_parsed),
                cmocka_unit_test(stdin_is_parsed),
                cmocka_unit_test(language_is_parsed),
                cmocka_unit_test(run_argv_request_is_parsed),
                cmocka_unit_test(suite_request_is_parsed),
                cmocka_unit_test(io_suite_request_is_parsed),
                cmocka_unit_test(malformed_json_is_refused),
                cmocka_unit_test(deep_nesting_is_refused_not_a_crash),
                cmocka_unit_test(missing_or_mistyped_fields_are_refused),
                cmocka_unit_test(error_line_carries_id_and_reason),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
