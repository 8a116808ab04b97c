/* ClassEval (FudanSELab/ClassEval): the test classes a task names, the
 * program as its gen_py_file builds it, the driver's classeval mode (each
 * test class with its own timer), per-class scoring and the summary's
 * four metrics. The pure rules are classeval.c's. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "classeval.h"
#include "strbuf.h"
#include "suite_ops.h"
#include "util.h"

static int add_task(struct suite_task *t, const char *where, struct sbx_err *err)
{
        cJSON *list = cJSON_GetObjectItemCaseSensitive(t->problem, "test_classes"), *it;
        size_t n = (size_t)cJSON_GetArraySize(list), i = 0;

        if (!cJSON_IsArray(list) || n == 0 || n > CLASSEVAL_MAX_TEST_CLASSES)
                return sbx_fail(err, 0, "%s: \"test_classes\" must be a list of 1 to %d names",
                                where, CLASSEVAL_MAX_TEST_CLASSES);
        t->test_classes = calloc(n + 1, sizeof(char *));
        if (!t->test_classes)
                return sbx_fail_oom(err, "%s", where);
        cJSON_ArrayForEach(it, list) {
                if (!cJSON_IsString(it))
                        return sbx_fail(err, 0, "%s: test class names must be strings", where);
                /* Upstream ClassEval_97 lists " Name": strip, or nothing matches. */
                const char *b = it->valuestring, *e = b + strlen(b);
                while (*b == ' ' || *b == '\t')
                        b++;
                while (e > b && (e[-1] == ' ' || e[-1] == '\t'))
                        e--;
                if (!(t->test_classes[i++] = strndup(b, (size_t)(e - b))))
                        return sbx_fail_oom(err, "%s", where);
        }
        t->n_test_classes = n;
        return 0;
}

static char *build_classeval(const cJSON *pb, const struct suite_sample *smp,
                             bool canonical, struct sbx_err *err)
{
        struct strbuf b = { 0 };
        const cJSON *imports = cJSON_GetObjectItemCaseSensitive(pb, "import_statement");
        auto_free char *extracted = NULL;
        auto_free char *code = NULL;

        /* gen_code_list: imports joined by "\n", "\n", the extracted code with
         * @staticmethod added; gen_py_file: + "\n" + test. The reference
         * solution is used as it is. */
        if (!canonical) {
                if (!(extracted = classeval_extract_code(smp->code)) ||
                    !(code = classeval_add_staticmethod(extracted)))
                        return sbx_fail_oom(err, "extracting code"), NULL;
        }
        if (cJSON_IsArray(imports) && !suite_add_field_text(&b, imports))
                b.oom = true;
        strbuf_add(&b, "\n");
        strbuf_add(&b, canonical ? smp->code : code);
        strbuf_add(&b, "\n");
        strbuf_add(&b, json_get_str(pb, "test", NULL));
        return suite_program_done(&b, err);
}


static char *build(const struct suite *s, const struct suite_sample *smp, struct sbx_err *err)
{
        const struct suite_task *t = &s->tasks[smp->task];

        if (!json_get_str(t->problem, "test", NULL))
                return suite_field_not_string(s, t, err);
        return build_classeval(t->problem, smp, s->canonical, err);
}

/* The module is "<task>_<n>" (ClassEval_0_0), as ClassEval's harness names it. */
static int driver_args(const struct suite *s, const struct suite_sample *smp,
                       const char *program_path, int64_t timeout_ms,
                       struct driver_argv *a, struct sbx_err *err)
{
        const struct suite_task *t = &s->tasks[smp->task];
        char module[256];

        snprintf(module, sizeof(module), "%s_%d", t->task_id,
                 smp->predict_index < 0 ? 0 : smp->predict_index);
        return driver_argv_classeval(a, program_path, timeout_ms, module,
                                     t->test_classes, t->n_test_classes, err);
}

static size_t timeout_units(const struct suite_task *t)
{
        return t->n_test_classes;
}

/* ClassEval: counts per test class from the driver; a class it did not
 * report (the process died, timed out, or never reached it) is 0/0/0,
 * which ClassEval's rules score as an error. */
static void score_counts(const struct suite_task *t, const struct run_result *r,
                         const struct driver_report *rep, struct verdict *v)
{
        enum classeval_answer answers[CLASSEVAL_MAX_TEST_CLASSES];
        size_t ok = 0, n = t->n_test_classes;

        v->n_classes = n;
        v->class_names = t->test_classes;
        for (size_t i = 0; i < n; i++) {
                const cJSON *c = rep->outcome == DRIVER_CLASSES && r->status != RUN_TIMEOUT
                        ? cJSON_GetObjectItemCaseSensitive(rep->payload, t->test_classes[i])
                        : NULL;
                struct classeval_counts *k = &v->counts[i];
                memset(k, 0, sizeof(*k));
                if (cJSON_IsArray(c) && cJSON_GetArraySize(c) == 3) {
                        k->tests_run = cJSON_GetArrayItem(c, 0)->valueint;
                        k->errors = cJSON_GetArrayItem(c, 1)->valueint;
                        k->failures = cJSON_GetArrayItem(c, 2)->valueint;
                }
                answers[i] = classeval_test_answer(k);
                ok += answers[i] == CLASSEVAL_SUCCESS;
        }
        v->class_result = classeval_class_result(answers, n);
        if (v->class_result == CLASSEVAL_CLASS_SUCCESS)
                verdict_set(v, VERDICT_PASSED, NULL);
        else if (r->status == RUN_TIMEOUT)
                verdict_set(v, VERDICT_TIMED_OUT, NULL);
        else if (rep->outcome != DRIVER_CLASSES)
                suite_score_no_marker(r, v);
        else
                verdict_set(v, VERDICT_FAILED, "%zu of %zu test classes succeeded", ok, n);
}

static void score(const struct suite *s, const struct suite_task *t,
                  const struct run_result *r, struct verdict *v)
{
        struct driver_report rep;

        driver_parse(&r->out, &rep);
        score_counts(t, r, &rep, v);
        driver_report_free(&rep);
}

/* ---- the summary's "classeval" section ---- */

struct tallies {
        struct classeval_task_tally *t;
        size_t n;
};

/* A results line's ClassEval words read back through classeval.c's names
 * (-1 for words it never writes). */
static int class_result_of(const char *name)
{
        for (int r = CLASSEVAL_CLASS_SUCCESS; r <= CLASSEVAL_CLASS_FAIL; r++)
                if (!strcmp(name, classeval_class_result_name(r)))
                        return r;
        return -1;
}

static int answer_of(const char *name)
{
        for (int a = CLASSEVAL_SUCCESS; a <= CLASSEVAL_ERROR; a++)
                if (!strcmp(name, classeval_answer_name(a)))
                        return a;
        return -1;
}

/* ClassEval: one tally per task, test classes in the order of its first line. */
static int tally_task(cJSON *const *lines, size_t n, struct classeval_task_tally *t)
{
        const cJSON *first = cJSON_GetObjectItemCaseSensitive(lines[0], "test_classes"), *c;

        t->n_classes = (size_t)cJSON_GetArraySize(first);
        t->fun_success = calloc(t->n_classes + 1, sizeof(size_t));
        t->fun_partial = calloc(t->n_classes + 1, sizeof(size_t));
        if (!t->fun_success || !t->fun_partial)
                return -1;
        for (size_t i = 0; i < n; i++) {
                const cJSON *tc = cJSON_GetObjectItemCaseSensitive(lines[i], "test_classes");
                int cr = class_result_of(json_get_str(lines[i], "class_result", ""));
                size_t j = 0;
                t->n++;
                t->class_success += cr == CLASSEVAL_CLASS_SUCCESS;
                t->class_partial += cr == CLASSEVAL_CLASS_SUCCESS || cr == CLASSEVAL_CLASS_PARTIAL;
                cJSON_ArrayForEach(c, first) {
                        const cJSON *mine = cJSON_GetObjectItemCaseSensitive(tc, c->string);
                        int a = answer_of(json_get_str(mine, "answer", ""));
                        t->fun_success[j] += a == CLASSEVAL_SUCCESS;
                        t->fun_partial[j] += a == CLASSEVAL_SUCCESS || a == CLASSEVAL_PARTIAL;
                        j++;
                }
        }
        return 0;
}

static void add_classeval(cJSON *sum, struct classeval_task_tally *tallies, size_t nt,
                          const struct summary_opts *o)
{
        cJSON *ce = cJSON_AddObjectToObject(sum, "classeval");
        char key[32];

        for (int i = 0; ce && i < o->nk; i++) {
                struct classeval_metrics m;
                if (!classeval_metrics(tallies, nt, o->ks[i], &m))
                        continue;
                snprintf(key, sizeof(key), "pass@%d", o->ks[i]);
                cJSON *k = cJSON_AddObjectToObject(ce, key);
                cJSON_AddNumberToObject(k, "class_success", m.class_success);
                cJSON_AddNumberToObject(k, "class_partial_success", m.class_partial_success);
                cJSON_AddNumberToObject(k, "fun_success", m.fun_success);
                cJSON_AddNumberToObject(k, "fun_partial_success", m.fun_partial_success);
        }
}

static void free_tallies(struct classeval_task_tally *t, size_t n)
{
        for (size_t i = 0; t && i < n; i++) {
                free(t[i].fun_success);
                free(t[i].fun_partial);
        }
        free(t);
}

static void *summary_begin(size_t max_tasks)
{
        struct tallies *ts = calloc(1, sizeof(*ts));

        if (ts && !(ts->t = calloc(max_tasks + 1, sizeof(*ts->t)))) {
                free(ts);
                return NULL;
        }
        return ts;
}

static int summary_add_task(void *state, cJSON *const *lines, size_t n)
{
        struct tallies *ts = state;

        return tally_task(lines, n, &ts->t[ts->n++]);
}

static void summary_finish(void *state, cJSON *sum, const struct summary_opts *o)
{
        struct tallies *ts = state;

        add_classeval(sum, ts->t, ts->n, o);
}

static void summary_free(void *state)
{
        struct tallies *ts = state;

        free_tallies(ts->t, ts->n);
        free(ts);
}

static const struct summary_extra summary = {
        summary_begin, summary_add_task, summary_finish, summary_free,
};

static void print_summary(FILE *fp, const cJSON *sum)
{
        const cJSON *it;

        cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(sum, "classeval"))
                suite_summary_print_section(fp, "classeval", it->string, it);
}

static const char *const required[] = { "test", "test_classes", "import_statement", NULL };

const struct suite_ops suite_classeval_ops = {
        .required_fields = required,
        .canonical_field = "solution_code",
        .add_task = add_task,
        .build_program = build,
        .driver_args = driver_args,
        .timeout_units = timeout_units,
        .score = score,
        .summary = &summary,
        .print_summary = print_summary,
};
