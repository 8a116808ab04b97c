/* Numbers as the judges read them: testlib's strict doubles and its
 * doubleCompare, Python's float() syntax and SandboxFusion's float_equal,
 * and Python's Decimal equality (LiveCodeBench). Each reads a token that is
 * already cut out (no surrounding whitespace). */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"

/* strtod on a copy of s[0..n) without underscores; digits-only syntax
 * has been checked by the caller, so hex floats never reach it. */
static double to_double(const char *s, size_t n)
{
        char buf[512];
        size_t k = 0;

        for (size_t i = 0; i < n && k + 1 < sizeof(buf); i++)
                if (s[i] != '_')
                        buf[k++] = s[i];
        buf[k] = '\0';
        return strtod(buf, NULL);
}

/* digits, with single underscores between them when py is set: returns
 * the count of digits and advances *i. */
static size_t scan_digits(const char *s, size_t n, size_t *i, bool py)
{
        size_t count = 0;

        while (*i < n) {
                if (isdigit((unsigned char)s[*i])) {
                        count++;
                        (*i)++;
                } else if (py && s[*i] == '_' && count > 0 && *i + 1 < n &&
                           isdigit((unsigned char)s[*i + 1])) {
                        (*i)++;
                } else {
                        break;
                }
        }
        return count;
}

/* [+-] (digits [. digits?] | . digits) ([eE] [+-] digits)? to the end. */
static bool decimal_syntax(const char *s, size_t n, bool py)
{
        size_t i = 0, whole, frac = 0;

        if (i < n && (s[i] == '+' || s[i] == '-'))
                i++;
        whole = scan_digits(s, n, &i, py);
        if (i < n && s[i] == '.') {
                i++;
                frac = scan_digits(s, n, &i, py);
        }
        if (whole + frac == 0)
                return false;
        if (i < n && (s[i] == 'e' || s[i] == 'E')) {
                i++;
                if (i < n && (s[i] == '+' || s[i] == '-'))
                        i++;
                if (scan_digits(s, n, &i, py) == 0)
                        return false;
        }
        return i == n;
}

int io_number_strict(const char *s, size_t n, double *v)
{
        if (n == 0 || n >= 512 || !decimal_syntax(s, n, false))
                return 0;
        *v = to_double(s, n);
        return 1;
}

/* testlib.h's doubleCompare: MAX_DOUBLE_ERROR += 1E-15, NaN only equals
 * NaN, beyond +-1E300 is infinity, then the absolute bound, then the
 * relative one as a range around the expected value. */
bool io_double_close(double expected, double found, double abs_tol, double rel_tol)
{
        abs_tol += 1e-15;
        rel_tol += 1e-15;
        if (isnan(expected))
                return isnan(found);
        if (expected > 1e300 || expected < -1e300)
                return expected > 0 ? found > 1e300 : found < -1e300;
        if (isnan(found) || found > 1e300 || found < -1e300)
                return false;
        if (fabs(found - expected) <= abs_tol)
                return true;
        double a = expected * (1.0 - rel_tol), b = expected * (1.0 + rel_tol);
        return found >= fmin(a, b) && found <= fmax(a, b);
}

static bool word_is(const char *s, size_t n, const char *w)
{
        return strlen(w) == n && strncasecmp(s, w, n) == 0;
}

int io_number_pyfloat(const char *s, size_t n, double *v)
{
        size_t sign = n > 0 && (s[0] == '+' || s[0] == '-');
        const char *w = s + sign;
        size_t wn = n - sign;

        if (word_is(w, wn, "inf") || word_is(w, wn, "infinity")) {
                *v = s[0] == '-' ? -INFINITY : INFINITY;
                return 1;
        }
        if (word_is(w, wn, "nan")) {
                *v = NAN;
                return 1;
        }
        if (n == 0 || n >= 512 || !decimal_syntax(s, n, true))
                return 0;
        *v = to_double(s, n);
        return 1;
}

bool io_sandboxfusion_float_equal(double a, double b)
{
        double m = fabs(b);

        if (1e-10 > m)          /* Python's max(abs(b), 1e-10): NaN stays */
                m = 1e-10;
        return fabs(a - b) / m < IO_SANDBOXFUSION_REL;
}

/* Drops every '_' (Decimal's constructor does) in place; the new length. */
static size_t drop_underscores(char *s, size_t n)
{
        size_t k = 0;

        for (size_t i = 0; i < n; i++)
                if (s[i] != '_')
                        s[k++] = s[i];
        return k;
}

/* Infinity, Inf, NaN, sNaN and NaN with diagnostic digits, any case. */
static int decimal_special(const char *s, size_t n, struct io_decimal *d)
{
        if (word_is(s, n, "inf") || word_is(s, n, "infinity")) {
                d->kind = 1;
                return 1;
        }
        size_t skip = (n > 0 && (s[0] == 's' || s[0] == 'S')) ? 1 : 0;
        if (n >= skip + 3 && strncasecmp(s + skip, "nan", 3) == 0) {
                for (size_t i = skip + 3; i < n; i++)
                        if (!isdigit((unsigned char)s[i]))
                                return 0;
                d->kind = 2;
                return 1;
        }
        return 0;
}

static int parse_exponent(const char *s, size_t n, int64_t *e)
{
        bool neg = n > 0 && s[0] == '-';
        size_t i = (n > 0 && (s[0] == '-' || s[0] == '+')) ? 1 : 0;
        int64_t v = 0;

        if (i == n)
                return 0;
        for (; i < n; i++) {
                if (!isdigit((unsigned char)s[i]))
                        return 0;
                if (v > 100000000000000000LL)   /* past 10^17: not compared */
                        return 0;
                v = v * 10 + (s[i] - '0');
        }
        *e = neg ? -v : v;
        return 1;
}

/* Moves the digits together (dropping the point), strips zeros, sets
 * digits, n_digits and the exponent's fraction part. */
static int decimal_digits(char *s, size_t n, struct io_decimal *d)
{
        size_t k = 0, frac = 0, i;
        bool point = false;

        for (i = 0; i < n; i++) {
                if (isdigit((unsigned char)s[i])) {
                        s[k++] = s[i];
                        frac += point;
                } else if (s[i] == '.' && !point) {
                        point = true;
                } else {
                        return 0;
                }
        }
        if (k == 0)
                return 0;
        d->exponent -= (int64_t)frac;
        size_t lead = 0;
        while (lead < k && s[lead] == '0')
                lead++;
        while (k > lead && s[k - 1] == '0') {
                k--;
                d->exponent++;
        }
        d->digits = s + lead;
        d->n_digits = k - lead;
        return 1;
}

int io_decimal_parse(char *s, size_t n, struct io_decimal *d)
{
        size_t e_at;
        int64_t e = 0;

        memset(d, 0, sizeof(*d));
        n = drop_underscores(s, n);
        if (n > 0 && (s[0] == '+' || s[0] == '-')) {
                d->negative = s[0] == '-';
                s++;
                n--;
        }
        if (decimal_special(s, n, d))
                return 1;
        for (e_at = 0; e_at < n && s[e_at] != 'e' && s[e_at] != 'E'; e_at++)
                ;
        if (e_at < n && !parse_exponent(s + e_at + 1, n - e_at - 1, &e))
                return 0;
        d->exponent = e;
        return decimal_digits(s, e_at, d);
}

bool io_decimal_equal(const struct io_decimal *a, const struct io_decimal *b)
{
        if (a->kind == 2 || b->kind == 2)
                return false;
        if (a->kind != b->kind)
                return false;
        if (a->kind == 1)
                return a->negative == b->negative;
        if (a->n_digits == 0 || b->n_digits == 0)
                return a->n_digits == b->n_digits;     /* zero equals zero, any sign */
        return a->negative == b->negative && a->exponent == b->exponent &&
               a->n_digits == b->n_digits && memcmp(a->digits, b->digits, a->n_digits) == 0;
}
