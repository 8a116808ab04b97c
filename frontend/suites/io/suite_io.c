/* The io suite kind (suite_ops.h): input/output problems read as their
 * benchmark writes them (formats/), a sample's whole program built once and
 * judged test by test (io_judge.c). The rows are suite_table.c's
 * codecontests, apps, taco, livecodebench and io. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "io.h"
#include "io_judge.h"
#include "io_summary.h"
#include "lang.h"
#include "suite_ops.h"

#define CANONICAL_FIELD "reference_solution"      /* --canonical: "task 0 has no string ..." */

/* The command line's comparison and checker, over the problem's own. */
static int judge_overrides(const struct suite *s, struct io_problem *p, const char *where,
                           struct sbx_err *err)
{
        struct stat st;

        if (s->judge.compare && io_compare_parse(s->judge.compare, &p->compare, err) < 0)
                return sbx_err_wrap(err, "--compare: ");
        if (s->judge.checker) {
                if (stat(s->judge.checker, &st) < 0 || !S_ISREG(st.st_mode))
                        return sbx_fail(err, errno, "--checker %s: not a regular file",
                                        s->judge.checker);
                p->compare.kind = IO_CMP_CHECKER;
        } else if (p->compare.kind == IO_CMP_CHECKER && !p->checker) {
                return sbx_fail(err, 0, "%s: the comparison is a checker, but no checker is "
                                "named (--checker FILE)", where);
        }
        return 0;
}

/* The row as its format says, its task id and reference solution put
 * where the suite layer reads them ("task_id", CANONICAL_FIELD). */
static int read_problem(const struct suite *s, cJSON *row, long line, size_t index,
                        void **data, struct sbx_err *err)
{
        struct io_problem *p = calloc(1, sizeof(*p));
        struct io_origin at = { .path = s->problems_path, .line = line, .index = index };
        int fmt = s->judge.format ? io_format_parse(s->judge.format) : IO_FORMAT_AUTO;
        char where[4096];

        snprintf(where, sizeof(where), "%s:%ld", s->problems_path, line);
        if (!p)
                return sbx_fail_oom(err, "%s", where);
        if (fmt < 0) {
                free(p);
                return sbx_fail(err, 0, "--io-format %s: expected apps, taco, codecontests, "
                                "livecodebench, sandboxfusion or sbx", s->judge.format);
        }
        if (io_read_row(row, (enum io_format)fmt, &at, p, err) < 0) {
                free(p);
                return -1;
        }
        if (judge_overrides(s, p, where, err) < 0 ||
            (!cJSON_GetObjectItemCaseSensitive(row, "task_id") &&
             !cJSON_AddStringToObject(row, "task_id", p->task_id)) ||
            (p->canonical && !cJSON_AddStringToObject(row, CANONICAL_FIELD, p->canonical))) {
                io_problem_free(p);
                free(p);
                return err->msg[0] ? -1 : sbx_fail_oom(err, "%s", where);
        }
        *data = p;
        return 0;
}

static void free_problem(void *data)
{
        if (data)
                io_problem_free(data);
        free(data);
}

/* CodeContests' own solutions name their language by its enum
 * (contest_problem.proto: 1 PYTHON is Python 2, which sbx does not run). */
static const char *codecontests_language(int n)
{
        static const char *const names[] = { [2] = "cpp", [3] = "python3", [4] = "java" };

        return n >= 0 && n < (int)(sizeof(names) / sizeof(names[0])) ? names[n] : NULL;
}

/* The sample's language: its line's "language" (a name or alias of the
 * language table, or CodeContests' number), else --language, else Python.
 * --canonical's reference solutions are Python (CodeContests' first Python
 * 3 solution, APPS's, sbx's canonical_solution): --language is not theirs.
 * *row NULL: Python, run by the io runner (warm where the session is). */
static int sample_language(const struct suite *s, const struct suite_sample *smp,
                           const struct lang_row **row, struct sbx_err *err)
{
        const cJSON *l = cJSON_GetObjectItemCaseSensitive(smp->fields, "language");
        const char *name = s->canonical ? NULL : s->judge.language;
        char names[256];

        *row = NULL;
        if (cJSON_IsString(l))
                name = l->valuestring;
        else if (cJSON_IsNumber(l) && !(name = codecontests_language(l->valueint)))
                return sbx_fail(err, 0, "%s:%ld: \"language\": %d: CodeContests' 2 (C++), 3 "
                                "(Python 3) and 4 (Java) are run; %s", s->samples_path, smp->line,
                                l->valueint, l->valueint == 1 ? "1 is Python 2" : "not one of them");
        else if (l && !cJSON_IsNull(l) && !cJSON_IsString(l) && !cJSON_IsNumber(l))
                return sbx_fail(err, 0, "%s:%ld: \"language\" is not a string", s->samples_path,
                                smp->line);
        if (!name)
                return 0;
        if (!(*row = lang_find(name))) {
                lang_names(names, sizeof(names));
                return sbx_fail(err, 0, "%s:%ld: language \"%.100s\": unknown (one of %s)",
                                s->samples_path ? s->samples_path : "--language", smp->line, name,
                                names);
        }
        if (!strcmp((*row)->name, "python"))
                *row = NULL;
        return 0;
}

/* A sample is a whole program, in its language (checked here: before
 * anything runs, sbx-run --suite builds every sample's program). */
static char *build(const struct suite *s, const struct suite_sample *smp, struct sbx_err *err)
{
        const struct lang_row *row;
        char *text;

        if (sample_language(s, smp, &row, err) < 0)
                return NULL;
        if (!(text = strdup(smp->code)))
                sbx_fail_oom(err, "program");
        return text;
}

static int judge_begin(const struct suite *s, const struct suite_sample *smp,
                       struct sandbox *sb, const char *workdir, const char *program_path,
                       void **state, struct sbx_run **run, struct verdict *v, struct sbx_err *err)
{
        const struct io_problem *p = s->tasks[smp->task].kind_data;
        struct io_judge_program prog = {
                .workdir = workdir, .path = program_path, .ls = s->lang, .source = smp->code,
                .compile_timeout_ms = s->compile_timeout_ms,
        };

        if (sample_language(s, smp, &prog.row, err) < 0)
                return -1;
        return io_judge_begin(&s->judge, p, sb, &prog, (struct io_judge **)state, run, v, err);
}

static int judge_step(void *state, struct run_result *res, struct sbx_run **run,
                      struct verdict *v, struct sbx_err *err)
{
        return io_judge_step(state, res, run, v, err);
}

static void judge_end(void *state)
{
        io_judge_free(state);
}

static const char *const required[] = { NULL };

const struct suite_ops suite_io_ops = {
        .required_fields = required,
        .canonical_field = CANONICAL_FIELD,
        .build_program = build,
        .sample_language = sample_language,
        .read_problem = read_problem,
        .free_problem = free_problem,
        .judge_begin = judge_begin,
        .judge_step = judge_step,
        .judge_end = judge_end,
        .summary = &io_summary,
        .print_summary = io_summary_print,
};
