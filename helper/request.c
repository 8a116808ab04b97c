/* Command line -> struct request. Pure: no syscalls, errors in a buffer. */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helper.h"

const struct limit_desc limit_descs[LIM_COUNT] = {
        [LIM_TIMEOUT] = { "timeout", "timeout", UNIT_MILLIS, false },
        [LIM_CPU] = { "cpu", "cpu", UNIT_MILLIS, false },
        [LIM_MEMORY] = { "memory", "memory", UNIT_BYTES, true },
        [LIM_NPROC] = { "nproc", "nproc", UNIT_COUNT, false },
        [LIM_FSIZE] = { "fsize", "fsize", UNIT_BYTES, false },
        [LIM_NOFILE] = { "nofile", "nofile", UNIT_COUNT, false },
        [LIM_TMPFS] = { "tmpfs-size", "tmpfs_size", UNIT_BYTES, false },
};

__attribute__((format(printf, 3, 4)))
static int fail(char *err, size_t errlen, const char *fmt, ...)
{
        va_list ap;

        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
        return -1;
}

/* Digits with an optional fraction of up to 3 places, as milliseconds. */
static int parse_millis(const char *text, uint64_t *out)
{
        uint64_t whole = 0, frac = 0;
        int places = 0;
        const char *p = text;

        for (; *p >= '0' && *p <= '9' && whole < UINT64_MAX / 10000; p++)
                whole = whole * 10 + (uint64_t)(*p - '0');
        if (*p == '.')
                for (p++; *p >= '0' && *p <= '9' && places < 4; p++, places++)
                        frac = frac * 10 + (uint64_t)(*p - '0');
        if (text[0] < '0' || text[0] > '9' || *p != '\0' || places > 3 ||
            (places == 0 && p[-1] == '.'))
                return -1;
        for (; places < 3; places++)
                frac *= 10;
        *out = whole * 1000 + frac;
        return 0;
}

/* Decimal digits, and for sizes one K, M or G suffix (powers of 1024). */
static int parse_count_or_size(const char *text, bool suffix_ok, uint64_t *out)
{
        const char *suffixes = "KMG", *s;
        uint64_t mult = 1;
        char *end;

        if (*text < '0' || *text > '9')
                return -1;
        errno = 0;
        *out = strtoull(text, &end, 10);
        if (suffix_ok && *end && end[1] == '\0' && (s = strchr(suffixes, *end)) != NULL) {
                mult = 1ULL << (10 * (s - suffixes + 1));
                end++;
        }
        if (errno != 0 || *end != '\0' || *out > UINT64_MAX / mult)
                return -1;
        *out *= mult;
        return 0;
}

int parse_limit_value(enum limit_unit unit, bool none_allowed, const char *text, uint64_t *out)
{
        int rc;

        if (none_allowed && strcmp(text, "none") == 0)
                return *out = SBX_LIMIT_NONE, 0;
        if (unit == UNIT_MILLIS)
                rc = parse_millis(text, out);
        else
                rc = parse_count_or_size(text, unit == UNIT_BYTES, out);
        /* A zero limit cannot run anything: refuse it as a typo. */
        return (rc < 0 || *out == 0) ? -1 : 0;
}

static bool env_pair_is_valid(const char *pair)
{
        size_t name_len = strcspn(pair, "=");

        return pair[name_len] == '=' && name_len > 0 && !(pair[0] >= '0' && pair[0] <= '9') &&
               strspn(pair, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_") == name_len;
}

/* A limit's index for its option word, or -1. */
static int limit_option(const char *word)
{
        for (int i = 0; i < LIM_COUNT; i++) {
                if (strncmp(word, "--", 2) == 0 && strcmp(word + 2, limit_descs[i].option) == 0)
                        return i;
        }
        return -1;
}

static bool is(const char *word, const char *option)
{
        return strcmp(word, option) == 0;
}

static int check_path(const char *what, const char *path, char *err, size_t errlen)
{
        if (path_is_clean(path) && strcmp(path, "/") != 0)
                return 0;
        return fail(err, errlen, "%s \"%s\" must be an absolute path without . or .. components", what, path);
}

/* Every option but --probe and --version takes the next word, arg, as its
 * value; arg is NULL when there is none. */
static int apply_option(struct request *rq, const char *opt, const char *arg, char *err, size_t errlen)
{
        int limit = limit_option(opt);
        uint64_t fd;

        if (limit < 0 && !is(opt, "--workdir") && !is(opt, "--private-workdir") && !is(opt, "--ro-bind") &&
            !is(opt, "--env") && !is(opt, "--status-fd"))
                return fail(err, errlen, "unknown option \"%s\"", opt);
        if (!arg)
                return fail(err, errlen, "%s needs a value", opt);
        if (limit >= 0) {
                if (parse_limit_value(limit_descs[limit].unit, limit_descs[limit].none_allowed,
                                      arg, &rq->limit[limit]) < 0)
                        return fail(err, errlen, "--%s: bad value \"%s\"", limit_descs[limit].option, arg);
                rq->limit_given[limit] = true;
        } else if (is(opt, "--workdir") || is(opt, "--private-workdir")) {
                if (rq->workdir)
                        return fail(err, errlen, "--workdir or --private-workdir given twice");
                if (check_path("workdir", arg, err, errlen) < 0)
                        return -1;
                rq->workdir = arg;
                rq->private_workdir = is(opt, "--private-workdir");
        } else if (is(opt, "--ro-bind")) {
                if (check_path("--ro-bind", arg, err, errlen) < 0)
                        return -1;
                if (rq->n_ro_binds == SBX_MAX_RO_BINDS)
                        return fail(err, errlen, "too many --ro-bind options");
                rq->ro_binds[rq->n_ro_binds++] = arg;
        } else if (is(opt, "--env")) {
                if (!env_pair_is_valid(arg))
                        return fail(err, errlen, "--env \"%s\" is not NAME=VALUE", arg);
                if (rq->n_env == SBX_MAX_ENV)
                        return fail(err, errlen, "too many --env options");
                rq->env[rq->n_env++] = arg;
        } else if (is(opt, "--status-fd")) {
                if (parse_count_or_size(arg, false, &fd) < 0 || fd < 3 || fd > INT_MAX)
                        return fail(err, errlen, "--status-fd \"%s\" must be a number >= 3", arg);
                rq->status_fd = (int)fd;
        }
        return 0;
}

int request_parse(struct request *rq, int argc, char *const argv[], char *err, size_t errlen)
{
        int i;

        memset(rq, 0, sizeof(*rq));
        rq->status_fd = -1;
        for (i = 1; i < argc && !is(argv[i], "--"); i++) {
                if (is(argv[i], "--probe") || is(argv[i], "--version"))
                        rq->mode = is(argv[i], "--probe") ? MODE_PROBE : MODE_VERSION;
                else if (apply_option(rq, argv[i], i + 1 < argc ? argv[i + 1] : NULL, err, errlen) < 0)
                        return -1;
                else
                        i++;
        }
        if (rq->mode != MODE_RUN)
                return 0;
        if (i >= argc)
                return fail(err, errlen, "missing \"--\" before the program");
        if (i + 1 >= argc || argv[i + 1][0] == '\0')
                return fail(err, errlen, "no program given after \"--\"");
        rq->argv = argv + i + 1;
        return 0;
}
