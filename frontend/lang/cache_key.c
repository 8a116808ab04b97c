/* The compile cache's pure parts: the key (a sha256 over labelled,
 * length-prefixed pieces), an entry's meta text and its strict reading,
 * and the size limit's parsing. */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cache.h"
#include "strbuf.h"

void lang_cache_key_init(struct lang_cache_key *k)
{
        sha256_init(&k->sha);
        lang_cache_key_add_str(k, "magic", LANG_CACHE_MAGIC);
}

void lang_cache_key_add(struct lang_cache_key *k, const char *label,
                        const void *data, size_t len)
{
        char head[96];
        int n = snprintf(head, sizeof(head), "%zu:%s %zu:", strlen(label), label, len);

        sha256_update(&k->sha, head, (size_t)n);
        sha256_update(&k->sha, data, len);
}

void lang_cache_key_add_str(struct lang_cache_key *k, const char *label, const char *s)
{
        /* NULL and "" differ: an absent value is not an empty one */
        if (!s) {
                lang_cache_key_add(k, label, "", 0);
                sha256_update(&k->sha, "-", 1);
                return;
        }
        lang_cache_key_add(k, label, s, strlen(s));
        sha256_update(&k->sha, "+", 1);
}

void lang_cache_key_add_list(struct lang_cache_key *k, const char *label,
                             const char *const *items)
{
        size_t n = 0;
        char count[32];

        while (items && items[n])
                n++;
        snprintf(count, sizeof(count), "%zu", n);
        lang_cache_key_add_str(k, label, count);
        for (size_t i = 0; i < n; i++)
                lang_cache_key_add_str(k, label, items[i]);
}

void lang_cache_key_hex(struct lang_cache_key *k, char out[SHA256_HEX_LEN + 1])
{
        sha256_hex(&k->sha, out);
}

bool lang_cache_key_valid(const char *s)
{
        size_t i;

        for (i = 0; s[i]; i++)
                if (!isxdigit((unsigned char)s[i]) || isupper((unsigned char)s[i]))
                        return false;
        return i == SHA256_HEX_LEN;
}

static const char *status_names[] = {
        [LANG_CACHE_COMPILED] = "compiled",
        [LANG_CACHE_COMPILE_ERROR] = "compile_error",
};

/* magic, "status NAME", "message BYTES", then the message's bytes. */
char *lang_cache_meta_format(const struct lang_cache_meta *m)
{
        const char *msg = m->message ? m->message : "";
        size_t len = strlen(msg);
        struct strbuf b = { 0 };
        char head[128];

        if ((unsigned)m->status > LANG_CACHE_COMPILE_ERROR)
                return NULL;
        if (len > LANG_CACHE_MESSAGE_MAX) {
                msg += len - LANG_CACHE_MESSAGE_MAX;    /* the tail says most */
                len = LANG_CACHE_MESSAGE_MAX;
        }
        snprintf(head, sizeof(head), "%s\nstatus %s\nmessage %zu\n", LANG_CACHE_MAGIC,
                 status_names[m->status], len);
        strbuf_add(&b, head);
        strbuf_addn(&b, msg, len);
        return strbuf_done(&b);
}

static const char *take_line(const char **p, const char *end, size_t *len)
{
        const char *line = *p, *nl = memchr(line, '\n', (size_t)(end - line));

        if (!nl)
                return NULL;
        *len = (size_t)(nl - line);
        *p = nl + 1;
        return line;
}

static bool line_is(const char *line, size_t len, const char *want)
{
        return len == strlen(want) && !memcmp(line, want, len);
}

static int parse_status(const char *line, size_t len, enum lang_cache_status *st)
{
        for (size_t i = 0; i < sizeof(status_names) / sizeof(*status_names); i++) {
                char want[64];
                snprintf(want, sizeof(want), "status %s", status_names[i]);
                if (line_is(line, len, want)) {
                        *st = (enum lang_cache_status)i;
                        return 0;
                }
        }
        return -1;
}

/* "message N" with N the exact count of the bytes after it. */
static int parse_message_len(const char *line, size_t len, size_t *n)
{
        char num[24];
        char *end;

        if (len <= 8 || len - 8 >= sizeof(num) || memcmp(line, "message ", 8))
                return -1;
        memcpy(num, line + 8, len - 8);
        num[len - 8] = '\0';
        if (!isdigit((unsigned char)num[0]))
                return -1;
        errno = 0;
        unsigned long long v = strtoull(num, &end, 10);
        if (errno || *end || v > LANG_CACHE_MESSAGE_MAX)
                return -1;
        *n = (size_t)v;
        return 0;
}

int lang_cache_meta_parse(const char *text, size_t len, struct lang_cache_meta *m)
{
        const char *p = text, *end = text + len, *line;
        size_t n, msg_len;

        memset(m, 0, sizeof(*m));
        if (!(line = take_line(&p, end, &n)) || !line_is(line, n, LANG_CACHE_MAGIC) ||
            !(line = take_line(&p, end, &n)) || parse_status(line, n, &m->status) < 0 ||
            !(line = take_line(&p, end, &n)) || parse_message_len(line, n, &msg_len) < 0 ||
            (size_t)(end - p) != msg_len || memchr(p, '\0', msg_len))
                return -1;
        if (m->status == LANG_CACHE_COMPILED && msg_len)
                return -1;
        m->message = strndup(p, msg_len);
        return m->message ? 0 : -1;
}

void lang_cache_meta_free(struct lang_cache_meta *m)
{
        free(m->message);
        m->message = NULL;
}

int64_t lang_cache_max_bytes(const char *value, struct sbx_err *err)
{
        char *end;
        int shift = 0;

        if (!value || !value[0])
                return LANG_CACHE_DEFAULT_MAX_BYTES;
        errno = 0;
        long long v = strtoll(value, &end, 10);
        if (end == value || v < 0 || errno)
                goto bad;
        switch (*end) {
        case 'K': shift = 10; end++; break;
        case 'M': shift = 20; end++; break;
        case 'G': shift = 30; end++; break;
        default: break;
        }
        if (*end || v > (INT64_MAX >> shift))
                goto bad;
        return (int64_t)v << shift;
bad:
        return sbx_fail(err, 0, "SBX_COMPILE_CACHE_MAX=%.100s: not a size in bytes "
                        "(an optional K, M or G; 0 turns the cache off)", value);
}
