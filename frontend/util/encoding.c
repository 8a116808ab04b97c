/* UTF-8 validation as RFC 3629 defines it, and the U+FFFD repair Python's
 * errors="replace" makes (one replacement per invalid byte); base64 as
 * RFC 4648 defines it, strictly. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "encoding.h"

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

/* ---- base64 ------------------------------------------------------------ */

static const char b64_alphabet[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static int b64_value(unsigned char c)
{
        if (c >= 'A' && c <= 'Z')
                return c - 'A';
        if (c >= 'a' && c <= 'z')
                return c - 'a' + 26;
        if (c >= '0' && c <= '9')
                return c - '0' + 52;
        return c == '+' ? 62 : c == '/' ? 63 : -1;
}

/* One group of 4 characters into up to 3 bytes: "xxxx", or at the end
 * "xxx=" or "xx==" whose dropped bits are zero. */
static int b64_group(const unsigned char *in, bool last, unsigned char *out, size_t *n)
{
        int v[4] = { 0, 0, 0, 0 }, pad = 0;

        if (last && in[3] == '=')
                pad = in[2] == '=' ? 2 : 1;
        for (int i = 0; i < 4 - pad; i++)
                if ((v[i] = b64_value(in[i])) < 0)
                        return -1;
        uint32_t w = (uint32_t)v[0] << 18 | (uint32_t)v[1] << 12 | (uint32_t)v[2] << 6 | (uint32_t)v[3];
        out[0] = (unsigned char)(w >> 16);
        out[1] = (unsigned char)(w >> 8);
        out[2] = (unsigned char)w;
        *n = 3 - (size_t)pad;
        return (pad == 2 && (w & 0xffff)) || (pad == 1 && (w & 0xff)) ? -1 : 0;
}

static bool b64_space(char c)
{
        return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

int base64_decode(const char *in, size_t len, bool skip_space, unsigned char *out,
                  size_t *out_len)
{
        unsigned char group[4];
        size_t have = 0, n = 0, got, left = len;

        if (skip_space)
                while (left && b64_space(in[left - 1]))
                        left--;         /* so that the last group is known as such */
        for (size_t i = 0; i < left; i++) {
                if (skip_space && b64_space(in[i]))
                        continue;
                group[have++] = (unsigned char)in[i];
                if (have < 4)
                        continue;
                /* in[left - 1] is no space: a group that ends before it is not the last */
                if (b64_group(group, i + 1 == left, out + n, &got) < 0)
                        return -1;
                n += got;
                have = 0;
        }
        if (have)
                return -1;              /* an incomplete group */
        *out_len = n;
        return 0;
}

char *base64_encode(const unsigned char *in, size_t len)
{
        char *out = malloc((len + 2) / 3 * 4 + 1), *p = out;

        if (!out)
                return NULL;
        for (size_t i = 0; i < len; i += 3) {
                uint32_t w = (uint32_t)in[i] << 16;
                if (i + 1 < len)
                        w |= (uint32_t)in[i + 1] << 8;
                if (i + 2 < len)
                        w |= in[i + 2];
                *p++ = b64_alphabet[w >> 18 & 63];
                *p++ = b64_alphabet[w >> 12 & 63];
                *p++ = i + 1 < len ? b64_alphabet[w >> 6 & 63] : '=';
                *p++ = i + 2 < len ? b64_alphabet[w & 63] : '=';
        }
        *p = '\0';
        return out;
}
