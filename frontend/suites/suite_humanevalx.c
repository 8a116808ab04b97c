/* HumanEval-X (THUDM/CodeGeeX, codegeex/benchmark/humaneval-x/): its six
 * languages' programs built as upstream's process_humaneval_test builds
 * them (evaluate_humaneval_x.py), and scored as its check_correctness
 * (execution.py) scores them, in its words. Python runs through the driver
 * as HumanEval does; the others are built and run by lang/
 * (suite_lang.c). docs/languages.md has the table and the deviations. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strbuf.h"
#include "suite_ops.h"
#include "util.h"

/* upstream's codegeex/benchmark/utils.py IMPORT_HELPER */
static const char *const python_imports[] = {
        "import math", "import re", "import sys", "import copy", "import datetime",
        "import itertools", "import collections", "import heapq", "import statistics",
        "import functools", "import hashlib", "import numpy", "import numpy as np",
        "import string", "from typing import *", "from collections import *", NULL,
};
static const char *const go_imports[] = {
        "math", "strings", "fmt", "strconv", "time", "bytes", "regexp", "sort",
        "math/rand", "crypto/md5", NULL,
};
static const char *const cpp_includes[] = {
        "#include<stdlib.h>", "#include<algorithm>", "#include<math.h>", "#include<stdio.h>",
        "#include<vector>", "#include<string>", "#include<climits>", "#include<cstring>",
        "#include<iostream>", NULL,
};

static const char *field(const struct suite_task *t, const char *name)
{
        return json_get_str(t->problem, name, NULL);
}

/* Python: the generation up to its first line that starts at column 0. */
static void add_python(struct strbuf *b, const struct suite_task *t, const char *code)
{
        const char *end = code;

        for (const char *line = code; *line; ) {
                const char *nl = strchr(line, '\n');
                size_t len = nl ? (size_t)(nl - line) : strlen(line);
                bool blank = strspn(line, " \t\r\f\v") >= len;
                if (!blank && line[0] != ' ' && line[0] != '\t')
                        break;
                end = line + len;
                if (!nl)
                        break;
                line = nl + 1;
        }
        for (const char *const *i = python_imports; *i; i++) {       /* "\n".join(...) + "\n" */
                strbuf_add(b, *i);
                strbuf_add(b, "\n");
        }
        strbuf_add(b, field(t, "prompt"));
        strbuf_addn(b, code, (size_t)(end - code));
        strbuf_add(b, "\n");
        strbuf_add(b, field(t, "test"));
        strbuf_add(b, "\n");
}

static void add_cpp(struct strbuf *b, const struct suite_task *t, const char *code)
{
        const char *prompt = field(t, "prompt");

        for (const char *const *i = cpp_includes; *i; i++)
                if (!strstr(prompt, *i)) {
                        strbuf_add(b, *i);
                        strbuf_add(b, "\n");
                }
        strbuf_add(b, "\n");
        strbuf_add(b, prompt);
        strbuf_add(b, code);
        strbuf_add(b, "\n");
        strbuf_add(b, field(t, "test"));
}

/* The prompt without its import block (every occurrence, as str.replace),
 * and an import of each helper package the generation names (pkg. in it)
 * that the test's setup does not already import. */
static void add_go(struct strbuf *b, const struct suite_task *t, const char *code)
{
        const char *prompt = field(t, "prompt"), *imp = field(t, "import");
        const char *setup = field(t, "test_setup");
        struct strbuf other = { 0 };
        size_t n = strlen(imp);
        int count = 0;

        for (const char *const *p = go_imports; *p; p++) {
                const char *last = strrchr(*p, '/');
                char used[64];
                snprintf(used, sizeof(used), "%s.", last ? last + 1 : *p);
                if (strstr(setup, *p) || !strstr(code, used))
                        continue;
                /* "    ".join(['"pkg"\n', ...]) */
                if (count++)
                        strbuf_add(&other, "    ");
                strbuf_add(&other, "\"");
                strbuf_add(&other, *p);
                strbuf_add(&other, "\"\n");
        }
        strbuf_add(b, setup);
        strbuf_add(b, "\n");
        char *others = strbuf_done(&other);
        if (count && others) {
                strbuf_add(b, "import (\n");
                strbuf_add(b, others);
                strbuf_add(b, ")\n");
        }
        free(others);
        for (const char *at; n && (at = strstr(prompt, imp)); prompt = at + n)
                strbuf_addn(b, prompt, (size_t)(at - prompt));
        strbuf_add(b, prompt);
        strbuf_add(b, code);
        strbuf_add(b, "\n");
        strbuf_add(b, field(t, "test"));
}

static const char *const required_by[][4] = {
        { "python", "prompt", "test", NULL }, { "cpp", "prompt", "test", NULL },
        { "java", "prompt", "test", NULL }, { "js", "prompt", "test", NULL },
        { "go-test", "prompt", "test", "import" }, { "rust-test", "prompt", "test", "declaration" },
};

static bool has_fields(const struct suite_task *t, const char *language)
{
        for (size_t i = 0; i < sizeof(required_by) / sizeof(required_by[0]); i++) {
                if (strcmp(required_by[i][0], language))
                        continue;
                for (size_t f = 1; f < 4 && required_by[i][f]; f++)
                        if (!field(t, required_by[i][f]))
                                return false;
                return strcmp(language, "go-test") || field(t, "test_setup");
        }
        return false;
}

static char *build(const struct suite *s, const struct suite_sample *smp, struct sbx_err *err)
{
        const struct suite_task *t = &s->tasks[smp->task];
        const char *lang = s->def.row->language, *code = smp->code;
        struct strbuf b = { 0 };

        if (!has_fields(t, lang))
                return suite_field_not_string(s, t, err);
        if (!strcmp(lang, "python")) {
                add_python(&b, t, code);
        } else if (!strcmp(lang, "cpp")) {
                add_cpp(&b, t, code);
        } else if (!strcmp(lang, "go-test")) {
                add_go(&b, t, code);
        } else if (!strcmp(lang, "rust-test")) {
                strbuf_add(&b, "\nfn main(){ \n } \n");
                strbuf_add(&b, field(t, "declaration"));
                strbuf_add(&b, field(t, "prompt"));
                strbuf_add(&b, code);
                strbuf_add(&b, field(t, "test"));
        } else {                /* java, js */
                strbuf_add(&b, field(t, "prompt"));
                strbuf_add(&b, code);
                strbuf_add(&b, "\n");
                strbuf_add(&b, field(t, "test"));
        }
        return suite_program_done(&b, err);
}

/* g++ -std=c++11 as upstream, and OpenSSL for every task id with 162 in
 * it (CPP/162 hashes with md5); the others: the language's defaults. */
static void flags(const struct suite *s, const struct suite_task *t,
                  const char *const **fl, const char *const **libs)
{
        static const char *const cpp_flags[] = { "-std=c++11", NULL };
        static const char *const ssl[] = { "-lcrypto", "-lssl", NULL };

        if (strcmp(s->def.row->language, "cpp"))
                return;
        *fl = cpp_flags;
        if (strstr(t->task_id, "162"))
                *libs = ssl;
}

/* "failed: " and the first of these with anything in it. */
static void failed_with(struct verdict *v, const struct run_output *a, const struct run_output *b)
{
        const struct run_output *o = a->len ? a : b;

        verdict_set(v, VERDICT_FAILED, "%.1000s", o->data ? o->data : "");
}

static void score(const struct suite *s, const struct suite_task *t, const struct run_result *r,
                  struct verdict *v)
{
        const char *lang = s->def.row->language;

        if (!strcmp(lang, "python"))
                return suite_score_script(s, t, r, v);
        if (v->compile.built && !strcmp(v->compile.status, "compile_error")) {
                /* C++'s with the compiler's message, as upstream's */
                if (!strcmp(lang, "cpp") || !strcmp(lang, "go-test"))
                        verdict_set(v, VERDICT_COMPILE_ERROR, ": %.1000s",
                                    v->compile.message ? v->compile.message : v->compile.detail);
                else
                        verdict_set(v, VERDICT_COMPILE_ERROR, NULL);
        } else if (r->status == RUN_ERROR) {
                verdict_set(v, VERDICT_FAILED, "sandbox error: %s", r->detail);
        } else if (r->status == RUN_TIMEOUT) {
                verdict_set(v, VERDICT_TIMED_OUT, NULL);
        } else if (!strcmp(lang, "js")) {
                /* upstream: any output fails, the exit status is not read;
                 * a death by signal fails here too (a limit's kill) */
                if (r->err.len || r->out.len)
                        failed_with(v, &r->err, &r->out);
                else if (r->signal)
                        verdict_set(v, VERDICT_FAILED, "killed by signal %d", r->signal);
                else
                        verdict_set(v, VERDICT_PASSED, NULL);
        } else if (r->status == RUN_OK) {
                verdict_set(v, VERDICT_PASSED, NULL);
        } else if (!strcmp(lang, "rust-test")) {
                verdict_set(v, VERDICT_FAILED, "execution error");
        } else if (!strcmp(lang, "java")) {
                if (r->returncode == 1 && r->err.data && strstr(r->err.data, "AssertionError"))
                        verdict_set(v, VERDICT_FAILED, "wrong answer");
                else if (r->returncode == 1)
                        verdict_set(v, VERDICT_FAILED, "%.1000s", r->err.data ? r->err.data : "");
                else
                        verdict_set(v, VERDICT_FAILED, "unknown error");
        } else {                /* cpp, go */
                failed_with(v, &r->err, &r->out);
        }
}

static const char *const required[] = { "prompt", "test", NULL };

const struct suite_ops suite_humanevalx_ops = {
        .required_fields = required,
        .canonical_field = "canonical_solution",
        .build_program = build,
        .score = score,
        .lang_flags = flags,
};
