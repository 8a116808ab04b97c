/* The trusted comparator: evalplus's rules (exact ==, np.allclose with
 * rtol 1e-7 and the task's atol; the special oracles are in
 * evalplus_oracle.c) applied to the values the
 * sandboxed driver serialized. Nothing from the candidate's process is
 * trusted but those values: no __eq__ of its own, no numpy it could patch.
 *
 * The serialized form (frontend/suites/evalplus/evalplus_driver.py): null, true/false, a
 * JSON string for str, and tagged lists for the rest: ["i", hex] int,
 * ["f", repr] float, ["c", re, im] complex, ["b", hex] bytes, ["l", ...]
 * list, ["t", ...] tuple, ["d", [k, v]...] dict, ["s", ...] set,
 * ["z", ...] frozenset. A list or tuple of two or more numbers, each an
 * exact int or float, comes packed: ["ln" | "tn", "x y z..."], the
 * elements space-separated, ints in hex ("0x1f", "-0x2"), floats in repr
 * ("1.5", "inf", "nan"): a token with an 'x' is an int. A value whose text
 * passes 8 MiB comes as ["h", sha256 of the text]: equal to the same digest
 * only. An expected value from the cache may be ["k", sha256 of its
 * canonical form] (evalplus_digest.c): equal to the values with that
 * digest. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "evalplus.h"
#include "evalplus_value.h"

static bool is_number(enum py_kind k)
{
        return k == PY_BOOL || k == PY_INT || k == PY_FLOAT || k == PY_COMPLEX;
}

/* An int or bool as Python's hex() writes it ("-0x1f"), so that ints of
 * any size compare exactly. */
static const char *int_hex(const cJSON *v)
{
        if (cJSON_IsBool(v))
                return cJSON_IsTrue(v) ? "0x1" : "0x0";
        return ep_payload(v, 0);
}

double ep_as_double(const cJSON *v)
{
        enum py_kind k = ep_kind_of(v);

        if (k == PY_BOOL)
                return cJSON_IsTrue(v) ? 1.0 : 0.0;
        if (k == PY_INT || k == PY_FLOAT || k == PY_COMPLEX)
                return strtod(ep_payload(v, 0), NULL);     /* strtod reads hex and inf/nan */
        return NAN;
}

/* int == float, exactly as Python compares them. */
static bool hex_eq_float(const char *int_hex_text, double d)
{
        char hex[400];

        return ep_integral_hex(d, hex, sizeof(hex)) && !strcmp(int_hex_text, hex);
}

static bool int_eq_float(const cJSON *i, double d)
{
        return hex_eq_float(int_hex(i), d);
}

static bool real_eq(const cJSON *a, enum py_kind ka, const cJSON *b, enum py_kind kb)
{
        if (ka != PY_FLOAT && kb != PY_FLOAT)
                return !strcmp(int_hex(a), int_hex(b));
        if (ka == PY_FLOAT && kb == PY_FLOAT)
                return ep_as_double(a) == ep_as_double(b);
        return ka == PY_FLOAT ? int_eq_float(b, ep_as_double(a)) : int_eq_float(a, ep_as_double(b));
}

static bool num_eq(const cJSON *a, enum py_kind ka, const cJSON *b, enum py_kind kb)
{
        if (ka == PY_COMPLEX && kb == PY_COMPLEX)
                return strtod(ep_payload(a, 0), NULL) == strtod(ep_payload(b, 0), NULL) &&
                       strtod(ep_payload(a, 1), NULL) == strtod(ep_payload(b, 1), NULL);
        if (ka == PY_COMPLEX || kb == PY_COMPLEX) {
                const cJSON *c = ka == PY_COMPLEX ? a : b, *r = ka == PY_COMPLEX ? b : a;
                enum py_kind kr = ka == PY_COMPLEX ? kb : ka;
                if (strtod(ep_payload(c, 1), NULL) != 0)
                        return false;
                double re = strtod(ep_payload(c, 0), NULL);
                return kr == PY_FLOAT ? re == ep_as_double(r) : int_eq_float(r, re);
        }
        return real_eq(a, ka, b, kb);
}

size_t ep_seq_len(const cJSON *v)
{
        size_t n = 0;

        if (!ep_packed(v))
                return (size_t)cJSON_GetArraySize(v) - 1;
        for (const char *p = ep_payload(v, 0); *p; p++)
                n += *p == ' ';
        return n + 1;
}

/* A packed sequence as the general form (a new tree; NULL on no memory). */
cJSON *ep_expand(const cJSON *v)
{
        char tag[2] = { v->child->valuestring[0], '\0' };
        cJSON *out = cJSON_CreateArray();
        auto_free char *copy = strdup(ep_payload(v, 0));
        char *save = NULL;

        if (!out || !copy || !cJSON_AddItemToArray(out, cJSON_CreateString(tag))) {
                cJSON_Delete(out);
                return NULL;
        }
        for (char *tok = strtok_r(copy, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
                cJSON *e = cJSON_CreateArray();
                if (!e || !cJSON_AddItemToArray(out, e) ||
                    !cJSON_AddItemToArray(e, cJSON_CreateString(strchr(tok, 'x') ? "i" : "f")) ||
                    !cJSON_AddItemToArray(e, cJSON_CreateString(tok))) {
                        cJSON_Delete(out);
                        return NULL;
                }
        }
        return out;
}

static bool isclose(double a, double b, double atol);

/* One packed element against another, [x, xe) and [y, ye): Python's ==,
 * or numpy's isclose. */
static bool token_cmp(const char *x, const char *xe, const char *y, const char *ye,
                      bool close, double atol)
{
        bool xi = memchr(x, 'x', (size_t)(xe - x)) != NULL;
        bool yi = memchr(y, 'x', (size_t)(ye - y)) != NULL;
        double a = strtod(x, NULL), b = strtod(y, NULL);
        char hex[400];

        if (close)
                return isclose(a, b, atol);
        if (xi && yi)
                return xe - x == ye - y && !memcmp(x, y, (size_t)(xe - x));
        if (!xi && !yi)
                return a == b;
        snprintf(hex, sizeof(hex), "%.*s", (int)(xi ? xe - x : ye - y), xi ? x : y);
        return hex_eq_float(hex, xi ? b : a);
}

/* Both packed: elementwise without building nodes. */
static bool packed_cmp(const cJSON *a, const cJSON *b, bool close, double atol)
{
        const char *p = ep_payload(a, 0), *q = ep_payload(b, 0);

        for (;;) {
                const char *pe = p + strcspn(p, " "), *qe = q + strcspn(q, " ");
                if (!token_cmp(p, pe, q, qe, close, atol))
                        return false;
                if (!*pe || !*qe)
                        return !*pe && !*qe;
                p = pe + 1;
                q = qe + 1;
        }
}

static bool packed_eq(const cJSON *a, const cJSON *b)
{
        char pa = ep_packed(a), pb = ep_packed(b);
        cJSON *ea, *eb;
        bool eq;

        if (pa && pb)
                return packed_cmp(a, b, false, 0);
        ea = pa ? ep_expand(a) : NULL;
        eb = pb ? ep_expand(b) : NULL;
        eq = (!pa || ea) && (!pb || eb) && evalplus_py_eq(ea ? ea : a, eb ? eb : b);
        cJSON_Delete(ea);
        cJSON_Delete(eb);
        return eq;
}

static bool seq_eq(const cJSON *a, const cJSON *b)
{
        const cJSON *x = ep_items(a), *y = ep_items(b);

        for (; x && y; x = x->next, y = y->next)
                if (!evalplus_py_eq(x, y))
                        return false;
        return !x && !y;
}

bool ep_contains(const cJSON *coll, const cJSON *hint, const cJSON *x)
{
        if (hint && evalplus_py_eq(hint, x))
                return true;
        for (const cJSON *y = ep_items(coll); y; y = y->next)
                if (y != hint && evalplus_py_eq(y, x))
                        return true;
        return false;
}

/* Sets hold distinct elements and dicts distinct keys, so equal sizes and
 * every element of a found in b is equality. Same position first: two
 * sets of one process usually list their elements in the same order. */
static bool set_eq(const cJSON *a, const cJSON *b)
{
        if (cJSON_GetArraySize(a) != cJSON_GetArraySize(b))
                return false;
        const cJSON *y = ep_items(b);
        for (const cJSON *x = ep_items(a); x; x = x->next, y = y ? y->next : NULL)
                if (!ep_contains(b, y, x))
                        return false;
        return true;
}

static const cJSON *dict_get(const cJSON *d, const cJSON *hint, const cJSON *key)
{
        if (hint && evalplus_py_eq(cJSON_GetArrayItem(hint, 0), key))
                return cJSON_GetArrayItem(hint, 1);
        for (const cJSON *p = ep_items(d); p; p = p->next)
                if (evalplus_py_eq(cJSON_GetArrayItem(p, 0), key))
                        return cJSON_GetArrayItem(p, 1);
        return NULL;
}

static bool dict_eq(const cJSON *a, const cJSON *b)
{
        if (cJSON_GetArraySize(a) != cJSON_GetArraySize(b))
                return false;
        const cJSON *hint = ep_items(b);
        for (const cJSON *p = ep_items(a); p; p = p->next, hint = hint ? hint->next : NULL) {
                const cJSON *v = dict_get(b, hint, cJSON_GetArrayItem(p, 0));
                if (!v || !evalplus_py_eq(cJSON_GetArrayItem(p, 1), v))
                        return false;
        }
        return true;
}

bool evalplus_py_eq(const cJSON *a, const cJSON *b)
{
        enum py_kind ka = ep_kind_of(a), kb = ep_kind_of(b);

        if (ka == PY_BAD || kb == PY_BAD || (ka == PY_CANON && kb == PY_CANON))
                return false;
        if (ka == PY_CANON || kb == PY_CANON)
                return ka == PY_CANON ? ep_canon_eq(b, a) : ep_canon_eq(a, b);
        if (ep_packed(a) || ep_packed(b))
                return ka == kb && packed_eq(a, b);
        if (is_number(ka) && is_number(kb))
                return num_eq(a, ka, b, kb);
        if ((ka == PY_SET || ka == PY_FROZENSET) && (kb == PY_SET || kb == PY_FROZENSET))
                return set_eq(a, b);
        if (ka != kb)
                return false;
        switch (ka) {
        case PY_NONE: return true;
        case PY_STR: return !strcmp(a->valuestring, b->valuestring);
        case PY_BYTES: case PY_DIGEST: return !strcmp(ep_payload(a, 0), ep_payload(b, 0));
        case PY_LIST: case PY_TUPLE: return seq_eq(a, b);
        case PY_DICT: return dict_eq(a, b);
        default: return false;
        }
}

/* ---- np.ep_allclose(out, exp, rtol=1e-07, atol=atol) ---- */

/* numpy's isclose: |a - b| <= atol + rtol * |b|, infinities equal only to
 * themselves, NaN to nothing (equal_nan=False). */
static bool isclose(double a, double b, double atol)
{
        if (isnan(a) || isnan(b))
                return false;
        if (isinf(a) || isinf(b))
                return a == b;
        return fabs(a - b) <= atol + EVALPLUS_RTOL * fabs(b);
}

/* Elementwise over the same nesting of lists and tuples; anything numpy
 * would not turn into a numeric array (str, None, dict, ragged) fails, as
 * np.allclose raises there. Shapes must match: no broadcasting. */
bool ep_allclose(const cJSON *out, const cJSON *exp, double atol)
{
        enum py_kind ko = ep_kind_of(out), ke = ep_kind_of(exp);

        if (ep_packed(out) && ep_packed(exp))
                return packed_cmp(out, exp, true, atol);
        if (ep_packed(out) || ep_packed(exp)) {
                cJSON *eo = ep_packed(out) ? ep_expand(out) : NULL, *ee = ep_packed(exp) ? ep_expand(exp) : NULL;
                bool ok = (!ep_packed(out) || eo) && (!ep_packed(exp) || ee) &&
                          ep_allclose(eo ? eo : out, ee ? ee : exp, atol);
                cJSON_Delete(eo);
                cJSON_Delete(ee);
                return ok;
        }
        if ((ko == PY_LIST || ko == PY_TUPLE) && (ke == PY_LIST || ke == PY_TUPLE)) {
                const cJSON *x = ep_items(out), *y = ep_items(exp);
                for (; x && y; x = x->next, y = y->next)
                        if (!ep_allclose(x, y, atol))
                                return false;
                return !x && !y;
        }
        if (ko == PY_COMPLEX || ke == PY_COMPLEX) {
                double ar = ep_as_double(out), br = ep_as_double(exp);
                double ai = ko == PY_COMPLEX ? strtod(ep_payload(out, 1), NULL) : 0;
                double bi = ke == PY_COMPLEX ? strtod(ep_payload(exp, 1), NULL) : 0;
                double d = hypot(ar - br, ai - bi);
                return !isnan(d) && d <= atol + EVALPLUS_RTOL * hypot(br, bi);
        }
        if (!is_number(ko) || !is_number(ke))
                return false;
        return isclose(ep_as_double(out), ep_as_double(exp), atol);
}

