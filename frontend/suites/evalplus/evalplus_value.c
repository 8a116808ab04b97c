/* The serialized Python values (the form is described at the top of
 * evalplus_compare.c): what a value is and what it holds. The bottom layer
 * of the comparator, the digests and the oracles. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "evalplus_value.h"

enum py_kind ep_kind_of(const cJSON *v)
{
        static const struct { char tag; enum py_kind kind; } tags[] = {
                { 'i', PY_INT }, { 'f', PY_FLOAT }, { 'c', PY_COMPLEX },
                { 'b', PY_BYTES }, { 'l', PY_LIST }, { 't', PY_TUPLE },
                { 'd', PY_DICT }, { 's', PY_SET }, { 'z', PY_FROZENSET },
                { 'h', PY_DIGEST }, { 'k', PY_CANON },
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

const char *ep_payload(const cJSON *v, int i)
{
        const cJSON *p = cJSON_GetArrayItem(v, i + 1);
        return cJSON_IsString(p) ? p->valuestring : "";
}

const cJSON *ep_items(const cJSON *v)
{
        return v->child ? v->child->next : NULL;
}

/* 'n' for a packed sequence, else 0. */
char ep_packed(const cJSON *v)
{
        const cJSON *t = cJSON_IsArray(v) ? v->child : NULL;

        if (!cJSON_IsString(t) || strlen(t->valuestring) != 2 || !cJSON_IsString(t->next))
                return 0;
        return t->valuestring[1];
}

/* evalplus's is_floats: a float, or a non-empty list or tuple of floats. */
bool ep_is_floats(const cJSON *v)
{
        enum py_kind k = ep_kind_of(v);

        if (k == PY_FLOAT)
                return true;
        if (ep_packed(v))
                return !strchr(ep_payload(v, 0), 'x');
        if ((k != PY_LIST && k != PY_TUPLE) || !ep_items(v))
                return false;
        for (const cJSON *x = ep_items(v); x; x = x->next)
                if (ep_kind_of(x) != PY_FLOAT)
                        return false;
        return true;
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

bool ep_integral_hex(double d, char *out, size_t n)
{
        if (!isfinite(d) || floor(d) != d)
                return false;
        float_hex(d == 0 ? 0.0 : d, out, n);           /* -0.0 is 0 */
        return true;
}
