/* die() and small pure helpers shared by the helper's phases. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "helper.h"

/* The one piece of process state besides the request: where a failure is
 * reported, so that the status line says why the sandbox was not set up. */
static struct { int fd; bool as_json; } die_target = { -1, false };

void die_report_to(int fd, bool as_json)
{
        die_target.fd = fd;
        die_target.as_json = as_json;
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

__attribute__((noreturn)) static void die_with(int errnum, const char *fmt, va_list ap)
{
        char msg[SBX_ERRLEN], esc[2 * SBX_ERRLEN], line[3 * SBX_ERRLEN];
        int n = vsnprintf(msg, sizeof(msg), fmt, ap);

        if (errnum && n >= 0 && (size_t)n < sizeof(msg))
                snprintf(msg + n, sizeof(msg) - (size_t)n, ": %s", strerror(errnum));
        n = snprintf(line, sizeof(line), "sbx-helper: %s\n", msg);
        if (write(STDERR_FILENO, line, (size_t)n) < 0)
                n = 0;  /* nowhere left to say it */
        json_write_string(esc, sizeof(esc), msg);
        if (die_target.fd >= 0 && die_target.as_json)
                n = snprintf(line, sizeof(line), "{\"status\":\"setup-error\",\"exit_code\":0,\"signal\":0,"
                             "\"wall_s\":0,\"cpu_s\":0,\"max_rss_kb\":0,\"nproc_mode\":\"none\","
                             "\"message\":\"%s\"}\n", esc);
        else    /* records on the report pipe end with a NUL */
                n = snprintf(line, sizeof(line), "E%s", msg) + 1;
        if (die_target.fd >= 0 && write(die_target.fd, line, (size_t)n) < 0)
                n = 0;
        _exit(SBX_EXIT_SETUP);
}

void die(const char *fmt, ...)
{
        va_list ap;

        va_start(ap, fmt);
        die_with(0, fmt, ap);
}

void die_errno(const char *fmt, ...)
{
        int saved = errno;
        va_list ap;

        va_start(ap, fmt);
        die_with(saved, fmt, ap);
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
