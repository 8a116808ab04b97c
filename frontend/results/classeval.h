/* ClassEval: code extraction from model output and per-test-class scoring,
 * following FudanSELab/ClassEval's classeval_evaluation/test_pipeline.py
 * (extract_code, add_static_statement, get_test_answer, evaluate,
 * cal_metrics_pass_at_k). Pure functions, unit tested. */
#ifndef SBX_CLASSEVAL_H
#define SBX_CLASSEVAL_H

#include <stdbool.h>
#include <stddef.h>

#define CLASSEVAL_MAX_TEST_CLASSES 256

enum classeval_answer {
        CLASSEVAL_SUCCESS = 0,
        CLASSEVAL_PARTIAL,
        CLASSEVAL_FAIL,
        CLASSEVAL_ERROR,
};
const char *classeval_answer_name(enum classeval_answer a);

/* One test class's unittest counts. A class that did not finish (timeout,
 * import error, process died) counts as 0/0/0, as the reference does. */
struct classeval_counts {
        int tests_run, errors, failures;
};

/* get_test_answer: error when nothing ran or every test errored, success
 * when nothing failed, partial when some passed, else fail. */
enum classeval_answer classeval_test_answer(const struct classeval_counts *c);

/* Per sample: class_success when every test class succeeded;
 * class_partial_success when none failed or errored. */
enum classeval_class_result {
        CLASSEVAL_CLASS_SUCCESS = 0,
        CLASSEVAL_CLASS_PARTIAL,
        CLASSEVAL_CLASS_FAIL,
};
enum classeval_class_result classeval_class_result(const enum classeval_answer *answers,
                                                   size_t n);
const char *classeval_class_result_name(enum classeval_class_result r);

/* extract_code (any model but incoder): split on a response marker, take the
 * first fenced block, else drop prose before the class and re-indent it.
 * malloc'd; NULL only when out of memory. */
char *classeval_extract_code(const char *text);
/* add_static_statement: @staticmethod before 4-space defs without self/cls. */
char *classeval_add_staticmethod(const char *code);

/* Accumulated counts of one task, for pass@k over its n samples. */
struct classeval_task_tally {
        size_t n;                       /* samples scored */
        size_t n_classes;
        size_t *fun_success;            /* per test class: samples with success */
        size_t *fun_partial;            /* per test class: success or partial */
        size_t class_success, class_partial;
};

struct classeval_metrics {
        double class_success, class_partial_success;
        double fun_success, fun_partial_success;
};

/* cal_metrics_pass_at_k over the tasks with at least one sample. Returns
 * false when some such task has fewer than k samples. */
bool classeval_metrics(const struct classeval_task_tally *tasks, size_t n_tasks,
                       int k, struct classeval_metrics *out);

#endif
