/* The summary of a suite run (or of merged shards), computed from the
 * results lines alone so that a run, a resumed run and a merge agree. */
#ifndef SBX_SUITE_SUMMARY_H
#define SBX_SUITE_SUMMARY_H

#include <stdbool.h>
#include <stdio.h>

#include <cjson/cJSON.h>

#include "err.h"

#define SUMMARY_MAX_K 16

struct summary_opts;

/* A suite's own section of the summary (a row's, suite_ops.h), computed
 * from the results lines as the rest is: begin for up to max_tasks tasks,
 * each task's lines in task order, then finish adds it to the summary. */
struct summary_extra {
        void *(*begin)(size_t max_tasks);
        int (*add_task)(void *state, cJSON *const *lines, size_t n);
        void (*finish)(void *state, cJSON *summary, const struct summary_opts *o);
        void (*free)(void *state);
};

struct summary_opts {
        const char *suite;
        int ks[SUMMARY_MAX_K];
        int nk;
        double wall_s;                  /* < 0: unknown (merge) */
        size_t ran;                     /* samples run by this invocation (rate) */
        size_t total;                   /* samples expected (for "incomplete") */
        const struct summary_extra *extra;      /* the suite's own section, or NULL */
        size_t problem_tasks;           /* tasks in the problem file; 0 = unknown (merge) */
        size_t tasks_without_samples;   /* of those, tasks the samples never name */
};

/* lines[i] may be NULL (not run). Returns a new object, or NULL with err. */
cJSON *suite_summary(cJSON *const *lines, size_t n, const struct summary_opts *o,
                     struct sbx_err *err);
void suite_summary_print(FILE *fp, const cJSON *summary);

#endif
