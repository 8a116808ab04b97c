/* The io suites' own section of the summary (suite_ops.h's summary and
 * print_summary): {"io": {"verdicts": {NAME: samples, ...}, "tests_run",
 * "tests_passed"}}. */
#ifndef SBX_IO_SUMMARY_H
#define SBX_IO_SUMMARY_H

#include <stdio.h>

#include <cjson/cJSON.h>

#include "suite_summary.h"

extern const struct summary_extra io_summary;
void io_summary_print(FILE *fp, const cJSON *sum);

#endif
