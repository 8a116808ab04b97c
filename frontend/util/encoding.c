/* UTF-8 validation as RFC 3629 defines it, and the U+FFFD repair Python's
 * errors="replace" makes (one replacement per invalid byte). */
#include <stdlib.h>
#include <string.h>

#include "utf8.h"

static const char replacement[] = "\xef\xbf\xbd";       /* U+FFFD */

size_t utf8_seq_len(const unsigned char *p, size_t n)
{
        size_t len;
        unsigned lo = 0x80, hi = 0xbf;

        if (p[0] < 0x80)
                return 1;
        if (p[0] >= 0xc2 && p[0] <= 0xdf)
                len = 2;
        else if (p[0] >= 0xe0 && p[0] <= 0xef)
                len = 3;
        else if (p[0] >= 0xf0 && p[0] <= 0xf4)
                len = 4;
        else
                return 0;
        /* the second byte's range rules out overlongs, surrogates, > U+10FFFF */
        if (p[0] == 0xe0)
                lo = 0xa0;
        else if (p[0] == 0xed)
                hi = 0x9f;
        else if (p[0] == 0xf0)
                lo = 0x90;
        else if (p[0] == 0xf4)
                hi = 0x8f;
        if (n < len || p[1] < lo || p[1] > hi)
                return 0;
        for (size_t i = 2; i < len; i++)
                if (p[i] < 0x80 || p[i] > 0xbf)
                        return 0;
        return len;
}

char *utf8_repair(const char *s, size_t n, size_t *replaced)
{
        const unsigned char *p = (const unsigned char *)s;
        char *out = malloc(3 * n + 1), *o = out;

        *replaced = 0;
        if (!out)
                return NULL;
        for (size_t i = 0; i < n;) {
                size_t k = utf8_seq_len(p + i, n - i);
                if (k) {
                        memcpy(o, p + i, k);
                        o += k;
                        i += k;
                } else {
                        memcpy(o, replacement, 3);
                        o += 3;
                        i++;
                        (*replaced)++;
                }
        }
        *o = '\0';
        return out;
}

static bool is_valid(const char *s)
{
        const unsigned char *p = (const unsigned char *)s;
        size_t n = strlen(s);

        for (size_t i = 0, k; i < n; i += k)
                if (!(k = utf8_seq_len(p + i, n - i)))
                        return false;
        return true;
}

/* Replaces *s (owned by cJSON) with its repair when it is not valid. */
static size_t repair_field(char **s)
{
        size_t replaced;
        char *fixed;

        if (!*s || is_valid(*s))
                return 0;
        if (!(fixed = utf8_repair(*s, strlen(*s), &replaced)))
                return (size_t)-1;
        cJSON_free(*s);
        *s = fixed;
        return replaced;
}

size_t utf8_repair_json(cJSON *node)
{
        size_t total = 0, r;

        for (; node; node = node->next) {
                r = node->type & cJSON_StringIsConst ? 0 : repair_field(&node->string);
                if (r == (size_t)-1)
                        return r;
                total += r;
                r = cJSON_IsString(node) && !(node->type & cJSON_IsReference)
                        ? repair_field(&node->valuestring) : 0;
                if (r == (size_t)-1)
                        return r;
                total += r;
                if ((r = utf8_repair_json(node->child)) == (size_t)-1)
                        return r;
                total += r;
        }
        return total;
}
