/* HumanEval+ and MBPP+ in evalplus's native form (base_input, plus_input,
 * atol; no expected outputs): the ground truth computed in the sandbox and
 * cached (evalplus_truth.c), each sample's return values judged outside the
 * sandbox by evalplus's rules (evalplus_compare.c), base_status and
 * plus_status per sample (suite_evalplus.c). docs/suites.md describes it. */
#ifndef SBX_EVALPLUS_H
#define SBX_EVALPLUS_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "err.h"
#include "sandbox.h"

/* evalplus/config.py: per-input limit max(MIN, FACTOR x ground truth time),
 * whole phase min(PHASE_CAP, sum) + 1 (evalplus/eval/__init__.py). */
#define EVALPLUS_MIN_TIME_LIMIT_S       4.0
#define EVALPLUS_GT_TIME_FACTOR         4.0
#define EVALPLUS_PHASE_CAP_S            60.0
#define EVALPLUS_PHASE_SLACK_S          1.0
#define EVALPLUS_RTOL                   1e-07   /* np.allclose(..., rtol=1e-07) */
#define EVALPLUS_FLOAT_ATOL             1e-6    /* enforced for float outputs */

enum evalplus_dataset { EVALPLUS_HUMANEVAL, EVALPLUS_MBPP };

/* evalplus/eval/_special_oracle.py and unsafe_execute. */
enum evalplus_oracle {
        EP_ORACLE_NONE = 0,
        EP_ORACLE_FIND_ZERO,            /* HumanEval/32: |poly(xs, out)| <= atol */
        EP_ORACLE_ALWAYS,               /* Mbpp/164 are_equivalent */
        EP_ORACLE_SUM_DIV,              /* Mbpp/295: or out == 0 */
        EP_ORACLE_SURFACE_AREA,         /* Mbpp/581: or |out - area| <= atol */
        EP_ORACLE_DIGIT_DISTANCE,       /* Mbpp/558: or out == padded distance */
        EP_ORACLE_SET_EQ,               /* set(out) == set(exp) */
        EP_ORACLE_NOT_NONE,             /* expected is "returned not None" */
};

enum evalplus_oracle evalplus_oracle_for(enum evalplus_dataset ds, const char *entry_point);

/* One phase's judge: atol as the task gives it, raised to 1e-6 for the
 * rest of the phase once a float is expected (as evalplus's loop does). */
struct evalplus_judge {
        enum evalplus_oracle oracle;
        double atol;
};

/* Whether out (a serialized return value) passes against exp for input
 * args (the input's argument list, for the oracles that recompute).
 * On false, why says what differed. */
bool evalplus_judge_value(struct evalplus_judge *j, const cJSON *out, const cJSON *exp,
                          const cJSON *args, char *why, size_t why_len);

/* Python's == on two serialized values (exported for the tests). */
bool evalplus_py_eq(const cJSON *a, const cJSON *b);

/* evalplus_digest.c. The digest (hex, NUL-terminated) of v's canonical
 * form: equal for two values exactly when evalplus_py_eq holds; false for a
 * value that equals nothing (NaN inside) or is not a value. */
bool evalplus_canon_digest(const cJSON *v, char out[65]);
/* A phase's expected values (an array), each whose text passes above_bytes
 * replaced by ["k", its digest] where the judge can only ask == of it (see
 * the function): the cached ground truth stays small, the verdicts exact. */
void evalplus_truth_compact(cJSON *values, enum evalplus_oracle oracle, double atol,
                            size_t above_bytes);



/* ---- the suite (suite_evalplus.c) ---- */

struct suite;
struct suite_sample;
struct suite_task;
struct run_result;
struct verdict;

#define EVALPLUS_PHASES 2               /* base, plus */
#define EVALPLUS_INPUTS_NAME "inputs.json"
#define EVALPLUS_MAX_OUTPUT_BYTES (256 << 20)   /* the reference's outputs, all inputs */
#define EVALPLUS_TRUTH_TIMEOUT_S 600    /* a reference solution, all inputs */
#define EVALPLUS_START_SLACK_S 3        /* interpreter start, imports */
#define EVALPLUS_DIGEST_ABOVE_BYTES 128 /* cached expected values larger: digests */

struct evalplus_suite {
        enum evalplus_dataset dataset;
        char sha256[65];                /* of the problem file as read */
        char **raw[EVALPLUS_PHASES];    /* per task: base_input, plus_input JSON text */
        cJSON **args[EVALPLUS_PHASES];  /* the same parsed (oracles), or NULL */
        cJSON **truth;                  /* per task {"base": [...], "base_time": [...], ...} */
        double max_timeout_s, max_cpu_s; /* the helper's ceilings, or 0 */
};

extern const char *const evalplus_phase_names[EVALPLUS_PHASES];

/* After the problems are loaded: for a file in evalplus's native form
 * (plus_input), checks it is given to the right suite and attaches the raw
 * inputs; a file whose plus inputs the suite would ignore is an error that
 * names the suite to run. */
int evalplus_attach(struct suite *s, struct sbx_err *err);
/* evalplus's MbppPlus-OriginFmt line: MBPP's fields and "test", the base
 * and plus inputs checked by asserts (--suite mbppplus builds it as MBPP
 * with "test" in place of test_list). */
bool evalplus_is_mbpp_originfmt(const cJSON *problem);
void evalplus_free(struct evalplus_suite *e);
char *evalplus_build_program(const struct suite *s, const struct suite_sample *smp,
                             struct sbx_err *err);
/* Writes the driver's inputs file into dir. With limits, a sample's run
 * (check mode); without, the reference's (truth mode). *wall_s is the run's
 * whole limit. */
int evalplus_write_inputs(const struct suite *s, size_t task, bool limits,
                          const char *dir, double *wall_s, struct sbx_err *err);
/* The driver's records (array of objects), or NULL when its begin marker
 * is missing. */
cJSON *evalplus_parse_stream(const struct run_output *out);
/* Starts a sample's run: the inputs file beside program_path, the driver
 * in check mode, the whole limit from the phases' limits. */
int evalplus_start(const struct suite *s, const struct suite_sample *smp,
                   struct sandbox *sb, const char *workdir, const char *program_path,
                   struct sbx_run **run, struct sbx_err *err);
void evalplus_score(const struct suite *s, size_t task, const struct run_result *r,
                    struct verdict *v);
/* A phase's judge for the task, as it starts: its oracle and its atol
 * (evalplus_oracle.c). */
struct evalplus_judge evalplus_judge_for(const struct suite *s, size_t task);

/* --evalplus-results: evalplus's eval_results.json from the results lines
 * (the failing input of each phase; pass_at_k from the summary's
 * "evalplus" object). */
int evalplus_write_results(const struct suite *s, cJSON *const *lines, size_t n,
                           const cJSON *summary, const char *path, struct sbx_err *err);

/* evalplus_truth.c: the expected outputs, from the cache or computed in
 * the sandbox (parallel runs) and cached. */
int evalplus_truth_ensure(struct suite *s, struct sandbox *sb, int parallel,
                          struct sbx_err *err);
extern const char *const evalplus_driver_source;     /* evalplus_driver.py */
#endif
