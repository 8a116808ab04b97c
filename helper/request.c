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

/* Options other than the limits; each takes a value unless noted. */
enum opt_kind { OPT_WORKDIR, OPT_PRIVATE_WORKDIR, OPT_RO_BIND, OPT_ENV, OPT_STATUS_FD,
                OPT_PROBE, OPT_VERSION, OPT_LIMIT };
static const char *const option_names[OPT_LIMIT] = {
        "--workdir", "--private-workdir", "--ro-bind", "--env", "--status-fd",
        "--probe", "--version",
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

static int apply_option(struct request *rq, enum opt_kind kind, int limit, const char *arg,
                        char *err, size_t errlen)
{
        uint64_t fd;

        switch (kind) {
        case OPT_WORKDIR:
        case OPT_PRIVATE_WORKDIR:
                if (rq->workdir)
                        return fail(err, errlen, "--workdir or --private-workdir given twice");
                if (!path_is_clean(arg) || strcmp(arg, "/") == 0)
                        return fail(err, errlen, "workdir \"%s\" must be an absolute path "
                                    "without . or .. components", arg);
                rq->workdir = arg;
                rq->private_workdir = kind == OPT_PRIVATE_WORKDIR;
                return 0;
        case OPT_RO_BIND:
                if (!path_is_clean(arg) || strcmp(arg, "/") == 0)
                        return fail(err, errlen, "--ro-bind \"%s\" must be an absolute path "
                                    "without . or .. components", arg);
                if (rq->n_ro_binds == SBX_MAX_RO_BINDS)
                        return fail(err, errlen, "too many --ro-bind options");
                rq->ro_binds[rq->n_ro_binds++] = arg;
                return 0;
        case OPT_ENV:
                if (!env_pair_is_valid(arg))
                        return fail(err, errlen, "--env \"%s\" is not NAME=VALUE", arg);
                if (rq->n_env == SBX_MAX_ENV)
                        return fail(err, errlen, "too many --env options");
                rq->env[rq->n_env++] = arg;
                return 0;
        case OPT_STATUS_FD:
                if (parse_count_or_size(arg, false, &fd) < 0 || fd < 3 || fd > INT_MAX)
                        return fail(err, errlen, "--status-fd \"%s\" must be a number >= 3", arg);
                rq->status_fd = (int)fd;
                return 0;
        case OPT_PROBE:
        case OPT_VERSION:
                rq->mode = kind == OPT_PROBE ? MODE_PROBE : MODE_VERSION;
                return 0;
        case OPT_LIMIT:
                if (parse_limit_value(limit_descs[limit].unit, limit_descs[limit].none_allowed,
                                      arg, &rq->limit[limit]) < 0)
                        return fail(err, errlen, "--%s: bad value \"%s\"", limit_descs[limit].option, arg);
                rq->limit_given[limit] = true;
                return 0;
        }
        return -1;
}

static int lookup_option(const char *word, enum opt_kind *kind, int *limit)
{
        for (int i = 0; i < OPT_LIMIT; i++) {
                if (strcmp(word, option_names[i]) == 0)
                        return *kind = (enum opt_kind)i, 0;
        }
        for (int i = 0; i < LIM_COUNT; i++) {
                if (strncmp(word, "--", 2) == 0 && strcmp(word + 2, limit_descs[i].option) == 0)
                        return *kind = OPT_LIMIT, *limit = i, 0;
        }
        return -1;
}

int request_parse(struct request *rq, int argc, char *const argv[], char *err, size_t errlen)
{
        int i;

        memset(rq, 0, sizeof(*rq));
        rq->status_fd = -1;
        for (i = 1; i < argc && strcmp(argv[i], "--") != 0; i++) {
                enum opt_kind kind;
                int limit = 0;
                const char *arg = NULL;

                if (lookup_option(argv[i], &kind, &limit) < 0)
                        return fail(err, errlen, "unknown option \"%s\"", argv[i]);
                if (kind != OPT_PROBE && kind != OPT_VERSION) {
                        if (i + 1 >= argc)
                                return fail(err, errlen, "%s needs a value", argv[i]);
                        arg = argv[++i];
                }
                if (apply_option(rq, kind, limit, arg, err, errlen) < 0)
                        return -1;
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
