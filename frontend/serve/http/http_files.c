/* The files a /run_code request sends and fetches: which names are
 * allowed, base64 both ways, and the writes into and reads out of the
 * run's workdir. A name is resolved one component at a time from the
 * workdir's fd, each opened O_NOFOLLOW: a symlink the program left there
 * (to ~/.ssh, say) is refused wherever it sits, and no name can climb out
 * ("..", an absolute path) since such names are refused before. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "http.h"
#include "encoding.h"
#include "util.h"

void http_files_free(struct http_file *files, size_t n)
{
        for (size_t i = 0; files && i < n; i++) {
                free(files[i].name);
                free(files[i].data);
        }
        free(files);
}

#define WHY(...) (snprintf(why, why_len, __VA_ARGS__), -1)

static int component_check(const char *c, size_t len, char *why, size_t why_len)
{
        if (len == 0)
                return WHY("an empty path component");
        if ((len == 1 && c[0] == '.') || (len == 2 && c[0] == '.' && c[1] == '.'))
                return WHY("'.' and '..' are not allowed");
        if (len > HTTP_MAX_NAME_COMPONENT)
                return WHY("a component longer than %d bytes", HTTP_MAX_NAME_COMPONENT);
        return 0;
}

int http_file_name_check(const char *name, char *why, size_t why_len)
{
        size_t len = strlen(name), depth = 0, start = 0;

        if (len == 0)
                return WHY("an empty name");
        if (len > HTTP_MAX_NAME_BYTES)
                return WHY("longer than %d bytes", HTTP_MAX_NAME_BYTES);
        if (name[0] == '/')
                return WHY("an absolute path (names are relative to the run's directory)");
        for (size_t i = 0; i < len;) {
                unsigned char c = (unsigned char)name[i];
                size_t n = utf8_seq_len((const unsigned char *)name + i, len - i);
                if (c < 0x20 || c == 0x7f || c == '\\')
                        return WHY("a control character or backslash at byte %zu", i);
                if (n == 0)
                        return WHY("not UTF-8 at byte %zu", i);
                i += n;
        }
        for (size_t i = 0; i <= len; i++) {
                if (i < len && name[i] != '/')
                        continue;
                if (component_check(name + start, i - start, why, why_len) < 0)
                        return -1;
                if (++depth > HTTP_MAX_NAME_DEPTH)
                        return WHY("deeper than %d directories", HTTP_MAX_NAME_DEPTH);
                start = i + 1;
        }
        return 0;
}

/* ---- base64 ---------------------------------------------------------- */

int http_base64_decode(const char *in, size_t len, unsigned char **out, size_t *out_len)
{
        unsigned char *buf = malloc(len / 4 * 3 + 3);

        if (!buf)
                return -1;
        if (base64_decode(in, len, false, buf, out_len) < 0) {
                free(buf);
                errno = EINVAL;
                return -1;
        }
        buf[*out_len] = '\0';
        *out = buf;
        return 0;
}

/* ---- the workdir ------------------------------------------------------ */

/* The directory holding name's last component, opened from dirfd one
 * component at a time (made 0700 when missing and make is set); *last
 * points into name. -1 with errno. */
static int open_parent(int dirfd, const char *name, bool make, const char **last)
{
        auto_fd cur = fcntl(dirfd, F_DUPFD_CLOEXEC, 3);
        const char *p = name, *slash;
        char comp[HTTP_MAX_NAME_COMPONENT + 1];

        while (cur >= 0 && (slash = strchr(p, '/'))) {
                size_t n = (size_t)(slash - p);
                if (n >= sizeof(comp)) {
                        errno = ENAMETOOLONG;
                        return -1;
                }
                memcpy(comp, p, n);
                comp[n] = '\0';
                if (make && mkdirat(cur, comp, 0700) < 0 && errno != EEXIST)
                        return -1;
                int next = openat(cur, comp, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
                if (next < 0)
                        return -1;
                close(cur);
                cur = next;
                p = slash + 1;
        }
        *last = p;
        return cur < 0 ? -1 : take_fd(&cur);
}

static int write_one(int dirfd, const struct http_file *f, struct sbx_err *err)
{
        const char *last;
        auto_fd dir = open_parent(dirfd, f->name, true, &last);

        if (dir < 0)
                return sbx_fail(err, errno, "files: '%s'", f->name);
        auto_fd fd = openat(dir, last, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
        if (fd < 0 || sbx_write_all(fd, f->data, f->len) < 0)
                return sbx_fail(err, errno, "files: '%s'", f->name);
        return 0;
}

int http_files_write(int dirfd, const struct http_file *files, size_t n, struct sbx_err *err)
{
        for (size_t i = 0; i < n; i++)
                if (write_one(dirfd, &files[i], err) < 0)
                        return -1;
        return 0;
}

/* The file's bytes, or why not (a static string). */
static const char *read_one(int dirfd, const char *name, size_t budget, struct http_file *f)
{
        const char *last;
        auto_fd dir = open_parent(dirfd, name, false, &last);
        struct stat st;

        if (dir < 0)
                return errno == ENOENT ? "not found" : "not a plain directory path";
        auto_fd fd = openat(dir, last, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
        if (fd < 0)
                return errno == ENOENT ? "not found" : errno == ELOOP ? "a symlink" : "cannot be opened";
        if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
                return "not a regular file";
        if (st.st_nlink != 1)
                return "a file with more than one link";
        if ((unsigned long long)st.st_size > budget)
                return "over the server's fetch size limit";
        if (!(f->data = malloc((size_t)st.st_size + 1)))
                return "out of memory";
        ssize_t got = pread(fd, f->data, (size_t)st.st_size + 1, 0);
        if (got < 0 || (size_t)got > (size_t)st.st_size)
                return got < 0 ? "cannot be read" : "grew while read";
        f->len = (size_t)got;
        return (f->name = strdup(name)) ? NULL : "out of memory";
}

static void note(char **message, const char *name, const char *why)
{
        char *more = NULL;

        if (asprintf(&more, "%s%sfetch_files: '%s': %s", *message ? *message : "",
                     *message ? "; " : "", name, why) < 0)
                return;
        free(*message);
        *message = more;
}

int http_files_fetch(int dirfd, char *const *names, size_t n, size_t max_bytes,
                     struct http_file **out, size_t *n_out, char **message)
{
        size_t used = 0;

        *out = NULL;
        *n_out = 0;
        if (n && !(*out = calloc(n, sizeof(**out))))
                return -1;
        for (size_t i = 0; i < n; i++) {
                struct http_file *f = &(*out)[*n_out];
                const char *why = read_one(dirfd, names[i], max_bytes - used, f);
                if (why) {
                        free(f->data);
                        free(f->name);
                        memset(f, 0, sizeof(*f));
                        note(message, names[i], why);
                        continue;
                }
                used += f->len;
                (*n_out)++;
        }
        return 0;
}
