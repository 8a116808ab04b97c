/* Suite kinds as rows (STYLE.md: a built-in suite is a file and a row).
 * What differs between benchmarks is the data and the few functions of a
 * struct suite_ops, one per kind, each in its own file (suite_humaneval.c,
 * suite_mbpp.c, suite_classeval.c, suite_custom.c, suite_evalplus_row.c);
 * the built-in suites are the rows of suite_table.c. Loading, building,
 * running, scoring and the summary read the row; none of them switches on
 * a kind. */
#ifndef SBX_SUITE_OPS_H
#define SBX_SUITE_OPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "driver.h"
#include "err.h"
#include "sandbox.h"
#include "strbuf.h"
#include "suite.h"
#include "suite_summary.h"
#include "verdict.h"

struct suite_ops {
        const char *const *required_fields;     /* every problem has them; NULL-terminated */
        const char *canonical_field;            /* --canonical's completion; NULL: the suite file's */
        /* A problem just read (ClassEval: its test class names), or NULL. */
        int (*add_task)(struct suite_task *t, const char *where, struct sbx_err *err);
        char *(*build_program)(const struct suite *s, const struct suite_sample *smp,
                               struct sbx_err *err);
        /* The driver's mode and operands after "python -I -B -c DRIVER";
         * NULL: "script PROGRAM". */
        int (*driver_args)(const struct suite *s, const struct suite_sample *smp,
                           const char *program_path, int64_t timeout_ms,
                           struct driver_argv *a, struct sbx_err *err);
        /* Limit inputs for limit_derive (limit.h): how many times the timeout
         * applies to one run (NULL: once; ClassEval: once per test class, its
         * limit_ask.test_classes), and a larger default output cap (or 0). */
        size_t (*timeout_units)(const struct suite_task *t);
        int64_t max_output_bytes;
        /* A run of its own instead of the driver's (evalplus), or NULL. */
        int (*start)(const struct suite *s, const struct suite_sample *smp,
                     struct sandbox *sb, const char *workdir, const char *program_path,
                     struct sbx_run **run, struct sbx_err *err);
        /* Before the first run (evalplus: the ground truth), or NULL. */
        int (*prepare)(struct suite *s, struct sandbox *sb, int parallel, struct sbx_err *err);
        void (*score)(const struct suite *s, const struct suite_task *t,
                      const struct run_result *r, struct verdict *v);
        /* A compiled language's suite (its row's language, not Python): the
         * compile flags and libs of a task's program (NULL: the language's
         * defaults), handed to lang/'s build-then-run (suite_lang.c). */
        void (*lang_flags)(const struct suite *s, const struct suite_task *t,
                           const char *const **flags, const char *const **libs);
        /* A kind whose samples each name their language (io: a line's
         * "language", else --language): the sample's row of lang/, NULL
         * for Python; -1 with err (the samples file and line) for a name
         * lang/ does not know. suite_lang.c readies a session of builds for
         * the languages the samples name. NULL: the row's language. */
        int (*sample_language)(const struct suite *s, const struct suite_sample *smp,
                               const struct lang_row **row, struct sbx_err *err);
        /* A problem in its benchmark's own form, read once as it is loaded
         * (io: APPS, CodeContests, LiveCodeBench rows...) into the kind's
         * data (t->kind_data, freed by free_problem), "task_id" set in the
         * row when the form names its task otherwise; NULL: none. */
        int (*read_problem)(const struct suite *s, cJSON *row, long line, size_t index,
                            void **data, struct sbx_err *err);
        void (*free_problem)(void *data);
        /* A sample judged over several runs (io: its build, one run a test,
         * a checker's), instead of start and score. begin and step each
         * start the sample's next run (1, *run set) or have judged it (0,
         * v set; nothing runs); step is told each run's end (res, which it
         * may take); end frees *state, after the verdict's line is written
         * or when the sample was stopped. NULL: one run a sample. */
        int (*judge_begin)(const struct suite *s, const struct suite_sample *smp,
                           struct sandbox *sb, const char *workdir, const char *program_path,
                           void **state, struct sbx_run **run, struct verdict *v,
                           struct sbx_err *err);
        int (*judge_step)(void *state, struct run_result *res, struct sbx_run **run,
                          struct verdict *v, struct sbx_err *err);
        void (*judge_end)(void *state);
        const struct summary_extra *summary;    /* the summary's own section, or NULL */
        summary_print_fn *print_summary;        /* that section in the text summary, or NULL */
};

/* One built-in suite: --suite NAME. */
struct suite_row {
        const char *name;
        const struct suite_ops *ops;
        int64_t timeout_ms;                     /* the default --timeout */
        const char *shipped_problems;           /* under suite_data_dir(), or NULL */
        /* Why none is shipped and where to get one (NULL: --problems is required). */
        const char *not_shipped, *get_problems;
        bool evalplus_only;                     /* reads only evalplus's files (native, OriginFmt) */
        /* The programs' language (a row of lang/; NULL: Python through the
         * driver) and the support files' set in the suite's data directory
         * (its Go module, js-md5, Cargo.toml: lang_support.c), or NULL. */
        const char *language, *support_set;
        bool custom;                            /* a custom suite file's: its template builds any file */
};

extern const struct suite_ops suite_humaneval_ops, suite_mbpp_ops, suite_classeval_ops,
                              suite_custom_ops, suite_evalplus_ops, suite_humanevalx_ops,
                              suite_io_ops;
/* What a custom suite file starts from (suite_custom.c). */
extern const struct suite_row suite_custom_row;

/* A suite from its row (suite_def_load does this for the built-in names;
 * a test can for a row of its own). */
int suite_def_from_row(struct suite_def *def, const struct suite_row *row, struct sbx_err *err);

/* The built-in row named name, or NULL (suite_table.c). */
const struct suite_row *suite_row_find(const char *name);
/* "humaneval, humanevalplus, ...": the built-in names, for messages. */
void suite_row_names(char *buf, size_t len);

/* For the kinds' program builders (suite_build.c): a problem field as
 * program text (strings as they are, lists of strings one per line, else
 * JSON); the finished text, or NULL with err; the error for a problem whose
 * required field is not a string. */
bool suite_add_field_text(struct strbuf *b, const cJSON *v);
char *suite_program_done(struct strbuf *b, struct sbx_err *err);
char *suite_field_not_string(const struct suite *s, const struct suite_task *t,
                             struct sbx_err *err);

/* For the kinds' scorers (suite_score.c): a program that runs top to
 * bottom ("script" mode), and why one without an end marker failed. */
void suite_score_script(const struct suite *s, const struct suite_task *t,
                        const struct run_result *r, struct verdict *v);
void suite_score_no_marker(const struct run_result *r, struct verdict *v);

#endif
