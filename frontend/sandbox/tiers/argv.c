/* The argv and env parts every tier shares (the tiers' own builders are
 * in tier_helper.c, tier_bwrap.c, tier_unshare.c, reached through tier.c's table). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "argv.h"

/* Options and values as separate words: bwrap has no --opt=value form.
 * Two statements: the order of the operands of | is unspecified. */
int argv_push_num(struct strvec *v, const char *opt, long long n)
{
        int rc = strvec_push(v, opt);

        return rc | strvec_pushf(v, "%lld", n);
}

int env_build(const char *const *session_env, const char *workdir,
              const char *const *extra, struct strvec *env)
{
        struct strvec all = { 0 };
        int rc = strvec_extend(&all, session_env);

        rc |= strvec_pushf(&all, "HOME=%s", workdir);
        rc |= strvec_pushf(&all, "TMPDIR=%s", workdir);
        rc |= strvec_extend(&all, extra);
        for (size_t i = 0; rc == 0 && i < all.len; i++) {
                size_t name_len = strcspn(all.items[i], "=");
                bool later = false;
                for (size_t j = i + 1; j < all.len && !later; j++)
                        later = strncmp(all.items[i], all.items[j], name_len + 1) == 0;
                if (!later)
                        rc |= strvec_push(env, all.items[i]);
        }
        strvec_free(&all);
        return rc ? -1 : 0;
}

char *env_expand_venv(const char *pair, const char *venv)
{
        const char *mark = "{venv}";
        size_t vlen = venv ? strlen(venv) : 0, mlen = strlen(mark);
        size_t cap = strlen(pair) + 1;
        const char *p;

        for (p = strstr(pair, mark); p; p = strstr(p + mlen, mark))
                cap += vlen;
        char *out = malloc(cap), *o = out;
        if (!out)
                return NULL;
        for (p = pair; *p;) {
                if (strncmp(p, mark, mlen) == 0) {
                        memcpy(o, venv ? venv : "", vlen);
                        o += vlen;
                        p += mlen;
                } else {
                        *o++ = *p++;
                }
        }
        *o = '\0';
        return out;
}
