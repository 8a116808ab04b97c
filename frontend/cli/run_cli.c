/* The single-run modes: --file, --workdir DIR -- ARGV, --probe. The
 * program's output is captured (capped) and printed after the run, then a
 * summary line on stderr; --json prints one object instead. */
#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "driver.h"
#include "output.h"
#include "results.h"
#include "sandbox.h"
#include "stop_signals.h"
#include "trace.h"
#include "util.h"

#define PROGRAM_MAX_BYTES (64LL << 20)

static int report_error(const struct sbx_err *err)
{
        fprintf(stderr, "sbx-run: %s\n", err->msg);
        return err->exit_code ? err->exit_code : SBX_EXIT_USAGE;
}

static void fill_sb_opts(struct cli_opts *opts)
{
        /* One real run proves the helper or bwrap; --repeat measures runs alone and
         * --print-argv runs nothing, so both probe first. */
        opts->sb.probe_by_first_run = !opts->repeat && !opts->print_argv;
        opts->sb.env = strvec_list(&opts->env);
        opts->sb.ro_binds = strvec_list(&opts->ro_binds);
        opts->sb.packages = strvec_list(&opts->packages);
        opts->sb.provision = strvec_list(&opts->provision);
}

static void print_json(const struct run_result *res, const char *summary)
{
        cJSON *o = run_result_to_json(res, summary);
        char *text = o ? cJSON_PrintUnformatted(o) : NULL;
        if (text)
                printf("%s\n", text);
        free(text);
        cJSON_Delete(o);
}

/* The program's bytes as they are, except to a terminal, which would act
 * on its escape sequences (clipboard, title, hidden or overwritten text). */
static void pass_output(FILE *fp, const struct run_output *o)
{
        if (!o->len)
                return;
        if (!isatty(fileno(fp))) {
                fwrite(o->data, 1, o->len, fp);
                return;
        }
        auto_free char *safe = output_terminal_escape(o->data, o->len, true);
        if (safe)
                fputs(safe, fp);
}

static void print_passthrough(const struct run_result *res, const char *summary,
                              bool quiet)
{
        pass_output(stdout, &res->out);
        fflush(stdout);
        pass_output(stderr, &res->err);
        if (res->out.truncated || res->err.truncated)
                fprintf(stderr, "sbx-run: output truncated (stdout %zu bytes, "
                        "stderr %zu bytes written in all)\n", res->out.total,
                        res->err.total);
        if (quiet)
                return;
        /* it may quote the program's last stderr line: always escaped */
        auto_free char *safe = output_terminal_escape(summary ? summary : "?",
                                                      summary ? strlen(summary) : 1, false);
        fprintf(stderr, "sbx-run: %s [%s, tier %s, %.3f s]\n", safe ? safe : "?",
                run_status_name(res->status), tier_name(res->tier), res->duration_s);
}

/* The one place the library's warnings reach the user (sandbox_opts.warn,
 * set for every mode by cli.c). */
void cli_print_warning(const char *msg, void *ctx)
{
        fprintf(stderr, "sbx-run: %s\n", msg);
}

static volatile sig_atomic_t stop_signal;

static void on_stop(int sig)
{
        stop_signal = sig;
}

/* ^C or a kill of sbx-run takes the whole run down (in the weak tiers its
 * daemons too, through the sweep), then sbx-run dies of the same signal. */
int cli_catch_stop_signals(bool on)
{
        static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };

        return sbx_catch_signals(sigs, sizeof(sigs) / sizeof(*sigs),
                                 on ? on_stop : NULL, NULL);
}

static int run_interruptible(struct sandbox *sb, const struct run_spec *spec,
                             struct run_result *res, struct sbx_err *err)
{
        if (cli_catch_stop_signals(true) < 0)
                return sbx_fail_code(err, SBX_EXIT_SANDBOX, errno, "signal handlers");
        if (sbx_run_sync(sb, spec, &stop_signal, res, err) < 0) {
                (void)cli_catch_stop_signals(false);        /* the error is what counts */
                return -1;
        }
        return 0;
}

/* A --file program and where its run finds it. The program is copied,
 * never passed on argv (HumanEval+ programs reach 500 KB) and never run in
 * place (the user's file stays out of reach). Where the tier copies a file
 * in itself (bwrap's --ro-bind-data) the copy is a memfd and the workdir a
 * path inside the sandbox only: no inode on the host, where each costs
 * 0.2-0.7 ms of ext4's allocator (docs/performance.md). Else, or once a
 * run falls back to a tier that cannot, a workdir on the host with the
 * copy in it. */
struct file_program {
        const char *src;
        bool sole;              /* the session's only run: the scratch root is its workdir */
        int memfd;              /* -1: none, the copy goes to the host */
        bool on_host;           /* dir was made on the host (dst in it) */
        char *dir, *dst;        /* the workdir and the program's path in it */
        char *argv[5];
        /* --warm: the trusted driver's plain mode runs it, the shape a
         * zygote runs (with a suite sample's isolation), from a host
         * workdir under the session's scratch root */
        bool warm;
        struct driver_argv plain;
};

static const char *const program_name = "program.py";

static int copy_capped(int in, int out, const char *src, const char *dst, struct sbx_err *err)
{
        char buf[65536];
        long long total = 0;
        ssize_t n;

        while ((n = read(in, buf, sizeof(buf))) != 0) {
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0)
                        return sbx_fail(err, errno, "--file %s", src);
                total += n;
                if (total > PROGRAM_MAX_BYTES)
                        return sbx_fail(err, 0, "--file %s: larger than %lld bytes",
                                        src, PROGRAM_MAX_BYTES);
                if (sbx_write_all(out, buf, (size_t)n) < 0)
                        return sbx_fail_code(err, SBX_EXIT_SANDBOX, errno, "writing %s", dst);
        }
        return 0;
}

/* The memfd, when the tier takes one; without memfds, the host copy. */
static int program_to_memory(struct file_program *fp, struct sbx_err *err)
{
        auto_fd in = open(fp->src, O_RDONLY | O_CLOEXEC);

        if (in < 0)
                return sbx_fail(err, errno, "--file %s", fp->src);
        fp->memfd = memfd_create("sbx-program", MFD_CLOEXEC);
        if (fp->memfd < 0)
                return 0;
        return copy_capped(in, fp->memfd, fp->src, "the program's memfd", err);
}

static int program_to_host(struct sandbox *sb, struct file_program *fp, struct sbx_err *err)
{
        fp->dir = fp->sole ? sandbox_sole_workdir(sb, err) : sandbox_mkdtemp(sb, err);
        if (!fp->dir)
                return -1;
        fp->on_host = true;
        if (asprintf(&fp->dst, "%s/%s", fp->dir, program_name) < 0) {
                fp->dst = NULL;
                return sbx_fail_oom(err, "workdir");
        }
        auto_fd out = open(fp->dst, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
        if (out < 0)
                return sbx_fail_code(err, SBX_EXIT_SANDBOX, errno, "%s", fp->dst);
        if (fp->memfd >= 0) {
                if (lseek(fp->memfd, 0, SEEK_SET) < 0)
                        return sbx_fail_code(err, SBX_EXIT_SANDBOX, errno, "the program's memfd");
                return copy_capped(fp->memfd, out, fp->src, fp->dst, err);
        }
        auto_fd in = open(fp->src, O_RDONLY | O_CLOEXEC);
        if (in < 0)
                return sbx_fail(err, errno, "--file %s", fp->src);
        return copy_capped(in, out, fp->src, fp->dst, err);
}

/* Before the first run and after a fallback: the tier in hand decides. */
static int program_place(struct sandbox *sb, struct file_program *fp,
                         struct run_spec *spec, struct sbx_err *err)
{
        bool inner = fp->memfd >= 0 && sandbox_binds_data(sb);

        if (!fp->on_host && !(inner && fp->dir)) {
                free(fp->dir);
                free(fp->dst);
                fp->dir = fp->dst = NULL;
                if (!inner && program_to_host(sb, fp, err) < 0)
                        return -1;
                if (inner && (!(fp->dir = sandbox_inner_workdir(err)) ||
                              asprintf(&fp->dst, "%s/%s", fp->dir, program_name) < 0)) {
                        fp->dst = NULL;
                        return fp->dir ? sbx_fail_oom(err, "workdir") : -1;
                }
        }
        fp->argv[3] = fp->dst;
        spec->argv = fp->argv;
        if (fp->warm) {
                driver_argv_init(&fp->plain, fp->argv[0]);
                driver_argv_plain(&fp->plain, fp->dst, false);
                spec->argv = (char *const *)fp->plain.argv;
        }
        spec->workdir = fp->dir;
        spec->workdir_data = !fp->on_host;
        spec->data_fd = fp->memfd;
        return 0;
}

/* The program file alone, unless a weak tier's program wrote more; the
 * scratch root's own rmdir (or walk) is sandbox_close's. */
static void program_free(struct file_program *fp)
{
        if (fp->on_host && fp->sole && fp->dst)
                unlink(fp->dst);
        else if (fp->on_host && !fp->sole)
                sandbox_rmdtemp(fp->dir, fp->dst ? program_name : NULL);
        if (fp->memfd >= 0)
                close(fp->memfd);
        free(fp->dir);
        free(fp->dst);
}

/* fp: a --file run's program, placed again for the tier a fallback chose */
static int run_and_report(struct sandbox *sb, struct run_spec *spec,
                          const struct cli_opts *opts, struct file_program *fp)
{
        struct run_result res;
        struct sbx_err err = { 0 };
        bool json = opts->json;
        int again;

        if (opts->print_argv)
                return sandbox_print_argv(sb, spec, stdout) == 0 ? SBX_EXIT_OK : SBX_EXIT_SANDBOX;
        do {
                if (run_interruptible(sb, spec, &res, &err) < 0)
                        return report_error(&err);
                again = stop_signal ? 0 : sandbox_recheck_tier(sb, &res, &err);
                if (again)      /* the program never started: run it in the tier now chosen */
                        run_result_free(&res);
                if (again > 0 && fp && program_place(sb, fp, spec, &err) < 0)
                        return report_error(&err);
        } while (again > 0);
        if (again < 0)
                return report_error(&err);
        if (stop_signal) {
                run_result_free(&res);
                return 128 + stop_signal;
        }
        auto_free char *summary = run_result_summary(&res);
        if (json)
                print_json(&res, summary);
        else
                print_passthrough(&res, summary, opts->sb.quiet);
        fflush(stdout);         /* the answer before the cleanup */
        sbx_trace("reported");
        run_result_free(&res);
        switch (res.status) {
        case RUN_OK: return SBX_EXIT_OK;
        case RUN_ERROR: return SBX_EXIT_SANDBOX;
        default: return SBX_EXIT_FAILED;
        }
}

static int run_file_once(struct sandbox *sb, struct cli_opts *opts, bool sole)
{
        struct sbx_err err = { 0 };
        struct file_program fp = {
                .src = opts->file, .sole = sole, .memfd = -1, .warm = opts->sb.warm,
                .argv = { (char *)sandbox_python(sb), "-I", "-B", NULL, NULL },
        };
        const char *files[] = { program_name, NULL };
        struct run_spec spec = {
                .private_workdir = true, .workdir_files = files,
                .timeout_ms = opts->timeout_ms, .cpu_limit_s = opts->cpu_limit_s,
                .stdin_path = opts->stdin_path,
        };
        int rc;

        if ((!fp.warm && sandbox_binds_data(sb) && program_to_memory(&fp, &err) < 0) ||
            program_place(sb, &fp, &spec, &err) < 0) {
                program_free(&fp);
                return report_error(&err);
        }
        sbx_trace("workdir and program copy");
        rc = run_and_report(sb, &spec, opts, &fp);
        program_free(&fp);
        return rc;
}

static double tv_ms(const struct timeval *tv)
{
        return (double)tv->tv_sec * 1000.0 + (double)tv->tv_usec / 1000.0;
}

static int cmp_i64(const void *a, const void *b)
{
        int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

        return (x > y) - (x < y);
}

/* --repeat: the per-run cost the suite runner pays (workdir, copy, spawn,
 * capture, reap, cleanup), without the once-per-process probe. */
static int run_file_repeated(struct sandbox *sb, struct cli_opts *opts)
{
        int n = opts->repeat > 0 ? opts->repeat : 1;
        int64_t *us = calloc((size_t)n, sizeof(*us));
        struct rusage before, after;
        int rc = SBX_EXIT_OK;

        if (!us || getrusage(RUSAGE_SELF, &before) < 0) {
                free(us);
                return SBX_EXIT_SANDBOX;
        }
        for (int i = 0; i < n && rc != SBX_EXIT_SANDBOX && !stop_signal; i++) {
                int64_t t0 = sbx_now_ns();
                int one = run_file_once(sb, opts, false);
                us[i] = (sbx_now_ns() - t0) / 1000;
                if (one != SBX_EXIT_OK)
                        rc = one;
        }
        getrusage(RUSAGE_SELF, &after);
        qsort(us, (size_t)n, sizeof(*us), cmp_i64);
        /* sbx-run's own cpu (children excluded): what the frontend adds to
         * each run, independent of how loaded the machine is */
        double self_ms = (tv_ms(&after.ru_utime) + tv_ms(&after.ru_stime) -
                          tv_ms(&before.ru_utime) - tv_ms(&before.ru_stime)) / n;
        fprintf(stderr, "sbx-run: %d runs, tier %s, median %.3f ms, min %.3f ms, "
                "sbx-run's own cpu %.3f ms/run\n", n, tier_name(sandbox_tier(sb)),
                (double)us[n / 2] / 1000.0, (double)us[0] / 1000.0, self_ms);
        free(us);
        return rc;
}

const volatile sig_atomic_t *cli_stop_flag(void)
{
        return &stop_signal;
}

/* After cleanup (workdir, session), die of the signal that stopped us. */
int cli_reraise_stop(int rc)
{
        if (stop_signal) {
                if (cli_catch_stop_signals(false) < 0)
                        return 128 + stop_signal;
                raise(stop_signal);
        }
        return rc;
}

int run_cli_file(struct cli_opts *opts)
{
        struct sandbox *sb;
        struct sbx_err err = { 0 };
        struct stat st;
        int rc;

        fill_sb_opts(opts);
        if (stat(opts->file, &st) < 0 || !S_ISREG(st.st_mode)) {
                sbx_fail(&err, errno, "--file %s: not a readable regular file", opts->file);
                return report_error(&err);
        }
        if (sandbox_open(&sb, &opts->sb, &err) < 0)
                return report_error(&err);
        rc = opts->repeat ? run_file_repeated(sb, opts) : run_file_once(sb, opts, true);
        sandbox_close(sb);
        return cli_reraise_stop(rc);
}


/* ./prog or sub/prog: a program in the workdir, which the run sees at the
 * same path (a compiled sample's binary); NULL for anything else (an
 * absolute path, a bare name, a path leaving the workdir). */
static char *workdir_relative(const char *workdir, const char *arg0)
{
        bool dot = !strncmp(arg0, "./", 2);
        size_t n;
        char *path = NULL;

        while (arg0[0] == '.' && arg0[1] == '/')
                arg0 += 2;
        n = strlen(arg0);
        if (!n || arg0[0] == '/' || (!dot && !strchr(arg0, '/')) || !strcmp(arg0, "..") ||
            !strncmp(arg0, "../", 3) || strstr(arg0, "/../") ||
            (n >= 3 && !strcmp(arg0 + n - 3, "/..")))
                return NULL;
        if (asprintf(&path, "%s/%s", workdir, arg0) < 0)
                return NULL;
        return path;
}

int run_cli_argv(struct cli_opts *opts)
{
        struct sandbox *sb;
        struct sbx_err err = { 0 };
        struct stat st;
        auto_free char *workdir = realpath(opts->workdir, NULL);
        auto_free char *arg0 = NULL;
        int rc;

        fill_sb_opts(opts);
        if (!workdir || stat(workdir, &st) < 0 || !S_ISDIR(st.st_mode)) {
                sbx_fail(&err, errno, "--workdir %s: not a directory", opts->workdir);
                return report_error(&err);
        }
        if (sandbox_open(&sb, &opts->sb, &err) < 0)
                return report_error(&err);
        arg0 = workdir_relative(workdir, opts->argv[0]);
        if (!arg0)
                arg0 = sandbox_resolve_argv0(sb, opts->argv[0]);
        if (!arg0) {
                sandbox_close(sb);
                sbx_fail(&err, 0, "%s: not found (give an absolute path, a path in "
                         "--workdir such as ./prog, or a name in %s)", opts->argv[0],
                         SANDBOX_PATH);
                return report_error(&err);
        }
        size_t argc = 0;
        while (opts->argv[argc])
                argc++;
        char **argv = calloc(argc + 1, sizeof(*argv));
        if (!argv) {
                sandbox_close(sb);
                return SBX_EXIT_SANDBOX;
        }
        argv[0] = arg0;
        for (size_t i = 1; i < argc; i++)
                argv[i] = opts->argv[i];
        struct run_spec spec = {
                .argv = argv, .workdir = workdir, .private_workdir = false,
                .timeout_ms = opts->timeout_ms, .cpu_limit_s = opts->cpu_limit_s,
                .stdin_path = opts->stdin_path,
        };
        rc = run_and_report(sb, &spec, opts, NULL);
        free(argv);
        sandbox_close(sb);
        return cli_reraise_stop(rc);
}

int run_cli_probe(struct cli_opts *opts)
{
        struct sbx_err err = { 0 };
        int rc;

        fill_sb_opts(opts);
        rc = sandbox_probe_report(&opts->sb, opts->json, stdout, &err);
        if (rc < 0)
                return report_error(&err);
        return rc == 0 ? SBX_EXIT_OK : SBX_EXIT_SANDBOX;
}
