/* A sample in a language of the language table other than Python (C++,
 * Java, Go, Rust, JavaScript...; io_judge.h): built once by lang/
 * (lang_run.h: the compile is the judge's first run, in the sample's slot,
 * the artifact from the compile cache when it was built before), its
 * program's first run test 0's, then one fresh run a test from the same
 * run spec (lang_job_run_spec) with that test's input. */
#include <stdio.h>
#include <string.h>

#include "io_judge.h"
#include "lang_run.h"
#include "limit.h"

/* Address-space limits count what a runtime reserves, not what it uses:
 * a JVM gets the problem's limit as its heap (-Xmx) and its reserve beside
 * it, Go and Node their measured floor (lang_table.c) on top of the
 * limit; a native program the limit itself; all cut to --memory
 * (io_judge_memory). 0: the session's. */
static int64_t program_memory(const struct lang_row *row, int64_t limit)
{
        if (limit <= 0)
                return 0;
        return limit + (row->heap_reserve_bytes ? row->heap_reserve_bytes : row->min_memory_bytes);
}

int io_judge_lang_start(struct io_judge *j, const struct io_judge_program *prog,
                        struct sbx_run **run, struct sbx_err *err)
{
        const struct io_test *t = &j->p->tests[0];
        struct limit_derived lim = limit_derive(&(struct limit_ask){
                .timeout_ms = j->limit_ms, .suite = true });
        struct lang_program lp = {
                .row = prog->row, .source = prog->source, .source_len = strlen(prog->source),
                .timeout_ms = lim.wall_ms, .cpu_limit_s = lim.cpu_s,
                .memory_bytes = io_judge_memory(j->sb, program_memory(prog->row,
                                                                     j->p->memory_limit_bytes)),
                .compile_timeout_ms = prog->compile_timeout_ms,
                .stdin_path = t->input.path,
                .stdin_data = t->input.path ? NULL : t->input.text ? t->input.text : "",
                .stdin_len = t->input.path ? 0 : t->input.len,
                .stdout_fd = j->out_fd, .stdout_limit_bytes = io_judge_output_cap(t),
        };
        int rc;

        if (!prog->ls)
                return sbx_fail_code(err, SBX_EXIT_SANDBOX, 0, "io judge: no session of builds "
                                     "for %s", prog->row->name);
        rc = lang_job_start(prog->ls, &lp, &j->job, run, err);
        if (rc == 0) {
                j->built = lang_job_run_spec(j->job);   /* a cache hit: test 0 runs */
                j->in_build = !j->built;
        }
        return rc;
}

int io_judge_lang_next(struct io_judge *j, struct run_result *res, struct sbx_run **run,
                       struct sbx_err *err)
{
        int rc = lang_job_next(j->job, res, run, err);

        if (rc == 1)
                j->built = lang_job_run_spec(j->job);
        return rc;
}

bool io_judge_lang_compile_error(const struct io_judge *j)
{
        return lang_job_build(j->job)->status == LANG_BUILD_COMPILE_ERROR;
}

/* "exit status 1: main.cpp:3:5: error: ...": the compiler's first error
 * line after the detail. */
void io_judge_lang_why(const struct io_judge *j, char *why, size_t size)
{
        const struct lang_build_info *b = lang_job_build(j->job);
        const char *m = b->message ? b->message : "";
        const char *e = strstr(m, "error");
        const char *line = e ? e : m;

        while (e && line > m && line[-1] != '\n')
                line--;
        snprintf(why, size, "%s%s%.*s", b->detail[0] ? b->detail : "did not build",
                 *line ? ": " : "", (int)strcspn(line, "\n"), line);
}

void io_judge_lang_verdict(const struct io_judge *j, struct verdict *v)
{
        const struct lang_build_info *b = lang_job_build(j->job);

        if (b->status == LANG_BUILD_NONE)
                return;
        v->compile = (struct verdict_compile){
                .built = true, .status = lang_build_name(b->status),
                .cached = b->status == LANG_BUILD_CACHED || b->from_cache,
                .duration_s = b->duration_s, .cpu_s = b->cpu_s,
                .detail = b->detail, .message = b->message,
        };
}

void io_judge_lang_free(struct io_judge *j)
{
        lang_job_free(j->job);
        j->job = NULL;
        j->built = NULL;
}
