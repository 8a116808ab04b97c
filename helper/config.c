/* The admin policy, helper.conf: "key = value" lines. config_parse is
 * pure; config_load opens the build-time path and checks who may edit it. */
#include "helper.h"

#ifndef SBX_HELPER_CONF_PATH
#error "SBX_HELPER_CONF_PATH must be set at build time"
#endif
#define CONF_MAX_BYTES 65536
#define CGROUP_ROOT "/sys/fs/cgroup"
#define CGROUP_RULE " must be a directory below " CGROUP_ROOT "/, without . or .. components, shorter than 256 bytes"

void config_set_builtin(struct config *cfg)
{
        memset(cfg, 0, sizeof(*cfg));
        cfg->path = SBX_HELPER_CONF_PATH;
        for (int i = 0; i < LIM_COUNT; i++) {
                cfg->deflt[i] = limit_descs[i].builtin_default;
                cfg->max[i] = limit_descs[i].builtin_max;
        }
        cfg->max_zygote_life = 3600 * 1000;     /* an hour */
}

static char *trim(char *s)
{
        char *end = s + strlen(s);

        while (end > s && strchr(" \t\r", end[-1]))
                *--end = '\0';
        return s + strspn(s, " \t");
}

/* Returns NULL when the key is set, else why not. */
static const char *set_key(struct config *cfg, const char *key, const char *value)
{
        if (strcmp(key, "group") == 0) {
                if (value[0] == '\0' || strlen(value) >= sizeof(cfg->group))
                        return "bad group name";
                strcpy(cfg->group, value);
                return NULL;
        }
        if (strcmp(key, "ro_bind_prefix") == 0) {
                if (!path_is_clean(value) || strcmp(value, "/") == 0 || strlen(value) >= sizeof(cfg->prefixes[0]))
                        return "ro_bind_prefix must be an absolute, clean path other than /";
                if (cfg->n_prefixes == SBX_MAX_PREFIXES)
                        return "too many ro_bind_prefix lines";
                strcpy(cfg->prefixes[cfg->n_prefixes++], value);
                return NULL;
        }
        if (strcmp(key, "pids_cgroup") == 0 || strcmp(key, "memory_cgroup") == 0) {
                char *slot = key[0] == 'p' ? cfg->pids_cgroup : cfg->memory_cgroup;

                /* Only a cgroup2 directory can be meant; it is written as root. */
                if (!path_is_clean(value) || strstr(value, "..") || !path_is_under(value, CGROUP_ROOT) ||
                    strcmp(value, CGROUP_ROOT) == 0 || strlen(value) >= sizeof(cfg->pids_cgroup))
                        return key[0] == 'p' ? "pids_cgroup" CGROUP_RULE : "memory_cgroup" CGROUP_RULE;
                strcpy(slot, value);
                return NULL;
        }
        if (strcmp(key, "max_zygote_life") == 0)
                return parse_limit_value(UNIT_MILLIS, false, value, &cfg->max_zygote_life) < 0 ? "bad value" : NULL;
        if (strcmp(key, "allow_network") == 0)
                return strcmp(value, "no") == 0 ? NULL : "allow_network must be \"no\": the helper never grants network";
        for (int i = 0; i < LIM_COUNT; i++) {
                const struct limit_desc *d = &limit_descs[i];
                uint64_t *slot = NULL;

                if (strncmp(key, "default_", 8) == 0 && strcmp(key + 8, d->conf_key) == 0)
                        slot = &cfg->deflt[i];
                else if (strncmp(key, "max_", 4) == 0 && strcmp(key + 4, d->conf_key) == 0)
                        slot = &cfg->max[i];
                if (slot)
                        return parse_limit_value(d->unit, d->none_allowed, value, slot) < 0 ? "bad value" : NULL;
        }
        return "unknown key";
}

/* text is modified in place. Errors are "PATH:LINE: why". */
int config_parse(struct config *cfg, const char *path, char *text, char *err, size_t errlen)
{
        int line = 0;

        for (char *next, *cur = text; cur; cur = next) {
                const char *why = "expected \"key = value\"";
                char *eq;

                next = strchr(cur, '\n');
                if (next)
                        *next++ = '\0';
                line++;
                cur = trim(cur);
                if (cur[0] == '#' || cur[0] == '\0')
                        continue;
                eq = strchr(cur, '=');
                if (eq)
                        *eq = '\0';
                if (!eq || (why = set_key(cfg, trim(cur), trim(eq + 1))) != NULL)
                        return set_error(err, errlen, "%s:%d: %s%s%s", path, line, why, eq ? ": " : "", eq ? trim(cur) : "");
        }
        if (cfg->group[0] == '\0')
                return set_error(err, errlen, "%s: no \"group\" line: nobody may use the helper", path);
        /* A process is in one cgroup: the run's holds both controllers. */
        if (cfg->memory_cgroup[0] && cfg->pids_cgroup[0] && strcmp(cfg->memory_cgroup, cfg->pids_cgroup) != 0)
                return set_error(err, errlen, "%s: memory_cgroup and pids_cgroup must name the same directory", path);
        for (int i = 0; i < LIM_COUNT; i++) {
                if (cfg->deflt[i] > cfg->max[i])
                        return set_error(err, errlen, "%s: default_%s is above max_%s", path,
                                         limit_descs[i].conf_key, limit_descs[i].conf_key);
        }
        return 0;
}

int config_apply_limits(const struct config *cfg, struct request *rq, char *err, size_t errlen)
{
        for (int i = 0; i < LIM_COUNT; i++) {
                bool life = rq->zygote && i == LIM_TIMEOUT;

                if (!rq->limit_given[i])
                        rq->limit[i] = cfg->deflt[i];
                else if (rq->limit[i] > (life ? cfg->max_zygote_life : cfg->max[i]))
                        return set_error(err, errlen, "--%s is above the ceiling set in %s%s", limit_descs[i].option,
                                         cfg->path, life ? " (max_zygote_life, for --zygote)" : "");
        }
        return 0;
}

/* The file and every directory above it: root's and not writable by others
 * (a sticky directory protects root's entries), or someone could swap it. */
struct trust { struct stat st; bool refused; };

static bool is_trusted(int fd, struct trust *t)
{
        t->refused = fstat(fd, &t->st) < 0 || t->st.st_uid != 0 ||
                     ((t->st.st_mode & 022) && !(S_ISDIR(t->st.st_mode) && (t->st.st_mode & S_ISVTX)));
        return !t->refused;
}

static int open_trusted_step(int parent, const char *name, bool last, void *t)
{
        auto_fd fd = openat(parent, name, (last ? O_RDONLY : O_PATH | O_DIRECTORY) | O_NOFOLLOW | O_CLOEXEC);

        return fd >= 0 && is_trusted(fd, t) ? take_fd(&fd) : -1;
}

int config_load(struct config *cfg, char *err, size_t errlen)
{
        /* On the heap: a 64 KiB stack frame is touched page by page by the
         * stack clash probes; malloc'd pages are touched only as read. */
        auto_free char *text = malloc(CONF_MAX_BYTES + 1);
        auto_fd root = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC), fd = -1;
        struct trust t = { .refused = false };
        size_t len = 0;
        ssize_t n = 0;

        config_set_builtin(cfg);
        if (!text)
                return set_error(err, errlen, "%s: out of memory", cfg->path);
        fd = root >= 0 && is_trusted(root, &t) ? path_walk(root, cfg->path, open_trusted_step, &t) : -1;
        if (t.refused)
                return set_error(err, errlen, "%s: it or a directory above it is not owned "
                                 "by root or is writable by group or others", cfg->path);
        if (fd < 0)
                return set_error(err, errlen, "%s: %s", cfg->path, strerror(errno));
        if (!S_ISREG(t.st.st_mode))
                return set_error(err, errlen, "%s: not a regular file", cfg->path);
        while (len < CONF_MAX_BYTES && (n = read(fd, text + len, CONF_MAX_BYTES - len)) > 0)
                len += (size_t)n;
        if (n < 0 || len == CONF_MAX_BYTES || memchr(text, '\0', len))
                return set_error(err, errlen, "%s: unreadable, larger than %d bytes or binary",
                                cfg->path, CONF_MAX_BYTES);
        text[len] = '\0';
        return config_parse(cfg, cfg->path, text, err, errlen);
}
