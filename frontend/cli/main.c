/* sbx-run: parse, dispatch, turn errors into a message and an exit code. */
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "limit.h"
#include "http_launch.h"
#include "serve.h"
#include "trace.h"

/* Run as root, the helper refuses and every other tier (bwrap, unshare,
 * unshare-root, rlimit) runs the candidate as uid 0: refused unless
 * --allow-root says so. --dump runs nothing. */
static int refuse_root(const struct cli_opts *o)
{
        bool runs = o->mode == CLI_MODE_FILE || o->mode == CLI_MODE_ARGV || o->mode == CLI_MODE_SERVE ||
                    (o->mode == CLI_MODE_SUITE && !o->dump_dir);

        if (!runs || o->allow_root || geteuid() != 0)
                return 0;
        fprintf(stderr, "sbx-run: refusing to run candidate programs as root (uid 0): "
                "the helper refuses root and every other tier would run them as uid 0. "
                "Run sbx-run as a normal user, "
                "or pass --allow-root to accept this.\n");
        return -1;
}

/* -j as the modes will run it, and the open files it needs, before any
 * of them opens a pipe (the soft RLIMIT_NOFILE is often 1024). */
static int prepare_jobs(struct cli_opts *o, struct sbx_err *err)
{
        if (o->mode != CLI_MODE_SUITE && o->mode != CLI_MODE_SERVE)
                return 0;
        o->jobs = limit_jobs(o->jobs);
        return o->dump_dir ? 0 : limit_reserve_fds(o->jobs, err);
}

static int serve(struct cli_opts *o, int argc, char **argv)
{
        struct serve_opts so = { .sb = o->sb, .timeout_ms = o->timeout_ms,
                                 .cpu_limit_s = o->cpu_limit_s, .jobs = o->jobs,
                                 .compile_timeout_ms = o->compile_timeout_ms };

        return serve_main(&so, argc, argv);
}

/* --file: Python's own path, or another language's build and run. */
static int run_file(struct cli_opts *o)
{
        struct sbx_err err = { 0 };
        const struct lang_row *row = cli_file_language(o, &err);

        if (!row && err.msg[0]) {
                fprintf(stderr, "sbx-run: %s\n", err.msg);
                return err.exit_code;
        }
        return row ? run_cli_lang(o, row) : run_cli_file(o);
}

/* sbx-run's own soft RLIMIT_CPU (prlimit --cpu=N:unlimited, a batch
 * system's): its zygotes inherit it and retire before it (docs/warm.md),
 * but sbx-run's own CPU grows with the number of samples, and its SIGXCPU
 * would kill it half way through a suite, with runs in flight. A handler,
 * not SIG_IGN, so that exec resets it and no run inherits it; the hard
 * limit still ends sbx-run. */
static void on_own_cpu_limit(int sig)
{
        (void)sig;
}

static int survive_own_cpu_limit(void)
{
        struct sigaction sa = { .sa_handler = on_own_cpu_limit, .sa_flags = SA_RESTART };

        sigemptyset(&sa.sa_mask);
        return sigaction(SIGXCPU, &sa, NULL);
}

int main(int argc, char **argv)
{
        struct cli_opts opts;
        struct sbx_err err = { 0 };
        int rc;

        sbx_trace_init();
        if (survive_own_cpu_limit() < 0) {
                fprintf(stderr, "sbx-run: sigaction(SIGXCPU): %s\n", strerror(errno));
                return SBX_EXIT_SANDBOX;
        }
        if (http_launch_wanted(argc, argv))
                return http_launch(argc, argv);
        if (cli_parse(argc, argv, &opts, &err) < 0 || prepare_jobs(&opts, &err) < 0) {
                fprintf(stderr, "sbx-run: %s\n", err.msg);
                cli_opts_free(&opts);
                return err.exit_code;
        }
        sbx_trace("parse");
        if (refuse_root(&opts) < 0) {
                cli_opts_free(&opts);
                return SBX_EXIT_USAGE;
        }
        switch (opts.mode) {
        case CLI_MODE_HELP: cli_usage(stdout); rc = SBX_EXIT_OK; break;
        case CLI_MODE_VERSION: printf("sbx-run %s\n", SBX_VERSION); rc = SBX_EXIT_OK; break;
        case CLI_MODE_FILE: rc = run_file(&opts); break;
        case CLI_MODE_ARGV: rc = run_cli_argv(&opts); break;
        case CLI_MODE_PROBE: rc = run_cli_probe(&opts); break;
        case CLI_MODE_SUITE: rc = suite_cli_main(&opts); break;
        case CLI_MODE_MERGE: rc = merge_cli_main(&opts); break;
        case CLI_MODE_SERVE: rc = serve(&opts, argc, argv); break;
        default: cli_usage(stderr); rc = SBX_EXIT_USAGE; break;
        }
        cli_opts_free(&opts);
        if (fflush(stdout) != 0 && rc == SBX_EXIT_OK)
                rc = SBX_EXIT_SANDBOX;
        sbx_trace("teardown");
        return rc;
}
