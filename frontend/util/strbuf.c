#include <stdlib.h>
#include <string.h>

#include "strbuf.h"

void strbuf_addn(struct strbuf *b, const char *s, size_t n)
{
        if (b->oom)
                return;
        if (b->len + n + 1 > b->cap) {
                size_t cap = b->cap ? b->cap : 256;
                while (cap < b->len + n + 1)
                        cap *= 2;
                char *np = realloc(b->p, cap);
                if (!np) {
                        b->oom = true;
                        return;
                }
                b->p = np;
                b->cap = cap;
        }
        memcpy(b->p + b->len, s, n);
        b->len += n;
        b->p[b->len] = '\0';
}

void strbuf_add(struct strbuf *b, const char *s)
{
        strbuf_addn(b, s, strlen(s));
}

char *strbuf_done(struct strbuf *b)
{
        if (b->oom) {
                free(b->p);
                b->p = NULL;
                return NULL;
        }
        return b->p ? b->p : strdup("");
}
