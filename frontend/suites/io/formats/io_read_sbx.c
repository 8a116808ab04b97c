/* sbx's own input/output problems, for data no benchmark format carries
 * (tests too large for a JSON line, a checker, limits):
 *   {"task_id": "sum", "tests": [{"input": "1 2\n", "output": "3\n"},
 *                                {"input_file": "big.in", "output_file": "big.out"}],
 *    "tests_dir": "tests/",            NAME.in with NAME.out or NAME.ans, natural order
 *    "time_limit_ms": 2000, "memory_limit_bytes": 268435456,
 *    "compare": "floats:1e-6",          compare.h's names
 *    "checker": "check.py",             testlib's convention; sets compare to checker
 *    "fn_name": "f", "call": "apps",    call-based ("apps" or "lcb")
 *    "prelude": "lcb",                  a harness's imports first ("lcb", "apps", "none")
 *    "canonical_solution": "..."}
 * Paths are relative to the problem file's directory. Files are only
 * named here (and checked to be regular files): they are read when a test
 * runs, so a problem of 10,000 1 MB tests costs its paths in memory. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "compare.h"
#include "io.h"
#include "suite_file.h"    /* suite_natural_cmp: the files' order */
#include "util.h"

static char *resolve(const char *problem_path, const char *rel)
{
        const char *slash = strrchr(problem_path, '/');
        char *out;

        if (rel[0] == '/' || !slash)
                return strdup(rel);
        if (asprintf(&out, "%.*s/%s", (int)(slash - problem_path), problem_path, rel) < 0)
                return NULL;
        return out;
}

/* A file a test names: resolved, and a regular file now. */
static int file_data(const char *rel, struct io_data *d, const char *what,
                     const struct io_origin *at, struct sbx_err *err)
{
        struct stat st;

        if (!rel || !rel[0])
                return sbx_fail(err, 0, "%s:%ld: %s is empty", at->path, at->line, what);
        if (!(d->path = resolve(at->path, rel)))
                return sbx_fail_oom(err, "%s:%ld: %s", at->path, at->line, what);
        if (stat(d->path, &st) < 0)
                return sbx_fail(err, errno, "%s:%ld: %s %s", at->path, at->line, what, d->path);
        if (!S_ISREG(st.st_mode))
                return sbx_fail(err, 0, "%s:%ld: %s %s is not a regular file", at->path,
                                at->line, what, d->path);
        d->len = (size_t)st.st_size;
        return 0;
}

static int add_file_test(struct io_problem *p, const char *in, const char *out,
                         const struct io_origin *at, struct sbx_err *err)
{
        struct io_data din = { 0 }, dout = { 0 };

        if (file_data(in, &din, "input_file", at, err) < 0 ||
            file_data(out, &dout, "output_file", at, err) < 0 ||
            io_add_test(p, NULL, 0, NULL, 0, "", at, err) < 0) {
                free(din.path);
                free(dout.path);
                return -1;
        }
        p->tests[p->n_tests - 1].input = din;
        p->tests[p->n_tests - 1].output = dout;
        return 0;
}

static int read_test(cJSON *t, const struct io_origin *at, struct io_problem *p,
                     struct sbx_err *err)
{
        const char *in_file = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(t, "input_file"));
        const char *out_file = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(t, "output_file"));
        char *in = NULL, *out = NULL;
        size_t in_len = 0, out_len = 0;
        int has_in, has_out;

        if (!cJSON_IsObject(t))
                return sbx_fail(err, 0, "%s:%ld: a test is not an object", at->path, at->line);
        if (in_file || out_file)
                return add_file_test(p, in_file, out_file, at, err);
        has_in = io_take_str(t, "input", &in, &in_len, at, err);
        has_out = has_in < 0 ? -1 : io_take_str(t, "output", &out, &out_len, at, err);
        if (has_in < 0 || has_out < 0) {
                free(in);
                return -1;
        }
        if (!has_in || !has_out) {
                free(in);
                free(out);
                return sbx_fail(err, 0, "%s:%ld: a test has no input and output (or "
                                "input_file and output_file)", at->path, at->line);
        }
        return io_add_test(p, in, in_len, out, out_len, "", at, err);
}

static int cmp_natural(const void *a, const void *b)
{
        return suite_natural_cmp(*(char *const *)a, *(char *const *)b);
}

/* NAME.in paired with NAME.out or NAME.ans. */
static int dir_pair(const char *dir, const char *name, struct io_problem *p,
                    const struct io_origin *at, struct sbx_err *err)
{
        size_t stem = strlen(name) - 3;
        auto_free char *in = NULL, *out = NULL, *ans = NULL;
        struct stat st;

        if (asprintf(&in, "%s/%s", dir, name) < 0 ||
            asprintf(&out, "%s/%.*s.out", dir, (int)stem, name) < 0 ||
            asprintf(&ans, "%s/%.*s.ans", dir, (int)stem, name) < 0)
                return sbx_fail_oom(err, "%s:%ld: tests_dir", at->path, at->line);
        if (stat(out, &st) < 0 && stat(ans, &st) == 0)
                return add_file_test(p, in, ans, at, err);
        return add_file_test(p, in, out, at, err);
}

static int read_tests_dir(const char *rel, const struct io_origin *at,
                          struct io_problem *p, struct sbx_err *err)
{
        auto_free char *dir = resolve(at->path, rel);
        struct strvec names = { 0 };
        struct dirent *e;
        DIR *d;
        int rc = 0;

        if (!dir)
                return sbx_fail_oom(err, "%s:%ld: tests_dir", at->path, at->line);
        if (!(d = opendir(dir)))
                return sbx_fail(err, errno, "%s:%ld: tests_dir %s", at->path, at->line, dir);
        while (rc == 0 && (e = readdir(d))) {
                size_t n = strlen(e->d_name);
                if (n > 3 && strcmp(e->d_name + n - 3, ".in") == 0 && strvec_push(&names, e->d_name) < 0)
                        rc = sbx_fail_oom(err, "%s:%ld: tests_dir", at->path, at->line);
        }
        closedir(d);
        if (rc == 0 && names.len == 0)
                rc = sbx_fail(err, 0, "%s:%ld: tests_dir %s holds no NAME.in file", at->path,
                              at->line, dir);
        if (names.len > 1)
                qsort(names.items, names.len, sizeof(char *), cmp_natural);
        for (size_t i = 0; rc == 0 && i < names.len; i++)
                rc = dir_pair(dir, names.items[i], p, at, err);
        strvec_free(&names);
        return rc;
}

static int read_limits(const cJSON *row, const struct io_origin *at,
                       struct io_problem *p, struct sbx_err *err)
{
        const cJSON *t = cJSON_GetObjectItemCaseSensitive(row, "time_limit_ms");
        const cJSON *m = cJSON_GetObjectItemCaseSensitive(row, "memory_limit_bytes");

        if (t && (!cJSON_IsNumber(t) || t->valuedouble < 1 || t->valuedouble > 86400e3))
                return sbx_fail(err, 0, "%s:%ld: time_limit_ms is not a number of "
                                "milliseconds from 1 to 86400000", at->path, at->line);
        if (m && (!cJSON_IsNumber(m) || m->valuedouble < 1 || m->valuedouble > 1e15))
                return sbx_fail(err, 0, "%s:%ld: memory_limit_bytes is not a number of bytes",
                                at->path, at->line);
        p->time_limit_ms = t ? (int64_t)t->valuedouble : 0;
        p->memory_limit_bytes = m ? (int64_t)m->valuedouble : 0;
        return 0;
}

/* "prelude": "lcb", "apps" or "none"; a call-based problem's default is
 * its call style's harness's. */
static int read_prelude(const cJSON *row, const struct io_origin *at, struct io_problem *p,
                        struct sbx_err *err)
{
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(row, "prelude");
        const char *name = cJSON_GetStringValue(v);

        p->prelude = p->call == IO_CALL_LCB ? IO_PRELUDE_LCB :
                     p->call == IO_CALL_APPS ? IO_PRELUDE_APPS : IO_PRELUDE_NONE;
        if (!v)
                return 0;
        if (name && strcmp(name, "lcb") == 0)
                p->prelude = IO_PRELUDE_LCB;
        else if (name && strcmp(name, "apps") == 0)
                p->prelude = IO_PRELUDE_APPS;
        else if (name && strcmp(name, "none") == 0)
                p->prelude = IO_PRELUDE_NONE;
        else
                return sbx_fail(err, 0, "%s:%ld: prelude is not \"lcb\", \"apps\" or \"none\"",
                                at->path, at->line);
        return 0;
}

static int read_judging(cJSON *row, const struct io_origin *at, struct io_problem *p,
                        struct sbx_err *err)
{
        const char *spec = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(row, "compare"));
        const char *checker = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(row, "checker"));
        const char *call = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(row, "call"));
        struct io_data chk = { 0 };
        size_t len;

        if (spec && io_compare_parse(spec, &p->compare, err) < 0)
                return sbx_err_wrap(err, "%s:%ld: ", at->path, at->line);
        if (checker) {
                if (file_data(checker, &chk, "checker", at, err) < 0) {
                        free(chk.path);
                        return -1;
                }
                p->checker = chk.path;
                p->compare.kind = IO_CMP_CHECKER;
        } else if (p->compare.kind == IO_CMP_CHECKER) {
                return sbx_fail(err, 0, "%s:%ld: compare is checker but no checker is named",
                                at->path, at->line);
        }
        if (io_take_str(row, "fn_name", &p->fn_name, &len, at, err) < 0)
                return -1;
        if (p->fn_name)
                p->call = call && strcmp(call, "lcb") == 0 ? IO_CALL_LCB : IO_CALL_APPS;
        if (call && strcmp(call, "lcb") != 0 && strcmp(call, "apps") != 0)
                return sbx_fail(err, 0, "%s:%ld: call \"%.40s\" is neither apps nor lcb",
                                at->path, at->line, call);
        return read_prelude(row, at, p, err);
}

int io_read_sbx(cJSON *row, const struct io_origin *at, struct io_problem *p,
                struct sbx_err *err)
{
        cJSON *tests = cJSON_GetObjectItemCaseSensitive(row, "tests");
        const char *dir = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(row, "tests_dir"));
        cJSON *t;
        size_t len;

        p->compare.kind = IO_CMP_LINES;
        if (io_set_task_id(p, row, NULL, at, err) < 0 || read_limits(row, at, p, err) < 0 ||
            read_judging(row, at, p, err) < 0 ||
            io_take_str(row, "canonical_solution", &p->canonical, &len, at, err) < 0 ||
            io_take_str(row, "starter_code", &p->starter_code, &len, at, err) < 0)
                return -1;
        if (tests && !cJSON_IsArray(tests))
                return sbx_fail(err, 0, "%s:%ld: tests is not a list", at->path, at->line);
        cJSON_ArrayForEach(t, tests) {
                if (read_test(t, at, p, err) < 0)
                        return -1;
        }
        if (dir)
                return read_tests_dir(dir, at, p, err);
        return 0;
}
