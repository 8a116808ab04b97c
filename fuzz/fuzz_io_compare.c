/* Fuzz target: the output comparisons (io_compare_streams,
 * frontend/suites/io/compare/). Input: a kind byte, the output, "\n%%\n",
 * the answer. Properties beyond "no crash": every kind finds an output
 * equal to its answer the same; reading both sides from files through a
 * 9-byte buffer gives the verdict reading them in memory gives; exact
 * equality implies every other kind's; a difference says where. The json
 * kinds may refuse an answer that is not JSON (-1: the problem's data),
 * and only then. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz_input.h"
#include "compare.h"

static const char *const specs[] = { "exact", "lines", "tokens", "floats", "floats:abs=0.5,rel=0",
                                     "lcb", "sandboxfusion", "json", "json-apps" };
#define N_SPECS (sizeof(specs) / sizeof(specs[0]))

static int by_fd(const struct io_compare *how, const uint8_t *o, size_t on,
                 const uint8_t *a, size_t an)
{
        char op[64], ap[64];
        int ofd = fuzz_memfd(o, on, op, sizeof(op)), afd = fuzz_memfd(a, an, ap, sizeof(ap));
        struct io_stream os, as;
        struct io_diff d;
        struct sbx_err err = { 0 };
        int rc = -2;

        /* fuzz_memfd's offset is past the data: read from the start */
        if (ofd >= 0 && afd >= 0 && lseek(ofd, 0, SEEK_SET) == 0 && lseek(afd, 0, SEEK_SET) == 0 &&
            io_stream_fd_buf(&os, ofd, "output", 9, &err) == 0) {
                if (io_stream_fd_buf(&as, afd, "answer", 9, &err) == 0) {
                        rc = io_compare_streams(how, &os, &as, &d, &err);
                        io_stream_done(&as);
                }
                io_stream_done(&os);
        }
        if (ofd >= 0)
                close(ofd);
        if (afd >= 0)
                close(afd);
        return rc;
}

static int in_mem(const struct io_compare *how, const uint8_t *o, size_t on,
                  const uint8_t *a, size_t an, struct io_diff *d)
{
        struct sbx_err err = { 0 };

        return io_compare_mem(how, (const char *)o, on, (const char *)a, an, d, &err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        const uint8_t *ans;
        size_t ans_len, out_len;
        struct io_compare how;
        struct sbx_err err = { 0 };
        struct io_diff d;

        if (size < 1)
                return 0;
        out_len = fuzz_split(data + 1, size - 1, &ans, &ans_len);
        if (io_compare_parse(specs[data[0] % N_SPECS], &how, &err) < 0)
                abort();
        bool json = how.kind == IO_CMP_JSON || how.kind == IO_CMP_JSON_APPS;
        int mem = in_mem(&how, data + 1, out_len, ans, ans_len, &d);
        if ((mem < 0 && !json) || (mem == 1 && !d.why[0] && d.line == 0))
                abort();
        if (by_fd(&how, data + 1, out_len, ans, ans_len) != mem)
                abort();
        int self = in_mem(&how, ans, ans_len, ans, ans_len, &d);
        if (self != 0 && !(json && self < 0 && mem < 0))
                abort();
        if (json)       /* equal values need not be equal bytes */
                return 0;
        struct io_compare exact = { .kind = IO_CMP_EXACT };
        if (in_mem(&exact, data + 1, out_len, ans, ans_len, &d) == 0 && mem != 0)
                abort();
        return 0;
}
