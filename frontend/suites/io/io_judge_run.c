/* The runs of one sample's judging (io_judge.h): a test's run of the
 * program, a checker's run on its output, what the sandbox said of each,
 * and the output compared with the answer outside the sandbox. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "checker.h"
#include "compare.h"
#include "io_judge.h"
#include "io_runner.h"
#include "limit.h"
#include "util.h"

int64_t io_judge_limit_ms(const struct suite_judge_opts *o, const struct io_problem *p,
                          const struct lang_row *row)
{
        double scale = o->time_scale > 0 ? o->time_scale :
                       p->format == IO_FORMAT_CODECONTESTS && !row ? IO_CPP_LIMIT_SCALE : 1;

        if (o->test_timeout_ms > 0)
                return o->test_timeout_ms;
        if (p->time_limit_ms > 0)
                return (int64_t)ceil((double)p->time_limit_ms * scale);
        return o->timeout_ms > 0 ? o->timeout_ms : DEFAULT_TIMEOUT_MS;
}

int64_t io_judge_memory(const struct sandbox *sb, int64_t want)
{
        long long session = sandbox_memory_bytes(sb);

        return want > 0 && (session < 0 || want < session) ? want : 0;
}

/* Room for a wrong program's flood and no more: 4 x the answer + 1 MiB,
 * at least IO_OUTPUT_MIN_CAP_BYTES. */
int64_t io_judge_output_cap(const struct io_test *t)
{
        int64_t cap = 4 * (int64_t)t->output.len + (1LL << 20);

        return cap > IO_OUTPUT_MIN_CAP_BYTES ? cap : IO_OUTPUT_MIN_CAP_BYTES;
}

/* A run the test's data could not be given to (its input file gone or not
 * a file: SBX_EXIT_USAGE from the engine) is the judge's error on that
 * test; any other failure to start stops sbx-run. */
static int not_started(struct io_judge *j, const char *what, enum io_verdict *tv,
                       struct sbx_err *err)
{
        if (err->exit_code != SBX_EXIT_USAGE)
                return -1;
        snprintf(j->why, sizeof(j->why), "%s could not be run: %.200s", what, err->msg);
        *err = (struct sbx_err){ 0 };
        *tv = IO_V_JUDGE_ERROR;
        return 0;
}

static const char *const prelude_names[] = {
        [IO_PRELUDE_NONE] = NULL, [IO_PRELUDE_LCB] = "lcb", [IO_PRELUDE_APPS] = "apps",
};

/* PYTHON -I -B -c RUNNER [--prelude NAME] [--call STYLE FN] PROGRAM, the
 * same for every test of the problem. */
static void program_argv(const struct io_judge *j, const char **argv)
{
        size_t n = IO_RUNNER_ARGC;

        io_runner_argv(argv, sandbox_python(j->sb));
        if (j->p->prelude != IO_PRELUDE_NONE) {
                argv[n++] = "--prelude";
                argv[n++] = prelude_names[j->p->prelude];
        }
        if (j->p->call != IO_CALL_NONE) {
                argv[n++] = "--call";
                argv[n++] = j->p->call == IO_CALL_APPS ? "apps" : "lcb";
                argv[n++] = j->p->fn_name;
        }
        argv[n++] = j->files[0];
        argv[n] = NULL;
}

/* Python's run of a test: the runner on the program file. */
static void python_spec(const struct io_judge *j, const char **argv, struct run_spec *spec)
{
        struct limit_derived lim = limit_derive(&(struct limit_ask){
                .timeout_ms = j->limit_ms, .suite = true });

        program_argv(j, argv);
        *spec = (struct run_spec){
                .argv = (char *const *)argv, .workdir = j->workdir, .private_workdir = true,
                .workdir_files = j->files, .timeout_ms = lim.wall_ms, .cpu_limit_s = lim.cpu_s,
                /* the problem's own limit, where below the session's --memory */
                .memory_bytes = io_judge_memory(j->sb, j->p->memory_limit_bytes),
        };
}

int io_judge_start_test(struct io_judge *j, struct sbx_run **run, enum io_verdict *tv,
                        struct sbx_err *err)
{
        const struct io_test *t = &j->p->tests[j->test];
        const char *argv[IO_RUNNER_MAX_ARGS];
        struct run_spec spec;

        /* The same argv, environment, paths and cwd for every test: only
         * the input differs (nothing else of the problem is in its sandbox).
         * Another language's: its built program's spec, limits and all. */
        if (j->built)
                spec = *j->built;
        else
                python_spec(j, argv, &spec);
        spec.stdin_path = t->input.path;
        spec.stdin_data = t->input.path ? NULL : t->input.text;
        spec.stdin_len = t->input.path ? 0 : t->input.len;
        spec.stdout_fd = j->out_fd;
        spec.stdout_limit_bytes = io_judge_output_cap(t);
        if (!spec.stdin_path && !spec.stdin_data)
                spec.stdin_data = "";
        if (ftruncate(j->out_fd, 0) < 0 || lseek(j->out_fd, 0, SEEK_SET) < 0)
                return sbx_fail_code(err, SBX_EXIT_SANDBOX, errno, "%s: the output file", j->scratch);
        if (sbx_run_start(j->sb, &spec, run, err) == 0)
                return 1;
        return not_started(j, "the test", tv, err);
}

int io_judge_start_build(struct io_judge *j, struct sbx_run **run, struct sbx_err *err)
{
        const char *argv[IO_RUNNER_MAX_ARGS];

        io_runner_argv(argv, sandbox_python(j->sb));
        argv[IO_RUNNER_ARGC] = "--compile";
        argv[IO_RUNNER_ARGC + 1] = j->files[0];
        argv[IO_RUNNER_ARGC + 2] = NULL;
        struct run_spec spec = {
                .argv = (char *const *)argv, .workdir = j->workdir, .private_workdir = true,
                .workdir_files = j->files, .timeout_ms = IO_BUILD_TIMEOUT_MS,
                .stdout_limit_bytes = IO_CHECKER_OUTPUT_BYTES,
        };
        return sbx_run_start(j->sb, &spec, run, err) < 0 ? -1 : 1;
}

/* dir/name holds d: its text, or its file's bytes. */
static int put_data(const char *dir, const char *name, const struct io_data *d,
                    struct sbx_err *err)
{
        auto_free char *path = NULL;
        auto_fd out = -1, in = -1;
        struct stat st;

        if (asprintf(&path, "%s/%s", dir, name) < 0)
                return sbx_fail_oom(err, "%s", name);
        out = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
        if (out < 0)
                return sbx_fail_code(err, SBX_EXIT_SANDBOX, errno, "%s", path);
        if (!d->path)
                return sbx_write_all(out, d->text ? d->text : "", d->text ? d->len : 0) < 0 ?
                       sbx_fail_code(err, SBX_EXIT_SANDBOX, errno, "%s", path) : 0;
        if ((in = open(d->path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)) < 0 || fstat(in, &st) < 0 ||
            !S_ISREG(st.st_mode))
                return sbx_fail_code(err, SBX_EXIT_USAGE, in < 0 ? errno : 0, "%s: not a readable "
                                     "regular file", d->path);
        if (sbx_copy_fd(out, in, st.st_size) < 0)
                return sbx_fail_code(err, SBX_EXIT_SANDBOX, errno, "copying %s", d->path);
        return 0;
}

int io_judge_start_checker(struct io_judge *j, struct sbx_run **run, enum io_verdict *tv,
                           struct sbx_err *err)
{
        const struct io_test *t = &j->p->tests[j->test];
        const char *checker = j->o->checker ? j->o->checker : j->p->checker;
        const char *files[] = { io_checker_name(checker), IO_CHECKER_INPUT, IO_CHECKER_OUTPUT,
                                IO_CHECKER_ANSWER, NULL };
        struct strvec argv = { 0 };
        int rc;

        if (put_data(j->checker_dir, IO_CHECKER_INPUT, &t->input, err) < 0 ||
            put_data(j->checker_dir, IO_CHECKER_ANSWER, &t->output, err) < 0)
                return not_started(j, "the checker", tv, err);
        /* A warm run copies its files into a tmpfs of 64 MiB (a cold one
         * binds them): large ones go cold, never overflow it. */
        bool warm = (int64_t)(t->input.len + t->output.len) * 2 < IO_CHECKER_WARM_BYTES;
        if (io_checker_argv(checker, sandbox_python(j->sb), j->checker_dir, warm, &argv, err) < 0)
                return -1;
        /* A checker is code too: a run of its own, as any program's. */
        struct run_spec spec = {
                .argv = argv.items, .workdir = j->checker_dir, .private_workdir = true,
                .workdir_files = files, .timeout_ms = IO_CHECKER_TIMEOUT_MS,
                .stdout_limit_bytes = IO_CHECKER_OUTPUT_BYTES,
        };
        rc = sbx_run_start(j->sb, &spec, run, err) == 0 ? 1 : not_started(j, "the checker", tv, err);
        strvec_free(&argv);
        return rc;
}

/* The checker's own workdir: the checker, once; its program's output is
 * the test's (the judge's output file is made there). */
int io_judge_checker_dir(struct io_judge *j, struct sbx_err *err)
{
        const char *checker = j->o->checker ? j->o->checker : j->p->checker;
        struct io_data src = { .path = (char *)checker };

        if (asprintf(&j->checker_dir, "%s/check", j->scratch) < 0) {
                j->checker_dir = NULL;
                return sbx_fail_oom(err, "checker dir");
        }
        if (mkdir(j->checker_dir, 0700) < 0)
                return sbx_fail_code(err, SBX_EXIT_SANDBOX, errno, "%s", j->checker_dir);
        if (put_data(j->checker_dir, io_checker_name(checker), &src, err) < 0)
                return -1;
        if (chmod(j->checker_dir, 0755) < 0)
                return sbx_fail_code(err, SBX_EXIT_SANDBOX, errno, "%s", j->checker_dir);
        return 0;
}

enum io_verdict io_judge_compare(struct io_judge *j)
{
        const struct io_test *t = &j->p->tests[j->test];
        struct io_stream out, ans;
        struct io_diff d;
        struct sbx_err err = { 0 };
        auto_fd afd = -1;
        int rc = -1;

        if (lseek(j->out_fd, 0, SEEK_SET) < 0 || io_stream_fd(&out, j->out_fd, "output", &err) < 0) {
                snprintf(j->why, sizeof(j->why), "the output could not be read: %.200s", err.msg);
                return IO_V_JUDGE_ERROR;
        }
        if (t->output.path && ((afd = open(t->output.path, O_RDONLY | O_CLOEXEC)) < 0 ||
                               io_stream_fd(&ans, afd, "answer", &err) < 0))
                snprintf(err.msg, sizeof(err.msg), "%s: %s", t->output.path,
                         afd < 0 ? strerror(errno) : "out of memory");
        else if (!t->output.path)
                io_stream_mem(&ans, t->output.text ? t->output.text : "", t->output.len, "answer");
        if (!err.msg[0])
                rc = io_compare_streams(&j->p->compare, &out, &ans, &d, &err);
        io_stream_done(&out);
        io_stream_done(&ans);
        enum io_verdict v = io_verdict_of_compare(rc, &d, j->why, sizeof(j->why));
        if (rc < 0)
                snprintf(j->why, sizeof(j->why), "the outputs could not be compared: %.200s", err.msg);
        return v;
}

/* An interpreter that ran out of its RLIMIT_AS ends its traceback with
 * MemoryError and exits 1: a judge's memory limit, as a kill near the
 * limit is the helper's. */
static bool python_out_of_memory(const char *s, size_t n, const struct run_result *res)
{
        if (res->returncode != 1)
                return false;
        while (n > 0 && (s[n - 1] == '\n' || s[n - 1] == '\r' || s[n - 1] == ' '))
                n--;
        size_t start = n;
        while (start > 0 && s[start - 1] != '\n')
                start--;
        return n - start >= 11 && strncmp(s + start, "MemoryError", 11) == 0;
}

/* The other runtimes' words when an allocation fails under RLIMIT_AS
 * (each then aborts or exits non-zero): C++'s uncaught std::bad_alloc, a
 * JVM's OutOfMemoryError, Go's runtime, Rust's allocator, Node's heap. */
static const char *const out_of_memory_words[] = {
        "std::bad_alloc", "java.lang.OutOfMemoryError", "fatal error: runtime: out of memory",
        "memory allocation of ", "JavaScript heap out of memory", NULL,
};

static bool out_of_memory(const struct run_result *res)
{
        const char *s = res->err.tail_len ? res->err.tail : res->err.data;
        size_t n = res->err.tail_len ? res->err.tail_len : res->err.len;

        if (!s || (res->returncode == 0 && !res->signal))
                return false;
        if (python_out_of_memory(s, n, res))
                return true;
        for (size_t i = 0; out_of_memory_words[i]; i++)
                if (memmem(s, n, out_of_memory_words[i], strlen(out_of_memory_words[i])))
                        return true;
        return false;
}

void io_judge_run_of(const struct run_result *res, struct io_run *r)
{
        *r = (struct io_run){ .exit_code = res->returncode, .signal = res->signal,
                              .output_over_cap = res->output_limited, .wall_s = res->duration_s,
                              .cpu_s = res->cpu_s, .max_rss_kb = res->max_rss_kb,
                              .detail = res->detail };
        if (res->status == RUN_ERROR)
                r->end = IO_RUN_SETUP_ERROR;
        else if (res->status == RUN_TIMEOUT)
                r->end = strcmp(res->detail, "cpu-limit") == 0 ? IO_RUN_CPU_LIMIT : IO_RUN_TIMEOUT;
        else if (strcmp(res->detail, "memory-limit") == 0 || out_of_memory(res))
                r->end = IO_RUN_MEMORY_LIMIT;
        else
                r->end = res->signal ? IO_RUN_SIGNALED : IO_RUN_EXITED;
}
