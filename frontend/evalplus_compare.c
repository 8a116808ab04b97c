/* The trusted comparator: evalplus's rules (exact ==, np.allclose with
 * rtol 1e-7 and the task's atol, special oracles) applied to the values the
 * sandboxed driver serialized. Nothing from the candidate's process is
 * trusted but those values: no __eq__ of its own, no numpy it could patch.
 *
 * The serialized form (frontend/evalplus_driver.py): null, true/false, a
 * JSON string for str, and tagged lists for the rest: ["i", hex] int,
 * ["f", repr] float, ["c", re, im] complex, ["b", hex] bytes, ["l", ...]
 * list, ["t", ...] tuple, ["d", [k, v]...] dict, ["s", ...] set,
 * ["z", ...] frozenset. A list or tuple of two or more numbers, each an
 * exact int or float, comes packed: ["ln" | "tn", "x y z..."], the
 * elements space-separated, ints in hex ("0x1f", "-0x2"), floats in repr
 * ("1.5", "inf", "nan"): a token with an 'x' is an int. A value whose text
 * passes 8 MiB comes as ["h", sha256 of the text]: equal to the same digest
 * only. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "evalplus.h"

enum py_kind {
        PY_BAD = 0, PY_NONE, PY_BOOL, PY_INT, PY_FLOAT, PY_COMPLEX, PY_STR,
        PY_BYTES, PY_LIST, PY_TUPLE, PY_DICT, PY_SET, PY_FROZENSET,
        PY_DIGEST,      /* ["h", sha256]: a value too large to send */
};

static enum py_kind kind_of(const cJSON *v)
{
        static const struct { char tag; enum py_kind kind; } tags[] = {
                { 'i', PY_INT }, { 'f', PY_FLOAT }, { 'c', PY_COMPLEX },
                { 'b', PY_BYTES }, { 'l', PY_LIST }, { 't', PY_TUPLE },
                { 'd', PY_DICT }, { 's', PY_SET }, { 'z', PY_FROZENSET },
                { 'h', PY_DIGEST },
        };
        const cJSON *t;

        if (!v)
                return PY_BAD;
        if (cJSON_IsNull(v))
                return PY_NONE;
        if (cJSON_IsBool(v))
                return PY_BOOL;
        if (cJSON_IsString(v))
                return PY_STR;
        if (!cJSON_IsArray(v) || !(t = v->child) || !cJSON_IsString(t))
                return PY_BAD;
        if (strlen(t->valuestring) == 2 && t->valuestring[1] == 'n')
                return t->valuestring[0] == 'l' ? PY_LIST :
                       t->valuestring[0] == 't' ? PY_TUPLE : PY_BAD;
        if (strlen(t->valuestring) != 1)
                return PY_BAD;
        for (size_t i = 0; i < sizeof(tags) / sizeof(tags[0]); i++)
                if (tags[i].tag == t->valuestring[0])
                        return tags[i].kind;
        return PY_BAD;
}

static bool is_number(enum py_kind k)
{
        return k == PY_BOOL || k == PY_INT || k == PY_FLOAT || k == PY_COMPLEX;
}

/* The i-th payload string of a tagged scalar (after the tag). */
static const char *payload(const cJSON *v, int i)
{
        const cJSON *p = cJSON_GetArrayItem(v, i + 1);
        return cJSON_IsString(p) ? p->valuestring : "";
}

/* An int or bool as Python's hex() writes it ("-0x1f"), so that ints of
 * any size compare exactly. */
static const char *int_hex(const cJSON *v)
{
        if (cJSON_IsBool(v))
                return cJSON_IsTrue(v) ? "0x1" : "0x0";
        return payload(v, 0);
}

/* A float with an integral value as hex(int(d)): exact at any size. */
static void float_hex(double d, char *out, size_t n)
{
        const char *sign = d < 0 ? "-" : "";
        int e;

        d = fabs(d);
        if (d < 9.2e18) {
                snprintf(out, n, "%s0x%llx", sign, (unsigned long long)d);
                return;
        }
        double m = frexp(d, &e);        /* d = m * 2^e, 0.5 <= m < 1, e > 63 */
        unsigned long long mant = (unsigned long long)ldexp(m, 53);
        int shift = e - 53;
        int zeros = shift / 4;
        int len = snprintf(out, n, "%s0x%llx", sign, mant << (shift % 4));
        for (int i = 0; i < zeros && (size_t)(len + i) + 1 < n; i++) {
                out[len + i] = '0';
                out[len + i + 1] = '\0';
        }
}

static double as_double(const cJSON *v)
{
        enum py_kind k = kind_of(v);

        if (k == PY_BOOL)
                return cJSON_IsTrue(v) ? 1.0 : 0.0;
        if (k == PY_INT || k == PY_FLOAT || k == PY_COMPLEX)
                return strtod(payload(v, 0), NULL);     /* strtod reads hex and inf/nan */
        return NAN;
}

/* int == float, exactly as Python compares them. */
static bool hex_eq_float(const char *int_hex_text, double d)
{
        char hex[400];

        if (!isfinite(d) || floor(d) != d)
                return false;
        float_hex(d, hex, sizeof(hex));
        if (!strcmp(hex, "-0x0"))
                hex[0] = '0', hex[1] = 'x', hex[2] = '0', hex[3] = '\0';
        return !strcmp(int_hex_text, hex);
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
                return as_double(a) == as_double(b);
        return ka == PY_FLOAT ? int_eq_float(b, as_double(a)) : int_eq_float(a, as_double(b));
}

static bool num_eq(const cJSON *a, enum py_kind ka, const cJSON *b, enum py_kind kb)
{
        if (ka == PY_COMPLEX && kb == PY_COMPLEX)
                return strtod(payload(a, 0), NULL) == strtod(payload(b, 0), NULL) &&
                       strtod(payload(a, 1), NULL) == strtod(payload(b, 1), NULL);
        if (ka == PY_COMPLEX || kb == PY_COMPLEX) {
                const cJSON *c = ka == PY_COMPLEX ? a : b, *r = ka == PY_COMPLEX ? b : a;
                enum py_kind kr = ka == PY_COMPLEX ? kb : ka;
                if (strtod(payload(c, 1), NULL) != 0)
                        return false;
                double re = strtod(payload(c, 0), NULL);
                return kr == PY_FLOAT ? re == as_double(r) : int_eq_float(r, re);
        }
        return real_eq(a, ka, b, kb);
}

static const cJSON *items(const cJSON *v)
{
        return v->child ? v->child->next : NULL;
}

/* 'n' for a packed sequence, else 0. */
static char packed(const cJSON *v)
{
        const cJSON *t = cJSON_IsArray(v) ? v->child : NULL;

        if (!cJSON_IsString(t) || strlen(t->valuestring) != 2 || !cJSON_IsString(t->next))
                return 0;
        return t->valuestring[1];
}

static size_t seq_len(const cJSON *v)
{
        size_t n = 0;

        if (!packed(v))
                return (size_t)cJSON_GetArraySize(v) - 1;
        for (const char *p = payload(v, 0); *p; p++)
                n += *p == ' ';
        return n + 1;
}

/* A packed sequence as the general form (a new tree; NULL on no memory). */
static cJSON *expand(const cJSON *v)
{
        char tag[2] = { v->child->valuestring[0], '\0' };
        cJSON *out = cJSON_CreateArray();
        auto_free char *copy = strdup(payload(v, 0));
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
        const char *p = payload(a, 0), *q = payload(b, 0);

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
        char pa = packed(a), pb = packed(b);
        cJSON *ea, *eb;
        bool eq;

        if (pa && pb)
                return packed_cmp(a, b, false, 0);
        ea = pa ? expand(a) : NULL;
        eb = pb ? expand(b) : NULL;
        eq = (!pa || ea) && (!pb || eb) && evalplus_py_eq(ea ? ea : a, eb ? eb : b);
        cJSON_Delete(ea);
        cJSON_Delete(eb);
        return eq;
}

static bool seq_eq(const cJSON *a, const cJSON *b)
{
        const cJSON *x = items(a), *y = items(b);

        for (; x && y; x = x->next, y = y->next)
                if (!evalplus_py_eq(x, y))
                        return false;
        return !x && !y;
}

static bool contains(const cJSON *coll, const cJSON *hint, const cJSON *x)
{
        if (hint && evalplus_py_eq(hint, x))
                return true;
        for (const cJSON *y = items(coll); y; y = y->next)
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
        const cJSON *y = items(b);
        for (const cJSON *x = items(a); x; x = x->next, y = y ? y->next : NULL)
                if (!contains(b, y, x))
                        return false;
        return true;
}

static const cJSON *dict_get(const cJSON *d, const cJSON *hint, const cJSON *key)
{
        if (hint && evalplus_py_eq(cJSON_GetArrayItem(hint, 0), key))
                return cJSON_GetArrayItem(hint, 1);
        for (const cJSON *p = items(d); p; p = p->next)
                if (evalplus_py_eq(cJSON_GetArrayItem(p, 0), key))
                        return cJSON_GetArrayItem(p, 1);
        return NULL;
}

static bool dict_eq(const cJSON *a, const cJSON *b)
{
        if (cJSON_GetArraySize(a) != cJSON_GetArraySize(b))
                return false;
        const cJSON *hint = items(b);
        for (const cJSON *p = items(a); p; p = p->next, hint = hint ? hint->next : NULL) {
                const cJSON *v = dict_get(b, hint, cJSON_GetArrayItem(p, 0));
                if (!v || !evalplus_py_eq(cJSON_GetArrayItem(p, 1), v))
                        return false;
        }
        return true;
}

bool evalplus_py_eq(const cJSON *a, const cJSON *b)
{
        enum py_kind ka = kind_of(a), kb = kind_of(b);

        if (ka == PY_BAD || kb == PY_BAD)
                return false;
        if (packed(a) || packed(b))
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
        case PY_BYTES: case PY_DIGEST: return !strcmp(payload(a, 0), payload(b, 0));
        case PY_LIST: case PY_TUPLE: return seq_eq(a, b);
        case PY_DICT: return dict_eq(a, b);
        default: return false;
        }
}

/* ---- np.allclose(out, exp, rtol=1e-07, atol=atol) ---- */

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
static bool allclose(const cJSON *out, const cJSON *exp, double atol)
{
        enum py_kind ko = kind_of(out), ke = kind_of(exp);

        if (packed(out) && packed(exp))
                return packed_cmp(out, exp, true, atol);
        if (packed(out) || packed(exp)) {
                cJSON *eo = packed(out) ? expand(out) : NULL, *ee = packed(exp) ? expand(exp) : NULL;
                bool ok = (!packed(out) || eo) && (!packed(exp) || ee) &&
                          allclose(eo ? eo : out, ee ? ee : exp, atol);
                cJSON_Delete(eo);
                cJSON_Delete(ee);
                return ok;
        }
        if ((ko == PY_LIST || ko == PY_TUPLE) && (ke == PY_LIST || ke == PY_TUPLE)) {
                const cJSON *x = items(out), *y = items(exp);
                for (; x && y; x = x->next, y = y->next)
                        if (!allclose(x, y, atol))
                                return false;
                return !x && !y;
        }
        if (ko == PY_COMPLEX || ke == PY_COMPLEX) {
                double ar = as_double(out), br = as_double(exp);
                double ai = ko == PY_COMPLEX ? strtod(payload(out, 1), NULL) : 0;
                double bi = ke == PY_COMPLEX ? strtod(payload(exp, 1), NULL) : 0;
                double d = hypot(ar - br, ai - bi);
                return !isnan(d) && d <= atol + EVALPLUS_RTOL * hypot(br, bi);
        }
        if (!is_number(ko) || !is_number(ke))
                return false;
        return isclose(as_double(out), as_double(exp), atol);
}

/* evalplus's is_floats: a float, or a non-empty list or tuple of floats. */
static bool is_floats(const cJSON *v)
{
        enum py_kind k = kind_of(v);

        if (k == PY_FLOAT)
                return true;
        if (packed(v))
                return !strchr(payload(v, 0), 'x');
        if ((k != PY_LIST && k != PY_TUPLE) || !items(v))
                return false;
        for (const cJSON *x = items(v); x; x = x->next)
                if (kind_of(x) != PY_FLOAT)
                        return false;
        return true;
}

/* ---- special oracles (evalplus/eval/_special_oracle.py) ---- */

enum evalplus_oracle evalplus_oracle_for(enum evalplus_dataset ds, const char *entry_point)
{
        static const char *const set_eq[] = {
                "similar_elements", "find_char_long", "common_in_nested_lists",
                "extract_singly", "larg_nnum", "intersection_array",
                "find_dissimilar", "Diff", NULL,
        };
        static const char *const not_none[] = {
                "check_str", "text_match_three", "text_starta_endb", NULL,
        };

        if (ds == EVALPLUS_HUMANEVAL)
                return strcmp(entry_point, "find_zero") ? EP_ORACLE_NONE : EP_ORACLE_FIND_ZERO;
        if (!strcmp(entry_point, "are_equivalent"))
                return EP_ORACLE_ALWAYS;
        if (!strcmp(entry_point, "sum_div"))
                return EP_ORACLE_SUM_DIV;
        if (!strcmp(entry_point, "surface_Area"))
                return EP_ORACLE_SURFACE_AREA;
        if (!strcmp(entry_point, "digit_distance_nums"))
                return EP_ORACLE_DIGIT_DISTANCE;
        for (const char *const *p = set_eq; *p; p++)
                if (!strcmp(entry_point, *p))
                        return EP_ORACLE_SET_EQ;
        for (const char *const *p = not_none; *p; p++)
                if (!strcmp(entry_point, *p))
                        return EP_ORACLE_NOT_NONE;
        return EP_ORACLE_NONE;
}

/* A number Python's math functions accept (int, bool, float), as a double. */
static bool real_arg(const cJSON *v, double *d)
{
        enum py_kind k = kind_of(v);

        if (cJSON_IsNumber(v)) {                /* an input, plain JSON */
                *d = v->valuedouble;
                return true;
        }
        if (k != PY_BOOL && k != PY_INT && k != PY_FLOAT)
                return false;
        *d = as_double(v);
        return true;
}

/* HumanEval/32: abs(_poly(xs, out)) <= atol, with math.pow (which raises
 * on overflow: then the input fails). */
static bool find_zero_ok(const cJSON *out, const cJSON *args, double atol,
                         char *why, size_t why_len)
{
        const cJSON *xs = cJSON_GetArrayItem(args, 0), *c;
        double x, sum = 0;
        int i = 0;

        if (!real_arg(out, &x) || !cJSON_IsArray(xs)) {
                snprintf(why, why_len, "find_zero: the output is not a real number");
                return false;
        }
        cJSON_ArrayForEach(c, xs) {
                double p = pow(x, i++);
                if (!cJSON_IsNumber(c) || (isinf(p) && isfinite(x)))
                        return false;
                sum += c->valuedouble * p;
        }
        if (fabs(sum) <= atol)
                return true;
        snprintf(why, why_len, "find_zero: |poly(xs, %.17g)| = %g > %g", x, fabs(sum), atol);
        return false;
}

/* Mbpp/581: round() of the pyramid's surface with its height as given. */
static bool surface_area(const cJSON *args, double *area)
{
        double b, h;

        if (!real_arg(cJSON_GetArrayItem(args, 0), &b) ||
            !real_arg(cJSON_GetArrayItem(args, 1), &h))
                return false;
        double slant = sqrt((b / 2) * (b / 2) + h * h);
        *area = nearbyint(b * b + 4 * (b * slant) / 2);         /* round half to even */
        return isfinite(*area);
}

/* Mbpp/558: digits of str(num) padded with zeros; a sign fails as int('-')
 * raises. */
static bool digit_distance(const cJSON *args, long long *total)
{
        char a[64], b[64];
        const cJSON *x = cJSON_GetArrayItem(args, 0), *y = cJSON_GetArrayItem(args, 1);

        if (!cJSON_IsNumber(x) || !cJSON_IsNumber(y) || x->valuedouble < 0 ||
            y->valuedouble < 0 || x->valuedouble > 1e18 || y->valuedouble > 1e18)
                return false;
        snprintf(a, sizeof(a), "%.0f", x->valuedouble);
        snprintf(b, sizeof(b), "%.0f", y->valuedouble);
        size_t la = strlen(a), lb = strlen(b), n = la > lb ? la : lb;
        *total = 0;
        for (size_t i = 0; i < n; i++) {
                int da = i + la >= n ? a[i + la - n] - '0' : 0;
                int db = i + lb >= n ? b[i + lb - n] - '0' : 0;
                *total += da > db ? da - db : db - da;
        }
        return true;
}

static bool hashable(const cJSON *v)
{
        enum py_kind k = kind_of(v);

        if (k == PY_LIST || k == PY_DICT || k == PY_SET || k == PY_BAD)
                return false;
        if (packed(v))
                return true;
        if (k == PY_TUPLE || k == PY_FROZENSET)
                for (const cJSON *x = items(v); x; x = x->next)
                        if (!hashable(x))
                                return false;
        return true;
}

/* set(out) == set(exp): out a list, tuple or set of hashable values (set()
 * of anything else raises, or is not what the task returns: it fails). */
static bool set_of_eq_plain(const cJSON *out, const cJSON *exp, bool *ok)
{
        const cJSON *v[2] = { out, exp };

        for (int i = 0; i < 2; i++) {
                enum py_kind k = kind_of(v[i]);
                if (k != PY_LIST && k != PY_TUPLE && k != PY_SET && k != PY_FROZENSET)
                        return *ok = false;
                for (const cJSON *x = items(v[i]); x; x = x->next)
                        if (!hashable(x))
                                return *ok = false;
        }
        *ok = true;
        for (int i = 0; i < 2; i++)
                for (const cJSON *x = items(v[i]); x; x = x->next)
                        if (!contains(v[1 - i], NULL, x))
                                return false;
        return true;
}

static bool set_of_eq(const cJSON *out, const cJSON *exp, bool *ok)
{
        cJSON *eo = packed(out) ? expand(out) : NULL, *ee = packed(exp) ? expand(exp) : NULL;
        bool eq = set_of_eq_plain(eo ? eo : out, ee ? ee : exp, ok);

        cJSON_Delete(eo);
        cJSON_Delete(ee);
        return eq;
}

static cJSON *tagged_int(long long n)
{
        char hex[40];
        cJSON *v = cJSON_CreateArray();

        snprintf(hex, sizeof(hex), "%s0x%llx", n < 0 ? "-" : "", (unsigned long long)llabs(n));
        cJSON_AddItemToArray(v, cJSON_CreateString("i"));
        cJSON_AddItemToArray(v, cJSON_CreateString(hex));
        return v;
}

static bool eq_int(const cJSON *out, long long n)
{
        cJSON *v = tagged_int(n);
        bool eq = evalplus_py_eq(out, v);

        cJSON_Delete(v);
        return eq;
}

/* exact_match as evalplus's MBPP oracles leave it; false when the oracle
 * itself raises (the input fails). */
static bool oracle_match(const struct evalplus_judge *j, const cJSON *out,
                         const cJSON *exp, const cJSON *args, bool *exact)
{
        double area, o;
        long long dist;
        bool ok;

        *exact = evalplus_py_eq(out, exp);
        switch (j->oracle) {
        case EP_ORACLE_ALWAYS:
                *exact = true;
                return true;
        case EP_ORACLE_SUM_DIV:
                *exact = *exact || eq_int(out, 0);
                return true;
        case EP_ORACLE_SURFACE_AREA:
                if (*exact)
                        return true;
                if (!surface_area(args, &area) || !real_arg(out, &o))
                        return false;
                *exact = fabs(o - area) <= j->atol;
                return true;
        case EP_ORACLE_DIGIT_DISTANCE:
                if (*exact)
                        return true;
                if (!digit_distance(args, &dist))
                        return false;
                *exact = eq_int(out, dist);
                return true;
        case EP_ORACLE_SET_EQ:
                *exact = set_of_eq(out, exp, &ok);
                return ok;
        case EP_ORACLE_NOT_NONE:
                if (kind_of(out) != PY_BOOL)
                        *exact = cJSON_IsTrue(exp) == !cJSON_IsNull(out);
                return true;
        default:
                return true;
        }
}

bool evalplus_judge_value(struct evalplus_judge *j, const cJSON *out, const cJSON *exp,
                          const cJSON *args, char *why, size_t why_len)
{
        bool exact;

        snprintf(why, why_len, "output differs from the expected one");
        if (j->oracle == EP_ORACLE_FIND_ZERO)
                return find_zero_ok(out, args, j->atol, why, why_len);
        if (!oracle_match(j, out, exp, args, &exact))
                return false;
        if (j->atol == 0 && is_floats(exp))
                j->atol = EVALPLUS_FLOAT_ATOL;
        if (exact || j->atol == 0)
                return exact;
        /* assert type(out) == type(exp); len(out) == len(exp) for sequences */
        if (kind_of(out) != kind_of(exp) ||
            ((kind_of(exp) == PY_LIST || kind_of(exp) == PY_TUPLE) &&
             seq_len(out) != seq_len(exp)))
                return false;
        if (allclose(out, exp, j->atol))
                return true;
        snprintf(why, why_len, "output not close to the expected one (atol %g, rtol %g)",
                 j->atol, EVALPLUS_RTOL);
        return false;
}
