/* MBPP, original and sanitized (google-research/mbpp): the code, the test
 * setup, then the asserts of test_list, run top to bottom. MBPP+ OriginFmt
 * (--suite mbppplus only: evalplus_attach) has "test" in their place, its
 * assertion loop over the base and plus inputs. */
#include "strbuf.h"
#include "suite_ops.h"
#include "util.h"

static char *build(const struct suite *s, const struct suite_sample *smp, struct sbx_err *err)
{
        const cJSON *pb = s->tasks[smp->task].problem;
        struct strbuf b = { 0 };
        const char *setup = json_get_str(pb, "test_setup_code", NULL);
        const cJSON *imports = cJSON_GetObjectItemCaseSensitive(pb, "test_imports");
        const char *plus_tests = json_get_str(pb, "test", NULL);

        /* sanitized MBPP: the tests need test_imports (import math, ...) */
        if (cJSON_IsArray(imports) && cJSON_GetArraySize(imports) > 0) {
                if (!suite_add_field_text(&b, imports))
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
        else if (!suite_add_field_text(&b, cJSON_GetObjectItemCaseSensitive(pb, "test_list")))
                b.oom = true;
        strbuf_add(&b, "\n");
        return suite_program_done(&b, err);
}

static const char *const required[] = { "test_list", NULL };

const struct suite_ops suite_mbpp_ops = {
        .required_fields = required,
        .canonical_field = "code",
        .build_program = build,
        .score = suite_score_script,
};
