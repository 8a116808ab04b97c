/* The interpreter cache's entry text (strict reading: every doubt is a
 * miss) and its key (only ELF binaries; a change of the binary or of a
 * pyvenv.cfg beside the path changes the key). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "interp.h"

static const char key[] = "v1 path 16:/opt/py/bin/python real 16:/opt/py/bin/python bin 1:2:3:4.5:6.7";

static struct interp_info sample(void)
{
        struct interp_info info = {
                .exe = "/opt/py/bin/python", .prefix = "/opt/py",
                .base_prefix = "/opt/py", .version = "3.12.1 (main) [GCC]",
        };
        return info;
}

static int parse(const char *text, struct interp_info *info)
{
        return interp_cache_parse(text, strlen(text), key, info);
}

static void format_then_parse_round_trips(void **state)
{
        struct interp_info in = sample(), out;
        char *text = interp_cache_format(key, &in);

        assert_non_null(text);
        assert_int_equal(strncmp(text, INTERP_CACHE_MAGIC "\n", strlen(INTERP_CACHE_MAGIC) + 1), 0);
        assert_int_equal(parse(text, &out), 0);
        assert_string_equal(out.exe, in.exe);
        assert_string_equal(out.prefix, in.prefix);
        assert_string_equal(out.base_prefix, in.base_prefix);
        assert_string_equal(out.version, in.version);
        interp_info_free(&out);
        free(text);
}

/* Each line of a good entry, one at a time replaced. */
static void assert_rejected(const char *magic, const char *k, const char *exe,
                            const char *prefix, const char *base, const char *version,
                            const char *tail)
{
        struct interp_info out;
        char *text;

        assert_true(asprintf(&text, "%s\n%s\n%s\n%s\n%s\n%s\n%s", magic, k, exe,
                             prefix, base, version, tail) > 0);
        assert_int_equal(parse(text, &out), -1);
        assert_null(out.exe);
        free(text);
}

static void parse_refuses_every_doubt(void **state)
{
        const char *m = INTERP_CACHE_MAGIC;

        assert_rejected("sbx-interp-cache 2", key, "/e", "/p", "/b", "3.12", "");
        assert_rejected(m, "v1 other key", "/e", "/p", "/b", "3.12", "");
        assert_rejected(m, key, "python3", "/p", "/b", "3.12", "");
        assert_rejected(m, key, "", "/p", "/b", "3.12", "");
        assert_rejected(m, key, "/e", "usr", "/b", "3.12", "");
        assert_rejected(m, key, "/e", "/p", "b", "3.12", "");
        assert_rejected(m, key, "/e", "/p", "/b", "", "");
        assert_rejected(m, key, "/e", "/p", "/b", "3.12", "a seventh line\n");
        assert_rejected(m, key, "/e", "/p", "/b", "3.12", "trailing");
}

static void parse_refuses_truncation_and_nul(void **state)
{
        struct interp_info in = sample(), out;
        char *text = interp_cache_format(key, &in);
        size_t len = strlen(text);

        /* every proper prefix is a miss */
        for (size_t n = 0; n < len; n++) {
                char *cut = strndup(text, n);
                assert_int_equal(interp_cache_parse(cut, n, key, &out), -1);
                free(cut);
        }
        /* a NUL inside: the length read is not the string's */
        text[len - 2] = '\0';
        assert_int_equal(interp_cache_parse(text, len, key, &out), -1);
        free(text);
}

static void format_refuses_fields_that_break_lines(void **state)
{
        struct interp_info in = sample();

        in.version = "3.12\ninjected";
        assert_null(interp_cache_format(key, &in));
        in = sample();
        in.exe = "relative/python";
        assert_null(interp_cache_format(key, &in));
        in = sample();
        assert_null(interp_cache_format("two\nlines", &in));
}

static void key_only_for_elf_binaries(void **state)
{
        char dir[] = "/tmp/sbx-unit-interp.XXXXXX";
        char script[64], cfg[64];

        assert_non_null(mkdtemp(dir));
        snprintf(script, sizeof(script), "%s/python", dir);
        FILE *fp = fopen(script, "w");
        assert_non_null(fp);
        fputs("#!/bin/sh\nexec /usr/bin/python3 \"$@\"\n", fp);
        fclose(fp);
        assert_int_equal(chmod(script, 0755), 0);
        assert_null(interp_cache_key(script));
        assert_null(interp_cache_key("/nonexistent/python3"));

        char *k1 = interp_cache_key("/usr/bin/python3");
        assert_non_null(k1);
        assert_non_null(strstr(k1, "path 16:/usr/bin/python3 "));
        assert_null(strchr(k1, '\n'));
        char *k2 = interp_cache_key("/usr/bin/python3");
        assert_string_equal(k1, k2);   /* stable while nothing changes */
        free(k2);
        free(k1);

        /* a pyvenv.cfg appearing beside the path as given changes the key */
        char link[64];
        snprintf(link, sizeof(link), "%s/py3", dir);
        assert_int_equal(symlink("/usr/bin/python3", link), 0);
        k1 = interp_cache_key(link);
        assert_non_null(k1);
        assert_non_null(strstr(k1, " cfg1 - "));
        snprintf(cfg, sizeof(cfg), "%s/pyvenv.cfg", dir);
        fp = fopen(cfg, "w");
        assert_non_null(fp);
        fclose(fp);
        k2 = interp_cache_key(link);
        assert_non_null(k2);
        assert_string_not_equal(k1, k2);
        assert_null(strstr(k2, " cfg1 - "));
        free(k1);
        free(k2);
        unlink(cfg);
        unlink(link);
        unlink(script);
        rmdir(dir);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(format_then_parse_round_trips),
                cmocka_unit_test(parse_refuses_every_doubt),
                cmocka_unit_test(parse_refuses_truncation_and_nul),
                cmocka_unit_test(format_refuses_fields_that_break_lines),
                cmocka_unit_test(key_only_for_elf_binaries),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
