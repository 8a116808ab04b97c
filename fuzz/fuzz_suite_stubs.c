/* The suite targets load, build, score and summarise; they never start a
 * run. The evalplus row (frontend/suites/evalplus/suite_evalplus_row.c) names its run half,
 * evalplus_truth.c, which links the whole sandbox: these stand in for it
 * and abort if a target ever reaches them. */
#include <stdlib.h>

#include "evalplus.h"

int evalplus_start(const struct suite *s, const struct suite_sample *smp,
                   struct sandbox *sb, const char *workdir, const char *program_path,
                   struct sbx_run **run, struct sbx_err *err)
{
        abort();
}

int evalplus_truth_ensure(struct suite *s, struct sandbox *sb, int parallel,
                          struct sbx_err *err)
{
        abort();
}
