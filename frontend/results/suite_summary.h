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

/* A suite's own lines of the text summary (suite_ops.h's print_summary),
 * printed after the pass@k lines: what its summary_extra added to the
 * JSON, which suite_summary_print does not know by key. */
typedef void summary_print_fn(FILE *fp, const cJSON *summary);

/* The text summary; print_extra (NULL: none) adds the suite's own lines. */
void suite_summary_print(FILE *fp, const cJSON *summary, summary_print_fn *print_extra);
/* --summary FILE: the JSON summary written to path; -1 with err (errno,
 * naming path) when it cannot be. */
int suite_summary_save(const cJSON *summary, const char *path, struct sbx_err *err);
/* "  SECTION NAME: key 0.1234 key 0.5678": one line of numbers. */
void suite_summary_print_section(FILE *fp, const char *section, const char *name,
                                 const cJSON *numbers);

#endif
