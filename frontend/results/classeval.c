/* ClassEval's rules, rewritten in C from the behaviour of its harness
 * (classeval_evaluation/test_pipeline.py); Python string semantics
 * (strip, split, startswith) are reproduced where they change results. */
#include <stdlib.h>
#include <string.h>

#include "classeval.h"
#include "err.h"
#include "strbuf.h"
#include "passk.h"


const char *classeval_answer_name(enum classeval_answer a)
{
        static const char *const names[] = { "success", "partial_success", "fail", "error" };
        return (unsigned)a < 4 ? names[a] : "error";
}

const char *classeval_class_result_name(enum classeval_class_result r)
{
        static const char *const names[] = {
                "class_success", "class_partial_success", "class_fail",
        };
        return (unsigned)r < 3 ? names[r] : "class_fail";
}

enum classeval_answer classeval_test_answer(const struct classeval_counts *c)
{
        if (c->tests_run == 0 || c->errors == c->tests_run)
                return CLASSEVAL_ERROR;
        if (c->errors + c->failures == 0)
                return CLASSEVAL_SUCCESS;
        if (c->errors + c->failures < c->tests_run)
                return CLASSEVAL_PARTIAL;
        return CLASSEVAL_FAIL;
}

enum classeval_class_result classeval_class_result(const enum classeval_answer *answers,
                                                   size_t n)
{
        size_t success = 0, bad = 0;

        for (size_t i = 0; i < n; i++) {
                success += answers[i] == CLASSEVAL_SUCCESS;
                bad += answers[i] == CLASSEVAL_FAIL || answers[i] == CLASSEVAL_ERROR;
        }
        if (success == n)
                return CLASSEVAL_CLASS_SUCCESS;
        return bad == 0 ? CLASSEVAL_CLASS_PARTIAL : CLASSEVAL_CLASS_FAIL;
}

/* ---- Python string helpers ---- */

static bool py_space(char c)
{
        return c == ' ' || (c >= '\t' && c <= '\r') || (c >= 0x1c && c <= 0x1f);
}

/* len(s) - len(s.lstrip()) for the line [b, e). */
static size_t leading_ws(const char *b, const char *e)
{
        const char *p = b;
        while (p < e && py_space(*p))
                p++;
        return (size_t)(p - b);
}

/* line.strip().startswith(word) */
static bool stripped_starts(const char *b, const char *e, const char *word)
{
        size_t n = strlen(word);
        b += leading_ws(b, e);
        return (size_t)(e - b) >= n && memcmp(b, word, n) == 0;
}

struct lines {
        const char **b, **e;            /* line i is [b[i], e[i]) */
        size_t n;
};

static void lines_free(struct lines *l) { free(l->b); free(l->e); }

/* text.split("\n") */
static bool split_lines(const char *text, struct lines *l)
{
        size_t n = 1;
        for (const char *p = text; *p; p++)
                n += *p == '\n';
        l->b = calloc(n, sizeof(*l->b));
        l->e = calloc(n, sizeof(*l->e));
        l->n = 0;
        if (!l->b || !l->e)
                return false;
        const char *p = text;
        for (;;) {
                const char *nl = strchr(p, '\n');
                l->b[l->n] = p;
                l->e[l->n++] = nl ? nl : p + strlen(p);
                if (!nl)
                        break;
                p = nl + 1;
        }
        return true;
}

static bool line_eq(const struct lines *l, size_t i, size_t j)
{
        size_t a = (size_t)(l->e[i] - l->b[i]), b = (size_t)(l->e[j] - l->b[j]);
        return a == b && memcmp(l->b[i], l->b[j], a) == 0;
}

/* ---- extract_code ---- */

/* re.findall(open + "(.*?)" + close, text, re.S)[0] */
static char *between(const char *text, const char *open, const char *close)
{
        const char *a = strstr(text, open);
        if (!a)
                return NULL;
        a += strlen(open);
        if (!close[0])
                return strdup("");      /* "```python(.*?)": lazy, matches nothing */
        const char *z = strstr(a, close);
        if (!z)
                return NULL;
        return strndup(a, (size_t)(z - a));
}

static char *fenced_block(const char *text, bool *found)
{
        static const char *const pats[][2] = {
                { "```python", "```" }, { "```ruby", "```" }, { "```scss", "```" },
                { "```python", "" }, { "```", "```" }, { "[PYTHON]", "[/PYTHON]" },
        };
        for (size_t i = 0; i < sizeof(pats) / sizeof(pats[0]); i++) {
                if (!strstr(text, pats[i][0]))
                        continue;
                char *code = between(text, pats[i][0], pats[i][1]);
                if (code) {
                        *found = true;
                        return code;
                }
        }
        *found = false;
        return NULL;
}

/* Lines before the first "class" line that are not imports are removed,
 * and so is every other line equal to one of them (the reference filters
 * by value, blank lines included). */
static char *drop_prose(const char *text)
{
        struct lines l = { 0 };
        struct strbuf out = { 0 };
        size_t first_class;
        bool *removed;

        if (!split_lines(text, &l)) {
                lines_free(&l);
                return NULL;
        }
        removed = calloc(l.n, sizeof(bool));
        for (first_class = 0; removed && first_class < l.n; first_class++) {
                const char *b = l.b[first_class], *e = l.e[first_class];
                if (stripped_starts(b, e, "class"))
                        break;
                if (!stripped_starts(b, e, "import") && !stripped_starts(b, e, "from"))
                        removed[first_class] = true;
        }
        bool first = true;
        for (size_t i = 0; removed && i < l.n; i++) {
                bool drop = false;
                for (size_t j = 0; j < first_class && !drop; j++)
                        drop = removed[j] && line_eq(&l, i, j);
                if (drop)
                        continue;
                if (!first)
                        strbuf_addn(&out, "\n", 1);
                strbuf_addn(&out, l.b[i], (size_t)(l.e[i] - l.b[i]));
                first = false;
        }
        if (!removed)
                out.oom = true;
        free(removed);
        lines_free(&l);
        return strbuf_done(&out);
}

/* When the class line is indented, shift every line by that much (lines
 * indented less lose all their indentation, as ' ' * negative is ''). */
static char *fix_indent(char *text)
{
        struct lines l = { 0 };
        struct strbuf out = { 0 };
        size_t cls = 0, i;

        if (!split_lines(text, &l)) {
                lines_free(&l);
                free(text);
                return NULL;
        }
        for (i = 0; i < l.n; i++)
                if (stripped_starts(l.b[i], l.e[i], "class"))
                        break;
        if (i == l.n || (cls = leading_ws(l.b[i], l.e[i])) == 0) {
                lines_free(&l);
                return text;
        }
        for (i = 0; i < l.n; i++) {
                size_t lead = leading_ws(l.b[i], l.e[i]);
                if (i)
                        strbuf_addn(&out, "\n", 1);
                for (size_t s = cls; s < lead; s++)
                        strbuf_addn(&out, " ", 1);
                strbuf_addn(&out, l.b[i] + lead, (size_t)(l.e[i] - l.b[i]) - lead);
        }
        lines_free(&l);
        free(text);
        return strbuf_done(&out);
}

static const char *const response_markers[] = { "### Response:", "@@ Response:", "[/INST]" };

char *classeval_extract_code(const char *text)
{
        auto_free char *t = strdup(text);
        bool found;

        if (!t)
                return NULL;
        size_t n = strlen(t);
        while (n && py_space(t[n - 1]))
                t[--n] = '\0';
        const char *body = t;
        for (size_t i = 0; i < 3; i++) {
                const char *m = strstr(t, response_markers[i]);
                if (!m)
                        continue;
                /* text.split(marker)[1]: up to the next marker occurrence */
                body = m + strlen(response_markers[i]);
                char *next = strstr(body, response_markers[i]);
                if (next)
                        *next = '\0';
                break;
        }
        char *code = fenced_block(body, &found);
        if (found)
                return code;
        code = drop_prose(body);
        return code ? fix_indent(code) : NULL;
}

static void emit_line(struct strbuf *out, bool *first, const char *b, size_t len)
{
        if (!*first)
                strbuf_addn(out, "\n", 1);
        strbuf_addn(out, b, len);
        *first = false;
}

char *classeval_add_staticmethod(const char *code)
{
        struct lines l = { 0 };
        struct strbuf out = { 0 };
        bool first = true;

        if (!split_lines(code, &l)) {
                lines_free(&l);
                return NULL;
        }
        for (size_t i = 0; i < l.n; i++) {
                const char *b = l.b[i], *e = l.e[i];
                size_t len = (size_t)(e - b);
                if (memmem(b, len, "@staticmethod", 13))
                        continue;
                if (stripped_starts(b, e, "def ") && !memmem(b, len, "self", 4) &&
                    !memmem(b, len, "cls", 3) && leading_ws(b, e) == 4)
                        emit_line(&out, &first, "    @staticmethod", 17);
                emit_line(&out, &first, b, len);
        }
        lines_free(&l);
        return strbuf_done(&out);
}

bool classeval_metrics(const struct classeval_task_tally *tasks, size_t n_tasks,
                       int k, struct classeval_metrics *out)
{
        double cs = 0, cp = 0, fs = 0, fp = 0;
        size_t n_funcs = 0, n_used = 0;

        for (size_t t = 0; t < n_tasks; t++) {
                const struct classeval_task_tally *tt = &tasks[t];
                if (tt->n == 0)
                        continue;
                if (tt->n < (size_t)k)
                        return false;
                n_used++;
                cs += passk_estimate(tt->n, tt->class_success, (size_t)k);
                cp += passk_estimate(tt->n, tt->class_partial, (size_t)k);
                for (size_t j = 0; j < tt->n_classes; j++) {
                        fs += passk_estimate(tt->n, tt->fun_success[j], (size_t)k);
                        fp += passk_estimate(tt->n, tt->fun_partial[j], (size_t)k);
                }
                n_funcs += tt->n_classes;
        }
        if (n_used == 0 || n_funcs == 0)
                return false;
        out->class_success = cs / (double)n_used;
        out->class_partial_success = cp / (double)n_used;
        out->fun_success = fs / (double)n_funcs;
        out->fun_partial_success = fp / (double)n_funcs;
        return true;
}
