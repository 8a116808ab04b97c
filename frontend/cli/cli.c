/* sbx-run's command line: one getopt_long table for every mode, parsed
 * into struct cli_opts. Adding an option: an enum value, a table row, a
 * case in apply_option, a line in cli_usage. The limits (--timeout, -j,
 * ...) come from limit.h's table instead: their options, parsing and
 * --help lines are its rows; store_limit puts a value in its field. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cluster_env.h"
#include "limit.h"
#include "suite.h"

enum opt_id {
        OPT_FILE = 256, OPT_WORKDIR, OPT_PROBE, OPT_SUITE, OPT_PROBLEMS,
        OPT_SAMPLES, OPT_CANONICAL, OPT_OUT, OPT_SUMMARY, OPT_K, OPT_EVALPLUS_RESULTS,
        OPT_RESUME, OPT_SHARD, OPT_PROGRESS, OPT_NO_PROGRESS,
        OPT_JSON, OPT_TIER,
        OPT_REQUIRE_TIER, OPT_PYTHON, OPT_VENV, OPT_PACKAGE, OPT_PROVISION,
        OPT_ENV, OPT_RO_BIND, OPT_REBUILD, OPT_QUIET, OPT_HELP, OPT_VERSION, OPT_REPEAT,
        OPT_PRINT_ARGV, OPT_ALLOW_PARTIAL, OPT_TASKS, OPT_DUMP, OPT_ALLOW_ROOT,
        OPT_SERVE, OPT_WARM, OPT_COLD, OPT_STDIN, OPT_LANGUAGE,
        OPT_ALL_TESTS, OPT_TIME_SCALE, OPT_TEST_TIMEOUT, OPT_COMPARE, OPT_CHECKER, OPT_IO_FORMAT,
        OPT_LIMIT = 512,        /* + enum limit_id: a row of limit_table */
};

static const struct option long_options[] = {
        { "file", required_argument, NULL, OPT_FILE },
        { "language", required_argument, NULL, OPT_LANGUAGE },
        { "workdir", required_argument, NULL, OPT_WORKDIR },
        { "probe", no_argument, NULL, OPT_PROBE },
        { "suite", required_argument, NULL, OPT_SUITE },
        { "problems", required_argument, NULL, OPT_PROBLEMS },
        { "samples", required_argument, NULL, OPT_SAMPLES },
        { "canonical", no_argument, NULL, OPT_CANONICAL },
        { "out", required_argument, NULL, OPT_OUT },
        { "summary", required_argument, NULL, OPT_SUMMARY },
        { "evalplus-results", required_argument, NULL, OPT_EVALPLUS_RESULTS },
        { "k", required_argument, NULL, OPT_K },
        { "resume", no_argument, NULL, OPT_RESUME },
        { "shard", required_argument, NULL, OPT_SHARD },
        { "progress", no_argument, NULL, OPT_PROGRESS },
        { "no-progress", no_argument, NULL, OPT_NO_PROGRESS },
        { "json", no_argument, NULL, OPT_JSON },
        { "tier", required_argument, NULL, OPT_TIER },
        { "require-tier", required_argument, NULL, OPT_REQUIRE_TIER },
        { "python", required_argument, NULL, OPT_PYTHON },
        { "venv", required_argument, NULL, OPT_VENV },
        { "package", required_argument, NULL, OPT_PACKAGE },
        { "provision", required_argument, NULL, OPT_PROVISION },
        { "env", required_argument, NULL, OPT_ENV },
        { "ro-bind", required_argument, NULL, OPT_RO_BIND },
        { "rebuild", no_argument, NULL, OPT_REBUILD },
        { "quiet", no_argument, NULL, OPT_QUIET },
        { "repeat", required_argument, NULL, OPT_REPEAT },
        { "print-argv", no_argument, NULL, OPT_PRINT_ARGV },
        { "allow-partial", no_argument, NULL, OPT_ALLOW_PARTIAL },
        { "tasks", required_argument, NULL, OPT_TASKS },
        { "dump", required_argument, NULL, OPT_DUMP },
        { "allow-root", no_argument, NULL, OPT_ALLOW_ROOT },
        { "serve", no_argument, NULL, OPT_SERVE },
        { "warm", no_argument, NULL, OPT_WARM },
        { "cold", no_argument, NULL, OPT_COLD },
        { "stdin", required_argument, NULL, OPT_STDIN },
        { "all-tests", no_argument, NULL, OPT_ALL_TESTS },
        { "time-scale", required_argument, NULL, OPT_TIME_SCALE },
        { "test-timeout", required_argument, NULL, OPT_TEST_TIMEOUT },
        { "compare", required_argument, NULL, OPT_COMPARE },
        { "checker", required_argument, NULL, OPT_CHECKER },
        { "io-format", required_argument, NULL, OPT_IO_FORMAT },
        { "help", no_argument, NULL, OPT_HELP },
        { "version", no_argument, NULL, OPT_VERSION },
};
#define N_OPTIONS (sizeof(long_options) / sizeof(long_options[0]))

/* An option given more than once keeps each value, in order. */
static int push_arg(struct strvec *v, const char *arg, struct sbx_err *err)
{
        return strvec_push(v, arg) < 0 ? sbx_fail_oom(err, "out of memory") : 0;
}

/* A limit's value goes to the field that the modes read. */
static void store_limit(struct cli_opts *o, enum limit_id id, long long v)
{
        switch (id) {
        case LIMIT_TIMEOUT: o->timeout_ms = v; return;
        case LIMIT_CPU: o->cpu_limit_s = v; return;
        case LIMIT_MEMORY: o->sb.memory_bytes = v; return;
        case LIMIT_FSIZE: o->sb.fsize_bytes = v; return;
        case LIMIT_MAX_OUTPUT: o->sb.max_output_bytes = (size_t)v; return;
        case LIMIT_COMPILE_TIMEOUT: o->compile_timeout_ms = v; return;
        case LIMIT_JOBS: o->jobs = (int)v; return;
        case LIMIT_COUNT: return;
        }
}

static int apply_limit(enum limit_id id, const char *arg, struct cli_opts *o,
                       struct sbx_err *err)
{
        long long v;

        if (limit_parse(id, arg, &v, err) < 0)
                return -1;
        store_limit(o, id, v);
        return 0;
}

static int parse_shard(const char *s, struct cli_opts *o, struct sbx_err *err)
{
        int i, n, used = 0;

        /* auto: read from the array job's environment once all options are
         * in (check_mode), so that an explicit I/N, before or after, wins. */
        if (strcmp(s, "auto") == 0) {
                if (o->shard_count <= 0)
                        o->shard_count = -1;
                return 0;
        }
        if (sscanf(s, "%d/%d%n", &i, &n, &used) != 2 || s[used] || n < 1 ||
            i < 0 || i >= n)
                return sbx_fail(err, 0, "--shard: '%s' is not I/N with 0 <= I < N", s);
        o->shard_index = i;
        o->shard_count = n;
        return 0;
}

static int parse_tier(const char *opt, const char *s, enum tier *out,
                      struct sbx_err *err)
{
        if (tier_from_name(s, out) < 0)
                return sbx_fail(err, 0, "%s: unknown tier '%s' (helper, bwrap, unshare, "
                                "unshare-root, rlimit)", opt, s);
        return 0;
}

static int set_mode(struct cli_opts *o, enum cli_mode m, const char *opt,
                    struct sbx_err *err)
{
        if (o->mode != CLI_MODE_NONE && o->mode != m)
                return sbx_fail(err, 0, "%s cannot be combined with the other mode given", opt);
        o->mode = m;
        return 0;
}

/* The options whose value is checked here rather than by a parser. */
static int apply_checked(int id, const char *arg, struct cli_opts *o, struct sbx_err *err)
{
        long long n = 0;

        switch (id) {
        case OPT_ENV:
                if (!strchr(arg, '=') || arg[0] == '=')
                        return sbx_fail(err, 0, "--env: '%s' is not NAME=VALUE", arg);
                return push_arg(&o->env, arg, err);
        case OPT_RO_BIND:
                if (arg[0] != '/')
                        return sbx_fail(err, 0, "--ro-bind: '%s' is not an absolute path", arg);
                return push_arg(&o->ro_binds, arg, err);
        case OPT_REPEAT:
                if (limit_parse_int("--repeat", arg, 1, 1000000, &n, err) < 0)
                        return -1;
                o->repeat = (int)n;
                return 0;
        case OPT_TASKS:
                if (!arg[0])
                        return sbx_fail(err, 0, "--tasks: expected ID[,ID...]");
                o->tasks = arg;
                return 0;
        }
        return sbx_fail(err, 0, "internal: unchecked option %d", id);
}

/* A positive number of at most max (seconds, a factor). */
static int parse_positive(const char *opt, const char *arg, double max, double *v,
                          struct sbx_err *err)
{
        char *end;

        errno = 0;
        *v = strtod(arg, &end);
        if (errno || end == arg || *end || !(*v > 0) || *v > max)
                return sbx_fail(err, 0, "%s: '%s' is not a number in (0, %g]", opt, arg, max);
        return 0;
}

/* The io suites' options (struct suite_judge_opts). */
static int apply_judge(int id, const char *arg, struct cli_opts *o, struct sbx_err *err)
{
        double v;

        switch (id) {
        case OPT_ALL_TESTS: o->judge.all_tests = true; return 0;
        case OPT_COMPARE: o->judge.compare = arg; return 0;
        case OPT_CHECKER: o->judge.checker = arg; return 0;
        case OPT_IO_FORMAT: o->judge.format = arg; return 0;
        case OPT_TIME_SCALE:
                if (parse_positive("--time-scale", arg, 1000, &v, err) < 0)
                        return -1;
                o->judge.time_scale = v;
                return 0;
        case OPT_TEST_TIMEOUT:
                if (parse_positive("--test-timeout", arg, 86400, &v, err) < 0)
                        return -1;
                o->judge.test_timeout_ms = (int64_t)ceil(v * 1000);
                return 0;
        }
        return sbx_fail(err, 0, "internal: unhandled option %d", id);
}

static int apply_option(int id, const char *arg, struct cli_opts *o,
                        struct sbx_err *err)
{
        if (id >= OPT_ALL_TESTS && id <= OPT_IO_FORMAT)
                return apply_judge(id, arg, o, err);
        if (id >= OPT_LIMIT && id < OPT_LIMIT + LIMIT_COUNT)
                return apply_limit((enum limit_id)(id - OPT_LIMIT), arg, o, err);
        switch (id) {
        case OPT_FILE: o->file = arg; return set_mode(o, CLI_MODE_FILE, "--file", err);
        case OPT_WORKDIR: o->workdir = arg; return 0;
        case OPT_STDIN: o->stdin_path = arg; return 0;
        case OPT_LANGUAGE: o->language = arg; return 0;
        case OPT_PROBE: return set_mode(o, CLI_MODE_PROBE, "--probe", err);
        case OPT_SUITE: o->suite = arg; return set_mode(o, CLI_MODE_SUITE, "--suite", err);
        case OPT_PROBLEMS: o->problems = arg; return 0;
        case OPT_SAMPLES: o->samples = arg; return 0;
        case OPT_CANONICAL: o->canonical = true; return 0;
        case OPT_OUT: o->out = arg; return 0;
        case OPT_SUMMARY: o->summary = arg; return 0;
        case OPT_EVALPLUS_RESULTS: o->evalplus_results = arg; return 0;
        case OPT_K: o->k_list = arg; return 0;
        case OPT_RESUME: o->resume = true; return 0;
        case OPT_SHARD: return parse_shard(arg, o, err);
        case OPT_PROGRESS: o->progress = 1; return 0;
        case OPT_NO_PROGRESS: o->progress = 0; return 0;
        case OPT_JSON: o->json = true; return 0;
        case OPT_TIER: return parse_tier("--tier", arg, &o->sb.force_tier, err);
        case OPT_REQUIRE_TIER:
                return parse_tier("--require-tier", arg, &o->sb.require_tier, err);
        case OPT_PYTHON: o->sb.python = arg; return 0;
        case OPT_VENV: o->sb.venv_name = arg; return 0;
        case OPT_PACKAGE: return push_arg(&o->packages, arg, err);
        case OPT_PROVISION: return push_arg(&o->provision, arg, err);
        case OPT_ENV:
        case OPT_RO_BIND:
        case OPT_REPEAT:
        case OPT_TASKS:
                return apply_checked(id, arg, o, err);
        case OPT_REBUILD: o->sb.rebuild = true; return 0;
        case OPT_PRINT_ARGV: o->print_argv = true; return 0;
        case OPT_ALLOW_PARTIAL: o->allow_partial = true; return 0;
        case OPT_DUMP: o->dump_dir = arg; return 0;
        case OPT_ALLOW_ROOT: o->allow_root = true; return 0;
        case OPT_WARM: o->warm = 1; return 0;
        case OPT_COLD: o->warm = 0; return 0;
        case OPT_SERVE: return set_mode(o, CLI_MODE_SERVE, "--serve", err);
        case OPT_QUIET: o->sb.quiet = true; return 0;
        case OPT_HELP: return set_mode(o, CLI_MODE_HELP, "--help", err);
        case OPT_VERSION: return set_mode(o, CLI_MODE_VERSION, "--version", err);
        }
        return sbx_fail(err, 0, "internal: unhandled option %d", id);
}

static void defaults(struct cli_opts *o)
{
        memset(o, 0, sizeof(*o));
        sandbox_opts_init(&o->sb);
        o->sb.warn = cli_print_warning;
        o->progress = -1;
        o->warm = -1;
}

static int parse_merge(int argc, char **argv, struct cli_opts *o, struct sbx_err *err)
{
        int i = 2;

        o->mode = CLI_MODE_MERGE;
        for (; i < argc && argv[i][0] == '-' && strcmp(argv[i], "--") != 0; i++) {
                if (strcmp(argv[i], "--out") == 0 && i + 1 < argc)
                        o->merge_out = argv[++i];
                else if (strncmp(argv[i], "--out=", 6) == 0)
                        o->merge_out = argv[i] + 6;
                else if (strcmp(argv[i], "--summary") == 0 && i + 1 < argc)
                        o->summary = argv[++i];
                else if (strncmp(argv[i], "--summary=", 10) == 0)
                        o->summary = argv[i] + 10;
                else if (strcmp(argv[i], "--k") == 0 && i + 1 < argc)
                        o->k_list = argv[++i];
                else if (strncmp(argv[i], "--k=", 4) == 0)
                        o->k_list = argv[i] + 4;
                else if (strcmp(argv[i], "--json") == 0)
                        o->json = true;
                else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0)
                        return o->mode = CLI_MODE_HELP, 0;
                else
                        return sbx_fail(err, 0, "merge: unknown option %s", argv[i]);
        }
        if (i < argc && strcmp(argv[i], "--") == 0)
                i++;
        if (i >= argc)
                return sbx_fail(err, 0, "merge: no result files given");
        o->merge_files = argv + i;
        return 0;
}

/* Modes need their options; options of other modes are harmless. */
static int check_mode(struct cli_opts *o, int argc, char **argv, struct sbx_err *err)
{
        if (optind < argc) {
                if (strcmp(argv[optind - 1], "--") != 0)
                        return sbx_fail(err, 0, "unexpected argument '%s' (a program "
                                        "to run goes after --)", argv[optind]);
                o->argv = argv + optind;
                if (set_mode(o, CLI_MODE_ARGV, "-- ARGV", err) < 0)
                        return -1;
        }
        if (o->mode == CLI_MODE_ARGV && !o->workdir)
                return sbx_fail(err, 0, "-- ARGV needs --workdir DIR");
        if (o->shard_count < 0 &&
            cluster_shard_from_env(&o->shard_index, &o->shard_count, err) < 0)
                return -1;
        /* --problems may come from a custom suite file: suite_cli checks it. */
        if (o->mode == CLI_MODE_SUITE && !o->samples && !o->canonical)
                return sbx_fail(err, 0, "--suite needs --samples FILE or --canonical");
        if (o->mode == CLI_MODE_NONE)
                return sbx_fail(err, 0, "nothing to do: give --file, --workdir DIR -- "
                                "ARGV, --suite, --probe, --serve or merge (see --help)");
        if (o->stdin_path && o->mode != CLI_MODE_FILE && o->mode != CLI_MODE_ARGV)
                return sbx_fail(err, 0, "--stdin FILE is for a --file or --workdir run (an io "
                                "suite's tests bring their own inputs)");
        if (o->sb.venv_name == NULL && (o->packages.len || o->provision.len))
                return sbx_fail(err, 0, "--package and --provision need --venv NAME");
        /* Warm by default where samples are many (docs/warm.md): a suite's, a
         * server's; a single run has nothing to keep warm. */
        o->sb.warm = o->warm == 1 ||
                     (o->warm < 0 && (o->mode == CLI_MODE_SUITE || o->mode == CLI_MODE_SERVE));
        o->sb.warm_sources = suite_driver_sources();
        o->sb.env = strvec_list(&o->env);
        o->sb.ro_binds = strvec_list(&o->ro_binds);
        o->sb.packages = strvec_list(&o->packages);
        o->sb.provision = strvec_list(&o->provision);
        return 0;
}

/* The getopt tables: the fixed options and a row per limit; a limit's
 * short option gives its OPT_LIMIT id. */
struct option_tables {
        struct option longs[N_OPTIONS + LIMIT_COUNT + 1];
        char shorts[2 * LIMIT_COUNT + 8];
};

static void build_options(struct option_tables *t)
{
        size_t ns = 0;

        memcpy(t->longs, long_options, sizeof(long_options));
        t->shorts[ns++] = '+';
        for (int i = 0; i < LIMIT_COUNT; i++) {
                t->longs[N_OPTIONS + i] = (struct option){
                        limit_table[i].option, required_argument, NULL, OPT_LIMIT + i };
                if (limit_table[i].short_option) {
                        t->shorts[ns++] = limit_table[i].short_option;
                        t->shorts[ns++] = ':';
                }
        }
        t->longs[N_OPTIONS + LIMIT_COUNT] = (struct option){ NULL, 0, NULL, 0 };
        memcpy(t->shorts + ns, "hqV", 4);
}

static int short_limit(int c)
{
        for (int i = 0; i < LIMIT_COUNT; i++)
                if (limit_table[i].short_option == c)
                        return OPT_LIMIT + i;
        return c;
}

int cli_parse(int argc, char **argv, struct cli_opts *o, struct sbx_err *err)
{
        struct option_tables t;
        int id;

        defaults(o);
        if (argc >= 2 && strcmp(argv[1], "merge") == 0)
                return parse_merge(argc, argv, o, err);
        build_options(&t);
        optind = 1;
        opterr = 0;
        while ((id = getopt_long(argc, argv, t.shorts, t.longs, NULL)) != -1) {
                if (id == '?' || id == ':')
                        return sbx_fail(err, 0, "%s: unknown option or missing value "
                                        "(see --help)", argv[optind - 1]);
                if (id < 256)
                        id = short_limit(id);
                if (id == 'h')
                        id = OPT_HELP;
                else if (id == 'q')
                        id = OPT_QUIET;
                else if (id == 'V')
                        id = OPT_VERSION;
                if (apply_option(id, optarg, o, err) < 0)
                        return -1;
        }
        if (o->mode == CLI_MODE_HELP || o->mode == CLI_MODE_VERSION)
                return 0;
        return check_mode(o, argc, argv, err);
}

void cli_opts_free(struct cli_opts *o)
{
        strvec_free(&o->env);
        strvec_free(&o->ro_binds);
        strvec_free(&o->packages);
        strvec_free(&o->provision);
}
