#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "util.h"

int sbx_write_all(int fd, const void *data, size_t len)
{
        const char *p = data;

        while (len > 0) {
                ssize_t n = write(fd, p, len);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n <= 0)
                        return n == 0 ? (errno = EIO, -1) : -1;
                p += n;
                len -= (size_t)n;
        }
        return 0;
}

int sbx_copy_fd(int out, int in, off_t len)
{
        char buf[65536];

        while (len > 0) {
                ssize_t n = sendfile(out, in, NULL, (size_t)len);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0 && (errno == EINVAL || errno == ENOSYS))
                        break;          /* no sendfile between these two: read and write */
                if (n <= 0)
                        return n < 0 ? -1 : 0;
                len -= n;
        }
        while (len > 0) {
                ssize_t n = read(in, buf, sizeof(buf));
                if (n < 0 && errno == EINTR)
                        continue;
                if (n <= 0)
                        return n < 0 ? -1 : 0;
                if (sbx_write_all(out, buf, (size_t)n) < 0)
                        return -1;
                len -= n;
        }
        return 0;
}

int sbx_reopen_fd(int fd, int flags)
{
        char path[64];

        snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
        return open(path, flags | O_CLOEXEC);
}

int sbx_mkdir_p(const char *path)
{
        char *buf;
        int rc = 0;

        /* the usual case, the directory is there: one call, not one a level */
        if (mkdir(path, 0700) == 0 || errno == EEXIST)
                return 0;
        if (errno != ENOENT || !(buf = strdup(path)))
                return -1;
        for (char *p = buf + 1; *p && rc == 0; p++) {
                if (*p != '/')
                        continue;
                *p = '\0';
                if (mkdir(buf, 0700) < 0 && errno != EEXIST)
                        rc = -1;
                *p = '/';
        }
        if (rc == 0 && mkdir(buf, 0700) < 0 && errno != EEXIST)
                rc = -1;
        int saved = errno;
        free(buf);
        errno = saved;
        return rc;
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
        return remove(path) < 0 && errno != ENOENT ? -1 : 0;
}

int sbx_rm_tree(const char *path)
{
        /* depth first, so each directory is empty when its turn comes */
        if (nftw(path, rm_entry, 16, FTW_DEPTH | FTW_PHYS) < 0 && errno != ENOENT)
                return -1;
        return 0;
}

int64_t sbx_now_ns(void)
{
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int64_t sbx_now_ms(void)
{
        return sbx_now_ns() / 1000000;
}

uint64_t sbx_fnv1a(uint64_t h, const void *data, size_t len)
{
        const unsigned char *p = data;

        for (size_t i = 0; i < len; i++)
                h = (h ^ p[i]) * 0x100000001b3ULL;
        return h;
}

int sbx_cmp_str(const void *a, const void *b)
{
        return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Takes ownership of s (NULL: an allocation already failed). */
static int strvec_take(struct strvec *v, char *s)
{
        if (!s)
                return -1;
        if (v->len + 1 >= v->cap) {
                size_t cap = v->cap ? v->cap * 2 : 32;
                char **items = realloc(v->items, cap * sizeof(*items));
                if (!items) {
                        free(s);
                        return -1;
                }
                v->items = items;
                v->cap = cap;
        }
        v->items[v->len++] = s;
        v->items[v->len] = NULL;
        return 0;
}

int strvec_push(struct strvec *v, const char *s)
{
        return strvec_take(v, strdup(s));
}

int strvec_pushf(struct strvec *v, const char *fmt, ...)
{
        va_list ap;
        char *s = NULL;
        int n;

        va_start(ap, fmt);
        n = vasprintf(&s, fmt, ap);
        va_end(ap);
        return n < 0 ? -1 : strvec_take(v, s);
}

int strvec_extend(struct strvec *v, const char *const *items)
{
        for (; items && *items; items++)
                if (strvec_push(v, *items) < 0)
                        return -1;
        return 0;
}

void strvec_free(struct strvec *v)
{
        for (size_t i = 0; i < v->len; i++)
                free(v->items[i]);
        free(v->items);
        memset(v, 0, sizeof(*v));
}

void sbx_strv_free(char **v)
{
        for (size_t i = 0; v && v[i]; i++)
                free(v[i]);
        free(v);
}

const char *json_get_str(const cJSON *obj, const char *key, const char *dflt)
{
        const char *s = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(obj, key));

        return s ? s : dflt;
}

double json_get_num(const cJSON *obj, const char *key, double dflt)
{
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);

        return cJSON_IsNumber(v) ? v->valuedouble : dflt;
}

int json_dup_str(const cJSON *obj, const char *key, char **out)
{
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);

        if (!v)
                return 0;
        if (!cJSON_IsString(v) || !v->valuestring)
                return errno = EINVAL, -1;
        return (*out = strdup(v->valuestring)) ? 1 : (errno = ENOMEM, -1);
}

const char *json_skip_string(const char *p, const char *end)
{
        for (p++; p < end; p++) {
                if (*p == '\\')
                        p++;
                else if (*p == '"')
                        return p + 1;
        }
        return NULL;
}
