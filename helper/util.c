/* die(), the status line, and small helpers shared by the helper's phases. */
#include <stdarg.h>
#include <time.h>

#include "helper.h"

/* The one piece of process state besides the request: where a failure is
 * reported, so that the status line says why the sandbox was not set up. */
static struct { int status_fd; struct outcome *shared; } die_target = { -1, NULL };

void die_report_to(int status_fd, struct outcome *shared)
{
        die_target.status_fd = status_fd;
        die_target.shared = shared;
}

int set_error(char *err, size_t errlen, const char *fmt, ...)
{
        va_list ap;

        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
        return -1;
}

void json_write_string(char *out, size_t outlen, const char *s)
{
        size_t n = 0;

        for (; *s && n + 7 < outlen; s++) {
                unsigned char c = (unsigned char)*s;

                if (c == '"' || c == '\\')
                        n += (size_t)snprintf(out + n, outlen - n, "\\%c", c);
                else if (c < 0x20 || c == 0x7f)
                        n += (size_t)snprintf(out + n, outlen - n, "\\u%04x", c);
                else
                        out[n++] = (char)c;
        }
        out[n] = '\0';
}

/* poll()'s int milliseconds for a wait of left_ms (> 0): rounded up, and
 * at most a day per call (an int overflows past 24.8 days). */
int poll_timeout_ms(double left_ms)
{
        return left_ms >= 86400000.0 ? 86400000 : (int)left_ms + 1;
}

/* One line of JSON, the status line of docs/helper-contract.md. */
int outcome_format(const struct outcome *out, char *line, size_t len)
{
        char msg[2 * SBX_ERRLEN], peak[24] = "null";

        json_write_string(msg, sizeof(msg), out->message);
        if (out->memory_peak >= 0)
                snprintf(peak, sizeof(peak), "%lld", out->memory_peak);
        return snprintf(line, len, "{\"status\":\"%s\",\"exit_code\":%d,\"signal\":%d,\"wall_s\":%.4f,"
                        "\"cpu_s\":%.4f,\"max_rss_kb\":%ld,\"memory_peak\":%s,\"oom_killed\":%s,"
                        "\"nproc_mode\":\"%s\",\"message\":\"%s\"}\n",
                        out->status, out->exit_code, out->signal, out->wall_s, out->cpu_s, out->max_rss_kb,
                        peak, out->oom_killed ? "true" : "false", out->nproc_mode, msg);
}

void die_with(int errnum, const char *fmt, ...)
{
        struct outcome out = { .status = "setup-error", .nproc_mode = "none", .memory_peak = -1 };
        char line[3 * SBX_ERRLEN];
        va_list ap;
        int n;

        va_start(ap, fmt);
        n = vsnprintf(out.message, sizeof(out.message), fmt, ap);
        va_end(ap);
        if (errnum && n >= 0 && (size_t)n < sizeof(out.message))
                snprintf(out.message + n, sizeof(out.message) - (size_t)n, ": %s", strerror(errnum));
        n = snprintf(line, sizeof(line), "sbx-helper: %s\n", out.message);
        if (write(STDERR_FILENO, line, (size_t)n) < 0)
                n = 0;  /* nowhere left to say it */
        if (die_target.shared && !die_target.shared->setup_failed) {
                die_target.shared->setup_failed = true;
                memcpy(die_target.shared->message, out.message, sizeof(out.message));
        }
        n = outcome_format(&out, line, sizeof(line));
        if (die_target.status_fd >= 0 && write(die_target.status_fd, line, (size_t)n) < 0)
                n = 0;
        _exit(SBX_EXIT_SETUP);
}

/* Absolute, no empty, "." or ".." components, no trailing slash: the path
 * names one place, so prefix checks on the text mean what they say. */
bool path_is_clean(const char *path)
{
        const char *p = path;

        if (path[0] != '/' || strlen(path) >= 4096)
                return false;
        while (*p == '/' && strcmp(path, "/") != 0) {
                size_t len = strcspn(p + 1, "/");

                if (len == 0 || (len == 1 && p[1] == '.') || (len == 2 && p[1] == '.' && p[2] == '.'))
                        return false;
                p += len + 1;
        }
        return true;
}

/* path is prefix or lies below it, by components: /usrx is not under /usr. */
bool path_is_under(const char *path, const char *prefix)
{
        size_t len = strlen(prefix);

        return strcmp(prefix, "/") == 0 ||
               (strncmp(path, prefix, len) == 0 && (path[len] == '\0' || path[len] == '/'));
}

/* Each component is opened by step() below the one before, which never
 * follows a symlink, so nothing on the way can redirect the walk. */
int path_walk(int dirfd, const char *path, path_step step, void *arg)
{
        auto_fd cur = fcntl(dirfd, F_DUPFD_CLOEXEC, 3);
        char name[256];

        for (const char *p = path + strspn(path, "/"); *p && cur >= 0; p += strspn(p, "/")) {
                size_t len = strcspn(p, "/");
                int next;

                if (len >= sizeof(name))
                        return errno = ENAMETOOLONG, -1;
                memcpy(name, p, len);
                name[len] = '\0';
                p += len;
                next = step(cur, name, p[strspn(p, "/")] == '\0', arg);
                close(cur);
                cur = next;
        }
        return take_fd(&cur);
}

int write_file_at(int dirfd, const char *path, const char *text)
{
        auto_fd fd = openat(dirfd, path, O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
        ssize_t len = (ssize_t)strlen(text);

        return fd < 0 || write(fd, text, (size_t)len) != len ? -1 : 0;
}

/* Up to len - 1 bytes of the file, NUL-terminated; the count, or -1. */
ssize_t read_file_at(int dirfd, const char *path, char *buf, size_t len)
{
        auto_fd fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC);
        ssize_t n = fd < 0 ? -1 : read(fd, buf, len - 1);

        if (n >= 0)
                buf[n] = '\0';
        return n;
}

/* SBX_TRACE=N, sbx-run's start on CLOCK_MONOTONIC in ns: when a phase ended,
 * on stderr, on sbx-run's time line. Only printed, never a decision. */
void trace_mark(long long base_ns, const char *phase)
{
        struct timespec ts;

        if (base_ns > 0 && clock_gettime(CLOCK_MONOTONIC, &ts) == 0)
                fprintf(stderr, "sbx-helper: trace %8.3f ms  %s\n", (double)((long long)ts.tv_sec *
                        1000000000LL + ts.tv_nsec - base_ns) / 1e6, phase);
}
