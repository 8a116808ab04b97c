/* Reading a whole input file (problems, samples, results), gunzipped when
 * it is gzip. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

#include "suite_file.h"

#define READ_CHUNK_BYTES (1 << 20)

static int grow(char **buf, size_t *cap, size_t need, const char *path,
                struct sbx_err *err)
{
        if (need + 1 > (size_t)SUITE_MAX_FILE_BYTES)
                return sbx_fail(err, 0, "%s: file larger than %lld bytes",
                                path, SUITE_MAX_FILE_BYTES);
        if (need + 1 <= *cap)
                return 0;
        size_t ncap = *cap ? *cap : READ_CHUNK_BYTES;
        while (ncap < need + 1)
                ncap *= 2;
        char *n = realloc(*buf, ncap);
        if (!n)
                return sbx_fail_oom(err, "%s", path);
        *buf = n;
        *cap = ncap;
        return 0;
}

/* A gzip stream cut short (an interrupted download or copy) reads as
 * Z_BUF_ERROR; the line it ended in is the one after the last newline. */
static void gz_error(gzFile gz, const char *path, const char *buf, size_t n,
                     struct sbx_err *err)
{
        int zerr;
        const char *msg = gzerror(gz, &zerr);
        long line = 1;

        for (size_t i = 0; i < n; i++)
                line += buf[i] == '\n';
        if (zerr == Z_ERRNO)
                sbx_fail(err, errno, "%s: read", path);
        else if (zerr == Z_BUF_ERROR)
                sbx_fail(err, 0, "%s: gzip stream ended early at line %ld (the file is "
                         "truncated: download or copy it again)", path, line);
        else
                sbx_fail(err, 0, "%s: not a valid gzip file (%s, at line %ld)", path, msg, line);
}

/* zlib reads a file that is not gzip as it is ("transparent" mode), so
 * one reader serves .jsonl and .jsonl.gz. */
static int read_whole(const char *path, char **out, size_t *len, struct sbx_err *err)
{
        gzFile gz = gzopen(path, "rb");
        char *buf = NULL;
        size_t cap = 0, n = 0;

        if (!gz)
                return sbx_fail(err, errno, "%s", path);
        for (;;) {
                if (grow(&buf, &cap, n + READ_CHUNK_BYTES, path, err) < 0)
                        goto fail;
                int got = gzread(gz, buf + n, READ_CHUNK_BYTES);
                if (got < 0) {
                        gz_error(gz, path, buf, n, err);
                        goto fail;
                }
                if (got == 0) {
                        int zerr;
                        gzerror(gz, &zerr);
                        if (zerr != Z_OK) {     /* the last read hit it after data */
                                gz_error(gz, path, buf, n, err);
                                goto fail;
                        }
                        break;
                }
                n += (size_t)got;
        }
        gzclose(gz);
        buf[n] = '\0';
        *out = buf;
        *len = n;
        return 0;
fail:
        gzclose(gz);
        free(buf);
        return -1;
}

cJSON *suite_parse_json(const char *path, const char *buf, size_t len, struct sbx_err *err)
{
        cJSON *v;

        if (memchr(buf, '\0', len)) {
                sbx_fail(err, 0, "%s: NUL byte in file (binary data?)", path);
                return NULL;
        }
        if (!(v = cJSON_ParseWithLength(buf, len))) {
                const char *at = cJSON_GetErrorPtr();
                long line = 1;
                for (const char *p = buf; at && p < at && p < buf + len; p++)
                        line += *p == '\n';
                sbx_fail(err, 0, "%s:%ld: invalid JSON", path, line);
        }
        return v;
}

int suite_read_file(const char *path, char **buf, size_t *len, struct sbx_err *err)
{
        struct stat st;

        if (stat(path, &st) < 0)
                return sbx_fail(err, errno, "%s", path);
        if (S_ISDIR(st.st_mode))
                return sbx_fail(err, 0, "%s: is a directory", path);
        return read_whole(path, buf, len, err);
}
