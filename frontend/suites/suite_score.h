/* Scoring one run of a suite program. */
#ifndef SBX_SUITE_SCORE_H
#define SBX_SUITE_SCORE_H

#include "results.h"
#include "suite.h"

/* The sample's run (or its compile, when that failed) into a verdict. */
void suite_score(const struct suite *s, const struct suite_sample *smp,
                 const struct run_result *r, struct verdict *v);

#endif
