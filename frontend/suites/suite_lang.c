/* A suite whose programs are in a language other than Python (its row's
 * `language`: HumanEval-X's C++, Java, JavaScript, Go, Rust): each sample
 * is built (from the compile cache when it was built before) and run by
 * lang/ (lang_run.h) instead of the driver, one job per sample in flight,
 * two runs of it in the scheduler's slot (sched_ops.next). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lang_run.h"
#include "suite.h"
#include "suite_ops.h"
#include "util.h"
#include "verdict.h"

const struct lang_row *suite_language(const struct suite *s)
{
        const char *name = s->def.row ? s->def.row->language : NULL;
        const struct lang_row *row = name ? lang_find(name) : NULL;

        return row && strcmp(row->name, "python") ? row : NULL;
}

/* The languages other than Python the suite's programs are in: its row's,
 * or those its samples name (io), each once; their count, or -1 with err. */
static int languages(const struct suite *s, const struct lang_row **rows, size_t max,
                     struct sbx_err *err)
{
        const struct lang_row *row = suite_language(s);
        size_t n = 0;

        if (row || !s->ops->sample_language) {
                rows[0] = row;
                return row ? 1 : 0;
        }
        for (size_t i = 0; i < s->n_samples; i++) {
                if (s->ops->sample_language(s, &s->samples[i], &row, err) < 0)
                        return -1;
                size_t k = 0;
                while (k < n && rows[k] != row)
                        k++;
                if (row && k == n && n < max)
                        rows[n++] = row;
        }
        return (int)n;
}

#define MAX_LANGUAGES 32

/* The languages other than Python a suite needs, and the options to build
 * them with (the tool path). */
struct suite_langs {
        const struct lang_row *rows[MAX_LANGUAGES];
        int n;
        struct lang_opts o;
};

/* 1 with *l set; 0: Python only; -1 with err. */
static int suite_langs(const struct suite *s, struct suite_langs *l, struct sbx_err *err)
{
        size_t max;

        lang_rows(&max);
        if ((l->n = languages(s, l->rows, max < MAX_LANGUAGES ? max : MAX_LANGUAGES, err)) <= 0)
                return l->n;
        return lang_opts_init(&l->o, err) < 0 ? -1 : 1;
}

int suite_lang_check(const struct suite *s, int64_t memory_bytes, struct sbx_err *err)
{
        struct suite_langs l;
        int rc = suite_langs(s, &l, err);

        if (rc <= 0)
                return rc;
        for (int i = 0; i < l.n; i++)
                if (lang_check(l.rows[i], l.o.tool_path, memory_bytes, err) < 0)
                        return sbx_err_wrap(err, "suite %s: ", s->def.name);
        return 0;
}

int suite_lang_prepare(struct suite *s, struct sandbox *sb, const char *data_dir,
                       struct sbx_err *err)
{
        struct suite_langs l;
        int rc = suite_langs(s, &l, err);

        if (rc <= 0)
                return rc;
        if (s->def.row && s->def.row->support_set &&
            asprintf(&s->support_dir, "%s/%s", data_dir, s->def.row->support_set) < 0) {
                s->support_dir = NULL;
                return sbx_fail_oom(err, "support");
        }
        l.o.support_dir = s->support_dir;
        l.o.support_set = s->def.row ? s->def.row->support_set : NULL;
        if (!(s->lang_jobs = calloc(s->n_samples + 1, sizeof(*s->lang_jobs))))
                return sbx_fail_oom(err, "jobs");
        if (lang_session_open(&s->lang, sb, &l.o, err) < 0)
                return sbx_err_wrap(err, "suite %s: ", s->def.name);
        for (int i = 0; i < l.n; i++)
                if (lang_session_prepare(s->lang, l.rows[i], err) < 0)
                        return sbx_err_wrap(err, "suite %s: ", s->def.name);
        return 0;
}

int suite_lang_start(struct suite *s, const struct suite_sample *smp, const char *program,
                     int64_t wall_ms, int64_t cpu_s, struct sbx_run **run, struct sbx_err *err)
{
        const struct suite_task *t = &s->tasks[smp->task];
        struct lang_program p = {
                .row = suite_language(s), .source = program, .source_len = strlen(program),
                .timeout_ms = wall_ms, .cpu_limit_s = cpu_s,
                .compile_timeout_ms = s->compile_timeout_ms,
        };

        if (!s->lang || !p.row)
                return sbx_fail_code(err, SBX_EXIT_SANDBOX, 0, "suite %s: not prepared", s->def.name);
        if (s->ops->lang_flags)
                s->ops->lang_flags(s, t, &p.flags, &p.libs);
        return lang_job_start(s->lang, &p, &s->lang_jobs[smp->index], run, err);
}

int suite_lang_next(struct suite *s, const struct suite_sample *smp, struct run_result *res,
                    struct sbx_run **run, struct sbx_err *err)
{
        struct lang_job *job = s->lang_jobs ? s->lang_jobs[smp->index] : NULL;

        return job ? lang_job_next(job, res, run, err) : 0;
}

void suite_lang_result(const struct suite *s, const struct suite_sample *smp,
                       struct run_result *res)
{
        lang_job_result(s->lang_jobs[smp->index], res);
}

void suite_lang_verdict(const struct suite *s, const struct suite_sample *smp,
                        struct verdict *v)
{
        const struct lang_job *job = s->lang_jobs ? s->lang_jobs[smp->index] : NULL;
        const struct lang_build_info *b = job ? lang_job_build(job) : NULL;

        if (!b || b->status == LANG_BUILD_NONE)
                return;
        v->compile = (struct verdict_compile){
                .built = true, .status = lang_build_name(b->status),
                .cached = b->status == LANG_BUILD_CACHED || b->from_cache,
                .duration_s = b->duration_s, .cpu_s = b->cpu_s,
                .detail = b->detail, .message = b->message,
        };
}

void suite_lang_release(struct suite *s, const struct suite_sample *smp)
{
        if (!s->lang_jobs)
                return;
        lang_job_free(s->lang_jobs[smp->index]);
        s->lang_jobs[smp->index] = NULL;
}

void suite_lang_free(struct suite *s)
{
        for (size_t i = 0; s->lang_jobs && i < s->n_samples; i++)
                lang_job_free(s->lang_jobs[i]);
        free(s->lang_jobs);
        s->lang_jobs = NULL;
        lang_session_close(s->lang);
        s->lang = NULL;
        free(s->support_dir);
        s->support_dir = NULL;
}
