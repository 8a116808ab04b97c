/* Where the server listens and who may talk to it
 * (frontend/serve/http/http_access.c): addresses default to loopback, a name
 * that is not a numeric address is refused (no DNS), the token is taken
 * only from a private file, and a request carries it as a Bearer token or
 * HTTP Basic's password (what requests sends for http://u:TOKEN@host/);
 * and the metrics page (http_metrics.c). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "encoding.h"
#include "http.h"
#include "unit_tmpdir.h"

static void addresses_default_to_loopback(void **state)
{
        struct http_addr a;
        struct sbx_err err = { 0 };

        assert_int_equal(http_addr_parse("8080", &a, &err), 0);
        assert_string_equal(a.host, "127.0.0.1");
        assert_int_equal(a.port, 8080);
        assert_true(a.loopback);
        assert_int_equal(http_addr_parse(":0", &a, &err), 0);
        assert_true(a.loopback && a.port == 0);
        assert_int_equal(http_addr_parse("localhost:1", &a, &err), 0);
        assert_string_equal(a.host, "127.0.0.1");
        assert_int_equal(http_addr_parse("127.8.9.10:80", &a, &err), 0);
        assert_true(a.loopback);
        assert_int_equal(http_addr_parse("[::1]:80", &a, &err), 0);
        assert_true(a.loopback);
        assert_int_equal(http_addr_parse("0.0.0.0:80", &a, &err), 0);
        assert_false(a.loopback);
        assert_int_equal(http_addr_parse("[::]:80", &a, &err), 0);
        assert_false(a.loopback);
        assert_int_equal(http_addr_parse("10.1.2.3:80", &a, &err), 0);
        assert_false(a.loopback);
        assert_int_equal(http_addr_parse("/run/u/sbx.sock", &a, &err), 0);
        assert_true(a.is_unix && a.loopback);
        assert_string_equal(a.path, "/run/u/sbx.sock");
        assert_int_equal(http_addr_parse("unix:sock", &a, &err), 0);
        assert_string_equal(a.path, "sock");
        char url[160];
        http_addr_parse("[::1]:9", &a, &err);
        http_addr_url(&a, url, sizeof(url));
        assert_string_equal(url, "http://[::1]:9");
}

static void bad_addresses_are_refused(void **state)
{
        static const char *const bad[] = { "example.com:80", "::1:80", "1.2.3.4:65536", "1.2.3.4:",
                                           "1.2.3.4:x", "[::1]80", "[::1", "", "unix:", "-1", NULL };
        struct http_addr a;

        for (const char *const *b = bad; *b; b++) {
                struct sbx_err err = { 0 };
                if (http_addr_parse(*b, &a, &err) == 0)
                        fail_msg("'%s' was taken", *b);
                assert_non_null(strstr(err.msg, "--http"));
        }
}

static char *token_file(const char *name, const char *text, mode_t mode)
{
        char *path = unit_write_tmp(name, text);

        assert_int_equal(chmod(path, mode), 0);
        return path;
}

static void the_token_comes_from_a_private_file(void **state)
{
        struct sbx_err err = { 0 };
        char *path = token_file("tok", "0123456789abcdef-xyz\nignored\n", 0600);
        char *tok = http_token_load(path, &err);

        assert_string_equal(tok, "0123456789abcdef-xyz");
        free(tok);
        free(path);
        path = token_file("open", "0123456789abcdef-xyz\n", 0644);
        assert_null(http_token_load(path, &err));
        assert_non_null(strstr(err.msg, "chmod 600"));
        free(path);
        path = token_file("short", "abc\n", 0600);
        assert_null(http_token_load(path, &err));
        assert_non_null(strstr(err.msg, "16 to"));
        free(path);
        path = token_file("space", "0123456789 abcdef\n", 0600);
        assert_null(http_token_load(path, &err));
        free(path);
        char link[256];
        snprintf(link, sizeof(link), "%s/link", unit_tmpdir);
        assert_int_equal(symlink("tok", link), 0);
        assert_null(http_token_load(link, &err));
        assert_null(http_token_load("/nonexistent/x", &err));
}

static void requests_carry_the_token(void **state)
{
        const char *tok = "0123456789abcdef-xyz";
        char header[256];

        assert_true(http_auth_ok(NULL, NULL));
        assert_true(http_auth_ok("anything", NULL));
        assert_false(http_auth_ok(NULL, tok));
        assert_true(http_auth_ok("Bearer 0123456789abcdef-xyz", tok));
        assert_true(http_auth_ok("bearer  0123456789abcdef-xyz", tok));
        assert_false(http_auth_ok("Bearer 0123456789abcdef-xy", tok));
        assert_false(http_auth_ok("Bearer 0123456789abcdef-xyzz", tok));
        assert_false(http_auth_ok("Bearer 0123456789abcdef-xyz extra", tok));
        assert_false(http_auth_ok("Bearer ", tok));
        assert_false(http_auth_ok("0123456789abcdef-xyz", tok));
        /* requests' Basic auth from http://sbx:TOKEN@host/ */
        char *b64 = base64_encode((const unsigned char *)"sbx:0123456789abcdef-xyz", 24);
        snprintf(header, sizeof(header), "Basic %s", b64);
        assert_true(http_auth_ok(header, tok));
        free(b64);
        b64 = base64_encode((const unsigned char *)"0123456789abcdef-xyz:", 21);
        snprintf(header, sizeof(header), "Basic %s", b64);
        assert_false(http_auth_ok(header, tok));        /* the token as user name */
        free(b64);
        assert_false(http_auth_ok("Basic !!!", tok));
        assert_false(http_auth_ok("Digest x", tok));
}

static void metrics_percentiles_and_page(void **state)
{
        struct http_metrics m;

        http_metrics_init(&m, 1000);
        assert_true(http_metrics_quantile(&m, 0.5) == 0);
        for (int i = 1; i <= 100; i++)
                http_metrics_latency(&m, i / 100.0);
        assert_true(http_metrics_quantile(&m, 0.5) == 0.5);
        assert_true(http_metrics_quantile(&m, 0.99) == 0.99);
        assert_true(http_metrics_quantile(&m, 1.0) == 1.0);
        /* the window keeps the last answers only */
        for (int i = 0; i < HTTP_LATENCY_WINDOW; i++)
                http_metrics_latency(&m, 7.0);
        assert_true(http_metrics_quantile(&m, 0.01) == 7.0);
        http_metrics_answer(&m, HTTP_EP_RUN_CODE, 200);
        http_metrics_answer(&m, HTTP_EP_RUN_CODE, 429);
        http_metrics_answer(&m, HTTP_EP_RUN_CODE, 503);
        http_metrics_run(&m, HTTP_OUT_SUCCESS, 0.1);
        http_metrics_run(&m, HTTP_OUT_TIMEOUT, 0.3);
        assert_true(http_metrics_mean_run_s(&m) > 0.199 && http_metrics_mean_run_s(&m) < 0.201);
        char *text = http_metrics_text(&m, 5, 2, 9, 2, 3000);
        assert_non_null(strstr(text, "sbx_http_requests_total{endpoint=\"run_code\"} 3\n"));
        assert_non_null(strstr(text, "sbx_http_refused_total{code=\"429\"} 1\n"));
        assert_non_null(strstr(text, "sbx_http_refused_total{code=\"503\"} 1\n"));
        assert_non_null(strstr(text, "sbx_runs_total{outcome=\"timeout\"} 1\n"));
        assert_non_null(strstr(text, "sbx_queue_length 5\n"));
        assert_non_null(strstr(text, "sbx_runs_in_flight 2\n"));
        assert_non_null(strstr(text, "sbx_request_latency_seconds{quantile=\"0.99\"} 7.000000\n"));
        assert_non_null(strstr(text, "sbx_uptime_seconds 2.000\n"));
        free(text);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(addresses_default_to_loopback),
                cmocka_unit_test(bad_addresses_are_refused),
                cmocka_unit_test(the_token_comes_from_a_private_file),
                cmocka_unit_test(requests_carry_the_token),
                cmocka_unit_test(metrics_percentiles_and_page),
        };
        return cmocka_run_group_tests(tests, unit_tmpdir_setup, unit_tmpdir_teardown);
}
