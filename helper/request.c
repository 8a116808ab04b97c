/* Command line -> struct request. Pure: no syscalls, errors in a buffer. */
#include "helper.h"
#include "zygote.h"

/* Last two: built-in default and ceiling (ms, bytes, counts), for a helper.conf without them. */
const struct limit_desc limit_descs[LIM_COUNT] = {
        [LIM_TIMEOUT] = { "timeout", "timeout", UNIT_MILLIS, false, 10000, 300000 },
        [LIM_CPU] = { "cpu", "cpu", UNIT_MILLIS, false, 10000, 300000 },
        [LIM_MEMORY] = { "memory", "memory", UNIT_BYTES, true, 1ULL << 30, 8ULL << 30 },
        [LIM_NPROC] = { "nproc", "nproc", UNIT_COUNT, false, 64, 1024 },
        [LIM_FSIZE] = { "fsize", "fsize", UNIT_BYTES, false, 64ULL << 20, 1ULL << 30 },
        [LIM_NOFILE] = { "nofile", "nofile", UNIT_COUNT, false, 256, 4096 },
        [LIM_TMPFS] = { "tmpfs-size", "tmpfs_size", UNIT_BYTES, false, 64ULL << 20, 1ULL << 30 },
};

/* Decimal digits; a time may have up to 3 decimals (kept as ms), a size one
 * K, M or G suffix (powers of 1024). */
static int parse_number(const char *text, enum limit_unit unit, uint64_t *out)
{
        static const char suffixes[] = "KMG";
        uint64_t scale = unit == UNIT_MILLIS ? 1000 : 1, frac = 0;
        const char *suffix;
        char *end;

        if (*text < '0' || *text > '9')
                return -1;
        errno = 0;
        *out = strtoull(text, &end, 10);
        if (unit == UNIT_MILLIS && *end == '.') {
                size_t places = strspn(end + 1, "0123456789");

                if (places == 0 || places > 3)
                        return -1;
                for (size_t i = 0; i < 3; i++)
                        frac = frac * 10 + (uint64_t)(i < places ? end[1 + i] - '0' : 0);
                end += 1 + places;
        } else if (unit == UNIT_BYTES && *end && end[1] == '\0' && (suffix = strchr(suffixes, *end)) != NULL) {
                scale = 1ULL << (10 * (suffix - suffixes + 1));
                end++;
        }
        if (errno != 0 || *end != '\0' || *out > (UINT64_MAX - frac) / scale)
                return -1;
        *out = *out * scale + frac;
        return 0;
}

int parse_limit_value(enum limit_unit unit, bool none_allowed, const char *text, uint64_t *out)
{
        if (none_allowed && strcmp(text, "none") == 0)
                return *out = SBX_LIMIT_NONE, 0;
        /* A zero limit cannot run anything: refuse it as a typo. */
        return parse_number(text, unit, out) < 0 || *out == 0 ? -1 : 0;
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
        return set_error(err, errlen, "%s \"%s\" must be an absolute path without . or .. components", what, path);
}

/* Every option but --probe, --version and --zygote takes the next word,
 * arg, as its value; arg is NULL when there is none. */
static int apply_option(struct request *rq, const char *opt, const char *arg, char *err, size_t errlen)
{
        int limit = limit_option(opt);
        uint64_t fd;

        if (limit < 0 && !is(opt, "--workdir") && !is(opt, "--private-workdir") && !is(opt, "--ro-bind") &&
            !is(opt, "--env") && !is(opt, "--status-fd"))
                return set_error(err, errlen, "unknown option \"%s\"", opt);
        if (!arg)
                return set_error(err, errlen, "%s needs a value", opt);
        if (limit >= 0) {
                if (parse_limit_value(limit_descs[limit].unit, limit_descs[limit].none_allowed,
                                      arg, &rq->limit[limit]) < 0)
                        return set_error(err, errlen, "--%s: bad value \"%s\"", limit_descs[limit].option, arg);
                rq->limit_given[limit] = true;
        } else if (is(opt, "--workdir") || is(opt, "--private-workdir")) {
                if (rq->workdir)
                        return set_error(err, errlen, "--workdir or --private-workdir given twice");
                if (check_path("workdir", arg, err, errlen) < 0)
                        return -1;
                rq->workdir = arg;
                rq->private_workdir = is(opt, "--private-workdir");
        } else if (is(opt, "--ro-bind")) {
                if (check_path("--ro-bind", arg, err, errlen) < 0)
                        return -1;
                if (rq->n_ro_binds == SBX_MAX_RO_BINDS)
                        return set_error(err, errlen, "too many --ro-bind options");
                rq->ro_binds[rq->n_ro_binds++] = arg;
        } else if (is(opt, "--env")) {
                if (!env_pair_is_valid(arg))
                        return set_error(err, errlen, "--env \"%s\" is not NAME=VALUE", arg);
                if (rq->n_env == SBX_MAX_ENV)
                        return set_error(err, errlen, "too many --env options");
                rq->env[rq->n_env++] = arg;
        } else if (is(opt, "--status-fd")) {
                if (parse_number(arg, UNIT_COUNT, &fd) < 0 || fd < 3 || fd > INT_MAX)
                        return set_error(err, errlen, "--status-fd \"%s\" must be a number >= 3", arg);
                rq->status_fd = (int)fd;
        }
        return 0;
}

/* --zygote runs sbx's zygote and nothing else: it keeps capabilities in its
 * own user namespace (supervise.c), so no other program may ask for them. */
static int check_zygote(const struct request *rq, int words, char *err, size_t errlen)
{
        char *const *a = rq->argv;

        if (rq->workdir)
                return set_error(err, errlen, "--zygote takes no --workdir or --private-workdir");
        if (words != 5 || !path_is_clean(a[0]) || !is(a[1], "-I") || !is(a[2], "-B") || !is(a[3], "-c") ||
            !is(a[4], sbx_zygote_source))
                return set_error(err, errlen, "--zygote runs only PYTHON -I -B -c ZYGOTE, PYTHON an absolute "
                                 "path, ZYGOTE sbx's own zygote source (frontend/warm/zygote/ of this build)");
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
                else if (is(argv[i], "--zygote"))
                        rq->zygote = true;
                else if (apply_option(rq, argv[i], i + 1 < argc ? argv[i + 1] : NULL, err, errlen) < 0)
                        return -1;
                else
                        i++;
        }
        if (rq->mode != MODE_RUN)
                return 0;
        if (i >= argc)
                return set_error(err, errlen, "missing \"--\" before the program");
        if (i + 1 >= argc || argv[i + 1][0] == '\0')
                return set_error(err, errlen, "no program given after \"--\"");
        rq->argv = argv + i + 1;
        return rq->zygote ? check_zygote(rq, argc - i - 1, err, errlen) : 0;
}
