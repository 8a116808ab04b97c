/* evalplus's special oracles (evalplus/eval/_special_oracle.py) and the
 * judge that applies them, or the plain rules, to one output. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "evalplus.h"
#include "evalplus_value.h"
#include "suite.h"
#include "util.h"

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
        enum py_kind k = ep_kind_of(v);

        if (cJSON_IsNumber(v)) {                /* an input, plain JSON */
                *d = v->valuedouble;
                return true;
        }
        if (k != PY_BOOL && k != PY_INT && k != PY_FLOAT)
                return false;
        *d = ep_as_double(v);
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
        enum py_kind k = ep_kind_of(v);

        if (k == PY_LIST || k == PY_DICT || k == PY_SET || k == PY_BAD)
                return false;
        if (ep_packed(v))
                return true;
        if (k == PY_TUPLE || k == PY_FROZENSET)
                for (const cJSON *x = ep_items(v); x; x = x->next)
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
                enum py_kind k = ep_kind_of(v[i]);
                if (k != PY_LIST && k != PY_TUPLE && k != PY_SET && k != PY_FROZENSET)
                        return *ok = false;
                for (const cJSON *x = ep_items(v[i]); x; x = x->next)
                        if (!hashable(x))
                                return *ok = false;
        }
        *ok = true;
        for (int i = 0; i < 2; i++)
                for (const cJSON *x = ep_items(v[i]); x; x = x->next)
                        if (!ep_contains(v[1 - i], NULL, x))
                                return false;
        return true;
}

static bool set_of_eq(const cJSON *out, const cJSON *exp, bool *ok)
{
        cJSON *eo = ep_packed(out) ? ep_expand(out) : NULL, *ee = ep_packed(exp) ? ep_expand(exp) : NULL;
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
                if (ep_kind_of(out) != PY_BOOL)
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
        if (j->atol == 0 && ep_is_floats(exp))
                j->atol = EVALPLUS_FLOAT_ATOL;
        if (exact || j->atol == 0)
                return exact;
        /* assert type(out) == type(exp); len(out) == len(exp) for sequences */
        if (ep_kind_of(out) != ep_kind_of(exp) ||
            ((ep_kind_of(exp) == PY_LIST || ep_kind_of(exp) == PY_TUPLE) &&
             ep_seq_len(out) != ep_seq_len(exp)))
                return false;
        if (ep_allclose(out, exp, j->atol))
                return true;
        snprintf(why, why_len, "output not close to the expected one (atol %g, rtol %g)",
                 j->atol, EVALPLUS_RTOL);
        return false;
}

struct evalplus_judge evalplus_judge_for(const struct suite *s, size_t task)
{
        const cJSON *pb = s->tasks[task].problem;
        const cJSON *atol = cJSON_GetObjectItemCaseSensitive(pb, "atol");
        struct evalplus_judge j = {
                evalplus_oracle_for(s->evalplus->dataset, json_get_str(pb, "entry_point", "")),
                cJSON_IsNumber(atol) ? atol->valuedouble : 0,
        };

        return j;
}
