/* HumanEval+ and MBPP+ in evalplus's native form as a suite kind: chosen
 * by the problem file (plus_input), not by a name, so --suite humanevalplus
 * reads either form. The functions are suite_evalplus.c's and
 * evalplus_truth.c's; this file only registers them. */
#include "evalplus.h"
#include "suite_ops.h"

static void score(const struct suite *s, const struct suite_task *t,
                  const struct run_result *r, struct verdict *v)
{
        evalplus_score(s, (size_t)(t - s->tasks), r, v);
}

static const char *const required[] = { NULL };        /* evalplus_attach checks them */

const struct suite_ops suite_evalplus_ops = {
        .required_fields = required,
        .canonical_field = "canonical_solution",
        .build_program = evalplus_build_program,
        .max_output_bytes = EVALPLUS_MAX_OUTPUT_BYTES,
        .start = evalplus_start,
        .prepare = evalplus_truth_ensure,
        .score = score,
};
