/* sbx-run's parsed command line: one struct for every mode, filled by
 * cli_parse (cli.c) and read by the modes (single runs in run_cli.c, suites
 * in suite_cli.c). */
#ifndef SBX_CLI_H
#define SBX_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "err.h"
#include "sandbox.h"
#include "suite.h"
#include "util.h"

enum cli_mode {
        CLI_MODE_NONE = 0,
        CLI_MODE_FILE,          /* --file PROG.py */
        CLI_MODE_ARGV,          /* --workdir DIR -- ARGV... */
        CLI_MODE_PROBE,         /* --probe */
        CLI_MODE_SUITE,         /* --suite NAME|FILE.json (--samples or --canonical) */
        CLI_MODE_MERGE,         /* merge FILES... */
        CLI_MODE_SERVE,         /* --serve: JSON-lines requests on stdin (serve.c) */
        CLI_MODE_HELP,
        CLI_MODE_VERSION,
};

struct cli_opts {
        enum cli_mode mode;
        /* sandbox (every mode that runs something) */
        struct sandbox_opts sb;
        struct strvec env, ro_binds, packages, provision;   /* repeated options */
        int64_t timeout_ms;             /* 0 = mode's default (suite's or DEFAULT_TIMEOUT_MS) */
        int64_t cpu_limit_s;            /* --cpu; 0 = timeout + DEFAULT_CPU_SLACK_S */
        int64_t compile_timeout_ms;     /* --compile-timeout; 0 = the language's */
        bool json;
        int repeat;                     /* --repeat N: run N times, report per-run timing (bench) */
        bool print_argv;                /* --print-argv: show the tier's argv, run nothing */
        /* single runs */
        const char *file;
        const char *language;           /* --language: a row of lang/; NULL: from --file's name */
        const char *workdir;
        char *const *argv;              /* after "--" */
        const char *stdin_path;         /* --stdin FILE: the program's stdin (else /dev/null) */
        /* suites */
        const char *suite;              /* humaneval | mbpp | classeval | FILE.json */
        const char *problems;
        const char *samples;
        bool canonical;
        int jobs;                       /* 0 = number of CPUs */
        const char *out;                /* results JSONL; NULL = <samples>_results.jsonl */
        const char *summary;            /* summary JSON file, or NULL */
        const char *evalplus_results;   /* evalplus's eval_results.json, or NULL */
        const char *k_list;             /* "1,10,100" */
        bool resume;
        int shard_index, shard_count;   /* count 0 = no sharding */
        int progress;                   /* -1 auto (a terminal), 0 off, 1 on */
        int warm;                       /* --warm 1, --cold 0; -1: on for suites (--suite, --serve) */
        bool allow_partial;             /* tasks without samples: no warning */
        const char *tasks;              /* --tasks ID,...: only these tasks' samples */
        const char *dump_dir;           /* --dump DIR: write the programs, run nothing */
        bool allow_root;                /* --allow-root: candidates may run as uid 0 */
        /* io suites: --all-tests, --time-scale, --test-timeout, --compare,
         * --checker, --io-format (timeout_ms is set from the suite's) */
        struct suite_judge_opts judge;
        /* merge */
        char *const *merge_files;
        const char *merge_out;
};

/* Parses argv into opts. Returns 0, or -1 with err (exit code 2). */
int cli_parse(int argc, char **argv, struct cli_opts *opts, struct sbx_err *err);
void cli_opts_free(struct cli_opts *opts);
void cli_usage(FILE *fp);

/* The modes; each returns sbx-run's exit status. */
int run_cli_file(struct cli_opts *opts);
int run_cli_argv(struct cli_opts *opts);
int run_cli_probe(struct cli_opts *opts);
/* --file in a language other than Python (lang_cli.c): built, then run. */
struct lang_row;
const struct lang_row *cli_file_language(const struct cli_opts *opts, struct sbx_err *err);
int run_cli_lang(struct cli_opts *opts, const struct lang_row *row);
/* The single runs' stop: SIGINT, SIGTERM and SIGHUP set a flag (on) or
 * take their default again (off); after cleanup, die of the signal that
 * stopped us (rc when none did). */
#include <signal.h>
int cli_catch_stop_signals(bool on);
const volatile sig_atomic_t *cli_stop_flag(void);
int cli_reraise_stop(int rc);
/* sandbox_opts.warn for every mode: "sbx-run: MSG" on stderr. */
void cli_print_warning(const char *msg, void *ctx);
int suite_cli_main(struct cli_opts *opts);
int merge_cli_main(struct cli_opts *opts);

#endif
