/* The strict pickle reader (frontend/suites/io/formats/io_pickle.c) and the
 * base64/zlib unpacking in front of it: what LiveCodeBench's data holds
 * is read, and everything that unpickling would act on, or that runs past
 * the input, is refused with the opcode and offset named. The accepted
 * bytes are Python's own: pickle.dumps("ab", protocol=P). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <cmocka.h>

#include "io.h"

#define PK(...) ((const unsigned char[]){ __VA_ARGS__ })

static void expect_str(const unsigned char *pk, size_t len, const char *want)
{
        struct sbx_err err = { 0 };
        const char *s = NULL;
        size_t n = 0;

        if (io_pickle_str(pk, len, &s, &n, &err) < 0)
                fail_msg("refused: %s", err.msg);
        assert_int_equal(n, strlen(want));
        assert_memory_equal(s, want, n);
}

static void expect_refused(const unsigned char *pk, size_t len, const char *words)
{
        struct sbx_err err = { 0 };
        const char *s = NULL;
        size_t n = 0;

        assert_int_equal(io_pickle_str(pk, len, &s, &n, &err), -1);
        if (!strstr(err.msg, words))
                fail_msg("error \"%s\" lacks \"%s\"", err.msg, words);
        assert_null(s);
}

static void pythons_pickled_str_is_read(void **state)
{
        /* protocol 2: BINUNICODE + BINPUT */
        expect_str(PK(0x80, 2, 'X', 2, 0, 0, 0, 'a', 'b', 'q', 0, '.'), 12, "ab");
        /* protocol 4: FRAME, SHORT_BINUNICODE, MEMOIZE */
        expect_str(PK(0x80, 4, 0x95, 6, 0, 0, 0, 0, 0, 0, 0, 0x8c, 2, 'a', 'b', 0x94, '.'), 17, "ab");
        /* BINUNICODE8, LONG_BINPUT */
        expect_str(PK(0x80, 5, 0x8d, 1, 0, 0, 0, 0, 0, 0, 0, 'z', 'r', 0, 0, 0, 0, '.'), 18, "z");
        /* SandboxFusion's {"input_output": "x"} */
        expect_str(PK(0x80, 4, '}', 0x94, 0x8c, 12, 'i', 'n', 'p', 'u', 't', '_', 'o', 'u', 't',
                      'p', 'u', 't', 0x94, 0x8c, 1, 'x', 0x94, 's', '.'), 25, "x");
}

static void opcodes_that_build_objects_are_refused(void **state)
{
        /* GLOBAL 'os\nsystem\n' then REDUCE: os.system(...) when unpickled */
        expect_refused(PK(0x80, 2, 'c', 'o', 's', '\n', 's', 'y', 's', 't', 'e', 'm', '\n',
                          'X', 1, 0, 0, 0, 'x', 0x85, 'R', '.'), 22, "opcode 0x63 at byte 2 refused");
        /* STACK_GLOBAL after two strings (protocol 4's way to name a callable) */
        expect_refused(PK(0x80, 4, 0x8c, 2, 'o', 's', 0x8c, 1, 'x', 0x93, '.'), 11,
                       "opcode 0x93 at byte 9 refused");
        /* BUILD, INST, OBJ, NEWOBJ, EXT1, PERSID, a list, an int */
        const unsigned char ops[] = { 'b', 'i', 'o', 0x81, 0x82, 'P', ']', 'K', 'G', 'h' };
        for (size_t i = 0; i < sizeof(ops); i++) {
                unsigned char pk[] = { 0x80, 4, 0x8c, 1, 'a', ops[i], '.' };
                expect_refused(pk, sizeof(pk), "refused");
        }
}

static void lengths_past_the_end_are_refused(void **state)
{
        expect_refused(PK(0x80, 4, 0x8c, 200, 'a', '.'), 6, "runs past the end");
        expect_refused(PK(0x80, 4, 'X', 0xff, 0xff, 0xff, 0xff, 'a', '.'), 9, "runs past the end");
        expect_refused(PK(0x80, 4, 0x8d, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, '.'), 12,
                       "runs past the end");
        expect_refused(PK(0x80, 4, 0x8d, 1, 0), 5, "ends inside a string's length");
        expect_refused(PK(0x80, 4, 0x95, 1, 0), 5, "short FRAME");
        expect_refused(PK(0x80, 4, 0x8c, 1, 'a'), 5, "ends without STOP");
}

static void shapes_other_than_one_str_are_refused(void **state)
{
        expect_refused(PK(0x80, 4, 0x8c, 1, 'a', 0x8c, 1, 'b', '.'), 9, "more than one str");
        expect_refused(PK(0x80, 4, '.'), 3, "no single str");
        expect_refused(PK(0x80, 4, 0x8c, 1, 'a', '.', '.'), 7, "1 bytes after STOP");
        expect_refused(PK(0x80, 4, '}', 0x8c, 1, 'k', 0x8c, 1, 'v', 's', '.'), 11,
                       "key is not \"input_output\"");
        expect_refused(PK(0x80, 4, 0x8c, 1, 'a', '}', '.'), 7, "EMPTY_DICT at byte 5");
        expect_refused(PK(0x80, 4, 's', '.'), 4, "SETITEM without");
        expect_refused(PK(0x80, 1, 'X', 0, 0, 0, 0, '.'), 8, "PROTO 2 to 5");
        expect_refused(PK('X', 0, 0, 0, 0, '.'), 6, "PROTO 2 to 5");
}

static void unpack_refuses_bad_base64_and_zlib_and_bombs(void **state)
{
        struct sbx_err err = { 0 };
        char *out = NULL;
        size_t n;

        assert_int_equal(io_unpack_b64_zlib("eJzLSM3JyQcABiwCFQ==", 20, &out, &n, &err), 0);
        assert_string_equal(out, "hello");
        free(out);
        out = NULL;
        /* lines of base64, as data files wrap it: the spaces are skipped */
        assert_int_equal(io_unpack_b64_zlib(" eJzLSM3J\nyQcA BiwC\r\nFQ==\n", 26, &out, &n, &err), 0);
        assert_string_equal(out, "hello");
        free(out);
        out = NULL;
        assert_int_equal(io_unpack_b64_zlib("eJzL=SM3JyQcABiwCFQ==", 21, &out, &n, &err), -1);  /* "=" inside */
        assert_int_equal(io_unpack_b64_zlib("eJzLSM3JyQcABiwCFQ=", 19, &out, &n, &err), -1);
        assert_non_null(strstr(err.msg, "padding"));
        assert_int_equal(io_unpack_b64_zlib("eJzLSM3JyQcAB", 13, &out, &n, &err), -1);
        assert_int_equal(io_unpack_b64_zlib("aGVsbG8=", 8, &out, &n, &err), -1);  /* "hello", not zlib */
        assert_non_null(strstr(err.msg, "zlib"));
        assert_null(out);
}

/* 64 MiB of zeros in 64 KB of zlib: refused at the cap (1 MiB here,
 * IO_MAX_DECODED_BYTES in use), having held no more than the cap. */
static void a_zlib_bomb_is_refused(void **state)
{
        size_t raw_len = 64 << 20, chunk = 1 << 20;
        unsigned char *zero = calloc(1, chunk), *z = malloc(4 << 20);
        z_stream zs = { 0 };
        struct sbx_err err = { 0 };
        char *b64, *out = NULL;
        size_t n;

        assert_non_null(zero);
        assert_non_null(z);
        assert_int_equal(deflateInit(&zs, 1), Z_OK);
        zs.next_out = z;
        zs.avail_out = 4 << 20;
        for (size_t done = 0; done < raw_len; done += chunk) {
                zs.next_in = zero;
                zs.avail_in = (unsigned)chunk;
                assert_int_equal(deflate(&zs, done + chunk < raw_len ? Z_NO_FLUSH : Z_FINISH),
                                 done + chunk < raw_len ? Z_OK : Z_STREAM_END);
        }
        size_t zlen = zs.total_out;
        deflateEnd(&zs);
        b64 = malloc(zlen / 3 * 4 + 8);
        assert_non_null(b64);
        static const char al[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        size_t k = 0;
        for (size_t i = 0; i < zlen; i += 3) {
                uint32_t v = (uint32_t)z[i] << 16 | (i + 1 < zlen ? (uint32_t)z[i + 1] << 8 : 0) |
                             (i + 2 < zlen ? z[i + 2] : 0);
                b64[k++] = al[v >> 18 & 63];
                b64[k++] = al[v >> 12 & 63];
                b64[k++] = i + 1 < zlen ? al[v >> 6 & 63] : '=';
                b64[k++] = i + 2 < zlen ? al[v & 63] : '=';
        }
        assert_int_equal(io_unpack_b64_zlib_max(b64, k, 1 << 20, &out, &n, &err), -1);
        assert_non_null(strstr(err.msg, "decompresses to more than 1048576 bytes"));
        assert_int_equal(io_unpack_b64_zlib_max(b64, k, 65 << 20, &out, &n, &err), 0);
        assert_int_equal(n, raw_len);
        free(out);
        free(b64);
        free(z);
        free(zero);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(pythons_pickled_str_is_read),
                cmocka_unit_test(opcodes_that_build_objects_are_refused),
                cmocka_unit_test(lengths_past_the_end_are_refused),
                cmocka_unit_test(shapes_other_than_one_str_are_refused),
                cmocka_unit_test(unpack_refuses_bad_base64_and_zlib_and_bombs),
                cmocka_unit_test(a_zlib_bomb_is_refused),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
