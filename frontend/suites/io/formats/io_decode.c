/* LiveCodeBench's packing of its private tests, undone in bounded memory:
 * base64 (Python's b64decode of the text), then zlib (zlib.decompress).
 * The decompressed size is capped: a few hundred bytes of zlib can claim
 * gigabytes. */
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "encoding.h"
#include "io.h"

/* Doubles *buf up to max; -1 with err set when it is at max already or
 * out of memory. */
static int grow(char **buf, size_t *cap, size_t max, struct sbx_err *err)
{
        size_t ncap = *cap * 2 > max ? max : *cap * 2;
        char *nb;

        if (ncap <= *cap)
                return sbx_fail(err, 0, "zlib: decompresses to more than %zu bytes", max);
        if (!(nb = realloc(*buf, ncap + 1)))
                return sbx_fail_oom(err, "zlib");
        *buf = nb;
        *cap = ncap;
        return 0;
}

/* zlib.decompress: one zlib stream, nothing after it. */
static int inflate_capped(const unsigned char *in, size_t in_len, size_t max,
                          char **out, size_t *out_len, struct sbx_err *err)
{
        z_stream z = { 0 };
        size_t cap = in_len * 4 + 1024 < max ? in_len * 4 + 1024 : max, n = 0;
        auto_free char *buf = malloc(cap + 1);
        int rc = Z_OK;

        if (!buf || inflateInit(&z) != Z_OK)
                return sbx_fail_oom(err, "zlib");
        z.next_in = (unsigned char *)in;
        while (rc == Z_OK) {
                if (n == cap && grow(&buf, &cap, max, err) < 0) {
                        inflateEnd(&z);
                        return -1;
                }
                size_t in_left = in_len - (size_t)(z.next_in - in);
                z.avail_in = in_left > UINT_MAX ? UINT_MAX : (unsigned)in_left;
                z.next_out = (unsigned char *)buf + n;
                z.avail_out = cap - n > UINT_MAX ? UINT_MAX : (unsigned)(cap - n);
                size_t before = z.avail_out;
                rc = inflate(&z, Z_NO_FLUSH);
                n += before - z.avail_out;
                if (rc == Z_BUF_ERROR && z.avail_out > 0)
                        break;          /* input ended inside the stream */
                if (rc == Z_BUF_ERROR)
                        rc = Z_OK;
        }
        bool trailing = z.next_in != in + in_len;
        inflateEnd(&z);
        if (rc != Z_STREAM_END || trailing)
                return sbx_fail(err, 0, "zlib: %s", rc != Z_STREAM_END
                                ? "not a complete zlib stream" : "bytes after the zlib stream");
        buf[n] = '\0';
        *out = steal_pointer(&buf);
        *out_len = n;
        return 0;
}

int io_unpack_b64_zlib_max(const char *text, size_t len, size_t max, char **out,
                           size_t *out_len, struct sbx_err *err)
{
        auto_free unsigned char *raw = malloc(len / 4 * 3 + 3);
        size_t raw_len = 0;

        if (!raw)
                return sbx_fail_oom(err, "base64");
        /* Python's b64decode wants the padding complete */
        if (base64_decode(text, len, true, raw, &raw_len) < 0)
                return sbx_fail(err, 0, "base64: not base64 (a byte out of its alphabet, "
                                "bad padding or trailing bits)");
        return inflate_capped(raw, raw_len, max, out, out_len, err);
}

int io_unpack_b64_zlib(const char *text, size_t len, char **out, size_t *out_len,
                       struct sbx_err *err)
{
        return io_unpack_b64_zlib_max(text, len, (size_t)IO_MAX_DECODED_BYTES, out, out_len, err);
}
