/* Expected values kept as a digest of their canonical form: the cached
 * ground truth holds a large value as ["k", sha256] where the comparison is
 * Python's == and nothing else, and a sample's value is compared by
 * computing the same digest of it here, outside the sandbox.
 *
 * The canonical form is one text per class of values that Python's ==
 * makes equal (for the closed set of types the driver sends): a number by
 * its mathematical value (True, 1, 1.0 and 1+0j are "I0x1;"; other floats
 * by their exact hex, C's %a), str and bytes by their contents, list and
 * tuple as tagged sequences, set and frozenset as one tag over the sorted
 * digests of their elements, dicts over the sorted (key, value) digests.
 * So two values have the same digest exactly when evalplus_py_eq holds.
 * NaN has no canonical form (it equals nothing, not even itself): a value
 * holding one is never digested, and a sample's never matches. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "evalplus.h"
#include "evalplus_value.h"
#include "sha256.h"

#define HEX SHA256_HEX_LEN         /* a digest as stored and sorted: hex */

static void feed(struct sha256 *h, const char *s)
{
        sha256_update(h, s, strlen(s));
}

/* A float by its value: an integral one as the int it equals (1.0 == 1),
 * any other by its exact hex (%a). */
static bool feed_double(struct sha256 *h, double d)
{
        char text[420];

        if (isnan(d))
                return false;
        if (ep_integral_hex(d, text + 1, sizeof(text) - 2))
                text[0] = 'I';
        else
                snprintf(text, sizeof(text), "F%a", d);
        strcat(text, ";");
        feed(h, text);
        return true;
}

static bool feed_int_text(struct sha256 *h, const char *hex)
{
        feed(h, "I");
        feed(h, hex);
        feed(h, ";");
        return true;
}

/* A packed token: ints carry an 'x' ("0x1f"), floats are repr. */
static bool feed_token(struct sha256 *h, const char *tok, size_t n)
{
        char buf[400];

        if (n >= sizeof(buf))
                return false;
        memcpy(buf, tok, n);
        buf[n] = '\0';
        return memchr(tok, 'x', n) ? feed_int_text(h, buf) : feed_double(h, strtod(buf, NULL));
}

static bool feed_complex(struct sha256 *h, const cJSON *v)
{
        double re = strtod(cJSON_GetStringValue(cJSON_GetArrayItem(v, 1)) ?: "", NULL);
        double im = strtod(cJSON_GetStringValue(cJSON_GetArrayItem(v, 2)) ?: "", NULL);
        char text[200];

        if (isnan(re) || isnan(im))
                return false;
        if (im == 0)
                return feed_double(h, re);      /* complex(2, 0) == 2 */
        snprintf(text, sizeof(text), "C%a,%a;", re + 0.0, im + 0.0);  /* -0.0 == 0.0 */
        feed(h, text);
        return true;
}

static bool feed_value(struct sha256 *h, const cJSON *v);

/* A set's element digests, or a dict's entries by their key digest. */
static int cmp_digest(const void *a, const void *b)
{
        return memcmp(a, b, HEX);
}

/* Sets and dicts: the sorted digests of their elements (a dict's key digest
 * first, then its value's), so that order does not count. */
static bool feed_unordered(struct sha256 *h, const cJSON *v, bool dict)
{
        size_t n = 0, width = HEX * (dict ? 2 : 1), i = 0;
        char head[32];

        for (const cJSON *x = ep_items(v); x; x = x->next)
                n++;
        unsigned char *all = calloc(n + 1, width);
        if (!all)
                return false;
        for (const cJSON *x = ep_items(v); x; x = x->next, i++) {
                unsigned char *slot = all + i * width;
                const cJSON *key = dict ? cJSON_GetArrayItem(x, 0) : x;
                if (!ep_canon_digest_raw(key, slot) ||
                    (dict && !ep_canon_digest_raw(cJSON_GetArrayItem(x, 1), slot + HEX))) {
                        free(all);
                        return false;
                }
        }
        /* a set's elements are distinct, and a dict's keys: the order is total */
        qsort(all, n, width, cmp_digest);
        snprintf(head, sizeof(head), "%c%zu:", dict ? 'D' : 'Z', n);
        feed(h, head);
        sha256_update(h, all, n * width);
        free(all);
        return true;
}

static bool feed_sequence(struct sha256 *h, const cJSON *v, char tag)
{
        const char open[3] = { tag == 'l' ? 'L' : 'T', '[', '\0' };

        feed(h, open);
        if (ep_packed(v)) {
                const char *p = cJSON_GetStringValue(cJSON_GetArrayItem(v, 1));
                for (;;) {
                        size_t n = strcspn(p, " ");
                        if (!feed_token(h, p, n))
                                return false;
                        if (!p[n])
                                break;
                        p += n + 1;
                }
        } else {
                for (const cJSON *x = ep_items(v); x; x = x->next)
                        if (!feed_value(h, x))
                                return false;
        }
        feed(h, "]");
        return true;
}

static bool feed_value(struct sha256 *h, const cJSON *v)
{
        const char *p1 = cJSON_GetStringValue(cJSON_GetArrayItem(v, 1));
        char head[32];

        switch (ep_kind_of(v)) {
        case PY_NONE: feed(h, "N"); return true;
        case PY_BOOL: return feed_int_text(h, cJSON_IsTrue(v) ? "0x1" : "0x0");
        case PY_INT: return p1 && feed_int_text(h, p1);
        case PY_FLOAT: return p1 && feed_double(h, strtod(p1, NULL));
        case PY_COMPLEX: return feed_complex(h, v);
        case PY_STR:
                snprintf(head, sizeof(head), "S%zu:", strlen(v->valuestring));
                feed(h, head);
                feed(h, v->valuestring);
                return true;
        case PY_BYTES:
                if (!p1)
                        return false;
                feed(h, "B");
                feed(h, p1);
                feed(h, ";");
                return true;
        case PY_LIST: return feed_sequence(h, v, 'l');
        case PY_TUPLE: return feed_sequence(h, v, 't');
        case PY_SET: case PY_FROZENSET: return feed_unordered(h, v, false);
        case PY_DICT: return feed_unordered(h, v, true);
        default: return false;          /* a text digest, a digest, junk */
        }
}

/* The digest in hex (64 bytes, no NUL), sortable as bytes. */
bool ep_canon_digest_raw(const cJSON *v, unsigned char out[SHA256_HEX_LEN])
{
        char hex[SHA256_HEX_LEN + 1];
        struct sha256 h;

        sha256_init(&h);
        if (!feed_value(&h, v))
                return false;
        sha256_hex(&h, hex);
        memcpy(out, hex, SHA256_HEX_LEN);
        return true;
}

bool evalplus_canon_digest(const cJSON *v, char out[SHA256_HEX_LEN + 1])
{
        if (!ep_canon_digest_raw(v, (unsigned char *)out))
                return false;
        out[SHA256_HEX_LEN] = '\0';
        return true;
}

/* out == exp where exp is ["k", digest]. */
bool ep_canon_eq(const cJSON *out, const cJSON *canon)
{
        char hex[SHA256_HEX_LEN + 1];
        const char *want = cJSON_GetStringValue(cJSON_GetArrayItem(canon, 1));

        return want && evalplus_canon_digest(out, hex) && !strcmp(hex, want);
}

static cJSON *canon_value(const cJSON *v)
{
        char hex[SHA256_HEX_LEN + 1];
        cJSON *k;

        if (!evalplus_canon_digest(v, hex) || !(k = cJSON_CreateArray()))
                return NULL;
        if (!cJSON_AddItemToArray(k, cJSON_CreateString("k")) ||
            !cJSON_AddItemToArray(k, cJSON_CreateString(hex))) {
                cJSON_Delete(k);
                return NULL;
        }
        return k;
}

/* The judge only ever asks == of a value when no tolerance can apply to
 * it: no special oracle, the task's atol 0, and no float expected so far in
 * the phase (evalplus_judge_value makes atol 1e-6 from the first one on). */
void evalplus_truth_compact(cJSON *values, enum evalplus_oracle oracle, double atol,
                            size_t above_bytes)
{
        cJSON *v = values ? values->child : NULL;

        for (; v && oracle == EP_ORACLE_NONE && atol == 0; v = v->next) {
                if (ep_is_floats(v))
                        break;
                char *text = cJSON_PrintUnformatted(v);
                size_t len = text ? strlen(text) : 0;
                free(text);
                cJSON *k = len > above_bytes ? canon_value(v) : NULL;
                if (k) {
                        cJSON_ReplaceItemViaPointer(values, v, k);
                        v = k;
                }
        }
}
