/* A growable NUL-terminated string. Appends never fail on the spot: an
 * allocation failure sets oom, later appends do nothing, and strbuf_done
 * reports it once, so builders need no check per append. */
#ifndef SBX_STRBUF_H
#define SBX_STRBUF_H

#include <stdbool.h>
#include <stddef.h>

struct strbuf {
        char *p;
        size_t len, cap;
        bool oom;
};

void strbuf_addn(struct strbuf *b, const char *s, size_t n);
void strbuf_add(struct strbuf *b, const char *s);
/* The string (the caller frees it; "" when nothing was added), or NULL
 * after an allocation failure, with the buffer freed. */
char *strbuf_done(struct strbuf *b);

#endif
