/* The serialized Python values (evalplus_value.c, evalplus_compare.c),
 * for the comparator, the digests (evalplus_digest.c), the special oracles
 * and the judge (evalplus_oracle.c): private to those files. */
#ifndef SBX_EVALPLUS_VALUE_H
#define SBX_EVALPLUS_VALUE_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

enum py_kind {
        PY_BAD = 0, PY_NONE, PY_BOOL, PY_INT, PY_FLOAT, PY_COMPLEX, PY_STR,
        PY_BYTES, PY_LIST, PY_TUPLE, PY_DICT, PY_SET, PY_FROZENSET,
        PY_DIGEST,      /* ["h", sha256]: a value too large to send */
        PY_CANON,       /* ["k", sha256]: an expected value kept as its digest */
};

enum py_kind ep_kind_of(const cJSON *v);
/* The i-th payload string of a tagged scalar (after the tag), or "". */
const char *ep_payload(const cJSON *v, int i);
double ep_as_double(const cJSON *v);
/* The elements of a list, tuple, set or dict; NULL when empty. */
const cJSON *ep_items(const cJSON *v);
/* 'l' or 't' for a packed list or tuple of numbers, else 0. */
char ep_packed(const cJSON *v);
size_t ep_seq_len(const cJSON *v);
/* A packed sequence unpacked into tagged elements (owned), or NULL. */
cJSON *ep_expand(const cJSON *v);
bool ep_contains(const cJSON *coll, const cJSON *hint, const cJSON *x);
/* np.allclose(out, exp, rtol=1e-07, atol=atol) */
bool ep_allclose(const cJSON *out, const cJSON *exp, double atol);
/* evalplus's is_floats: a float, or a non-empty list or tuple of floats. */
bool ep_is_floats(const cJSON *v);
/* d as Python's hex(int(d)) ("-0x1f", "0x0" for -0.0) when d is integral
 * and finite, else false. */
bool ep_integral_hex(double d, char *out, size_t n);

/* evalplus_digest.c: the digest of a value's canonical form, in hex
 * without a NUL; false for a value with no canonical form (NaN, a
 * digest, junk). */
bool ep_canon_digest_raw(const cJSON *v, unsigned char out[64]);
/* out == exp, for exp a ["k", digest]. */
bool ep_canon_eq(const cJSON *out, const cJSON *canon);

#endif
