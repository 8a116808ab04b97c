/* Growable NULL-terminated lists of borrowed strings (cli.h). */
#include <errno.h>
#include <stdlib.h>

#include "cli.h"

int str_list_push(struct str_list *l, const char *s, struct sbx_err *err)
{
        if (l->len + 1 >= l->cap) {
                size_t cap = l->cap ? l->cap * 2 : 8;
                const char **items = realloc(l->items, cap * sizeof(*items));

                if (!items)
                        return sbx_fail(err, errno, "out of memory");
                l->items = items;
                l->cap = cap;
        }
        l->items[l->len++] = s;
        l->items[l->len] = NULL;
        return 0;
}

void str_list_free(struct str_list *l)
{
        free(l->items);
        l->items = NULL;
        l->len = l->cap = 0;
}
