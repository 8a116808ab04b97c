/* A strict reader of the one pickle shape LiveCodeBench's data holds: a
 * pickled str (protocol 2 to 5), or SandboxFusion's dict of one str under
 * "input_output". Unpickling runs whatever the pickle names (GLOBAL,
 * REDUCE, BUILD, ...), so sbx never unpickles: this reader knows a dozen
 * opcodes that only push bytes and refuses every other one, naming it and
 * its offset. It executes nothing, resolves no memo reference, and points
 * into the input rather than copying the string. */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "io.h"

enum {
        OP_PROTO = 0x80, OP_FRAME = 0x95, OP_STOP = '.',
        OP_SHORT_BINUNICODE = 0x8c, OP_BINUNICODE = 'X', OP_BINUNICODE8 = 0x8d,
        OP_MEMOIZE = 0x94, OP_BINPUT = 'q', OP_LONG_BINPUT = 'r',
        OP_EMPTY_DICT = '}', OP_SETITEM = 's',
};

#define PICKLE_DICT_KEY "input_output"

struct pk_state {
        const unsigned char *p;
        size_t len, pos;
        const char *str[2];     /* the stack: at most a key and a value above the dict */
        size_t str_len[2];
        int n_str;
        int dict;               /* 0 none, 1 empty dict below the strings, 2 dict holding one */
        bool scan;              /* first pass: opcodes and lengths only, no shape */
        const char *value;      /* the dict's value */
        size_t value_len;
};

static uint64_t le(const unsigned char *p, int n)
{
        uint64_t v = 0;

        for (int i = n - 1; i >= 0; i--)
                v = (v << 8) | p[i];
        return v;
}

/* n bytes of argument at pos, or -1 when the pickle ends first. */
static int take(struct pk_state *st, size_t n, const unsigned char **arg)
{
        if (st->len - st->pos < n)
                return -1;
        *arg = st->p + st->pos;
        st->pos += n;
        return 0;
}

static int push_str(struct pk_state *st, int len_bytes, struct sbx_err *err)
{
        const unsigned char *a, *s;
        uint64_t n;

        if (take(st, (size_t)len_bytes, &a) < 0)
                return sbx_fail(err, 0, "pickle: ends inside a string's length");
        n = le(a, len_bytes);
        if (n > st->len - st->pos || take(st, (size_t)n, &s) < 0)
                return sbx_fail(err, 0, "pickle: a string runs past the end");
        if (st->scan)
                return 0;
        if (st->n_str == 2 || (st->dict == 0 && st->n_str == 1) || st->dict == 2)
                return sbx_fail(err, 0, "pickle: more than one str");
        st->str[st->n_str] = (const char *)s;
        st->str_len[st->n_str++] = (size_t)n;
        return 0;
}

static int setitem(struct pk_state *st, struct sbx_err *err)
{
        if (st->scan)
                return 0;
        if (st->dict != 1 || st->n_str != 2)
                return sbx_fail(err, 0, "pickle: SETITEM without a dict, a key and a value");
        if (st->str_len[0] != strlen(PICKLE_DICT_KEY) ||
            memcmp(st->str[0], PICKLE_DICT_KEY, st->str_len[0]) != 0)
                return sbx_fail(err, 0, "pickle: the dict's key is not \"%s\"", PICKLE_DICT_KEY);
        st->value = st->str[1];
        st->value_len = st->str_len[1];
        st->n_str = 0;
        st->dict = 2;
        return 0;
}

/* One opcode (already read); 1 at STOP, 0 to go on, -1 refused. */
static int step(struct pk_state *st, unsigned char op, size_t at, struct sbx_err *err)
{
        const unsigned char *a;

        switch (op) {
        case OP_FRAME:          return take(st, 8, &a) < 0 ? sbx_fail(err, 0, "pickle: short FRAME") : 0;
        case OP_SHORT_BINUNICODE: return push_str(st, 1, err);
        case OP_BINUNICODE:     return push_str(st, 4, err);
        case OP_BINUNICODE8:    return push_str(st, 8, err);
        case OP_MEMOIZE:        return 0;
        case OP_BINPUT:         return take(st, 1, &a) < 0 ? sbx_fail(err, 0, "pickle: short BINPUT") : 0;
        case OP_LONG_BINPUT:    return take(st, 4, &a) < 0 ? sbx_fail(err, 0, "pickle: short LONG_BINPUT") : 0;
        case OP_EMPTY_DICT:
                if (st->scan)
                        return 0;
                if (st->dict || st->n_str)
                        return sbx_fail(err, 0, "pickle: EMPTY_DICT at byte %zu not first", at);
                st->dict = 1;
                return 0;
        case OP_SETITEM:        return setitem(st, err);
        case OP_STOP:           return 1;
        default:
                return sbx_fail(err, 0, "pickle: opcode 0x%02x at byte %zu refused: only a "
                                "pickled str is read, nothing is unpickled", op, at);
        }
}

/* Runs the opcodes from after PROTO to STOP: 0, or -1 refused. */
static int run(struct pk_state *st, struct sbx_err *err)
{
        int rc = 0;

        st->pos = 2;
        while (rc == 0) {
                if (st->pos >= st->len)
                        return sbx_fail(err, 0, "pickle: ends without STOP");
                size_t at = st->pos;
                rc = step(st, st->p[st->pos++], at, err);
        }
        if (rc < 0)
                return -1;
        if (st->pos != st->len)
                return sbx_fail(err, 0, "pickle: %zu bytes after STOP", st->len - st->pos);
        return 0;
}

/* Two passes: the first refuses any opcode outside the list wherever it
 * is (so the message names what was refused), the second checks that
 * the strings make one str or SandboxFusion's dict. */
int io_pickle_str(const unsigned char *pk, size_t len, const char **out,
                  size_t *out_len, struct sbx_err *err)
{
        struct pk_state scan = { .p = pk, .len = len, .scan = true };
        struct pk_state st = { .p = pk, .len = len };

        if (len < 2 || pk[0] != OP_PROTO || pk[1] < 2 || pk[1] > 5)
                return sbx_fail(err, 0, "pickle: does not start with PROTO 2 to 5");
        if (run(&scan, err) < 0 || run(&st, err) < 0)
                return -1;
        if (st.dict == 0 && st.n_str == 1) {
                *out = st.str[0];
                *out_len = st.str_len[0];
                return 0;
        }
        if (st.dict == 2 && st.n_str == 0) {
                *out = st.value;
                *out_len = st.value_len;
                return 0;
        }
        return sbx_fail(err, 0, "pickle: holds no single str");
}
