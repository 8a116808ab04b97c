/* Custom suites: a suite file's template ({field} from the problem,
 * {completion} from the sample), run top to bottom. The file itself is
 * read by suite_def.c. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strbuf.h"
#include "suite_ops.h"
#include "util.h"

static bool is_ident(const char *p, size_t n)
{
        if (n == 0 || !(isalpha((unsigned char)p[0]) || p[0] == '_'))
                return false;
        for (size_t i = 1; i < n; i++)
                if (!(isalnum((unsigned char)p[i]) || p[i] == '_'))
                        return false;
        return true;
}

/* {name} is a placeholder when name is an identifier; any other brace is
 * program text, so templates need no escaping for dicts or f-strings
 * except for a literal {identifier}, written {{identifier}}. */
char *suite_expand_template(const char *tmpl, const cJSON *problem,
                            const char *completion, const char *where,
                            struct sbx_err *err)
{
        struct strbuf b = { 0 };
        const char *p = tmpl;

        while (*p) {
                if (p[0] == '{' && p[1] == '{') {
                        strbuf_add(&b, "{");
                        p += 2;
                        continue;
                }
                if (p[0] == '}' && p[1] == '}') {
                        strbuf_add(&b, "}");
                        p += 2;
                        continue;
                }
                const char *close = p[0] == '{' ? strchr(p + 1, '}') : NULL;
                if (!close || !is_ident(p + 1, (size_t)(close - p - 1))) {
                        strbuf_addn(&b, p, 1);
                        p++;
                        continue;
                }
                auto_free char *name = strndup(p + 1, (size_t)(close - p - 1));
                const cJSON *v = NULL;
                if (name && !strcmp(name, "completion")) {
                        strbuf_add(&b, completion);
                } else if (name && (v = cJSON_GetObjectItemCaseSensitive(problem, name))) {
                        if (!suite_add_field_text(&b, v))
                                b.oom = true;
                } else {
                        free(b.p);
                        return sbx_fail(err, 0, "%s: template field {%s} is not in the problem",
                                        where, name ? name : "?"), NULL;
                }
                p = close + 1;
        }
        return suite_program_done(&b, err);
}

static char *build(const struct suite *s, const struct suite_sample *smp, struct sbx_err *err)
{
        const struct suite_task *t = &s->tasks[smp->task];
        char where[4096];

        snprintf(where, sizeof(where), "%s (task %s)", s->def.name, t->task_id);
        return suite_expand_template(s->def.template, t->problem, smp->code, where, err);
}

static const char *const required[] = { NULL };

const struct suite_ops suite_custom_ops = {
        .required_fields = required,
        .canonical_field = NULL,        /* the suite file's "canonical_field" */
        .build_program = build,
        .score = suite_score_script,
};

const struct suite_row suite_custom_row = {
        .name = NULL,                   /* the suite file's path */
        .ops = &suite_custom_ops,
        .timeout_ms = HUMANEVAL_TIMEOUT_MS,
        .custom = true,
};
