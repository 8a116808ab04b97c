/* Where the server listens and who may talk to it: the address (a unix
 * socket path, or a numeric host and port, loopback unless told), the
 * listening socket, and the bearer token (read from a file, never argv:
 * argv is visible to every user in ps). */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "http.h"
#include "sha256.h"

#define TOKEN_MIN_BYTES 16
#define TOKEN_MAX_BYTES 4096

static int parse_port(const char *s, int *port, struct sbx_err *err)
{
        char *end;
        long v;

        errno = 0;
        v = strtol(s, &end, 10);
        if (!*s || *end || errno || v < 0 || v > 65535)
                return sbx_fail(err, 0, "--http: '%s' is not a port (0 to 65535)", s);
        *port = (int)v;
        return 0;
}

static bool is_loopback(const char *host)
{
        struct in_addr v4;
        struct in6_addr v6;

        if (inet_pton(AF_INET, host, &v4) == 1)
                return (ntohl(v4.s_addr) >> 24) == 127;
        if (inet_pton(AF_INET6, host, &v6) != 1)
                return false;
        if (IN6_IS_ADDR_LOOPBACK(&v6))
                return true;
        return IN6_IS_ADDR_V4MAPPED(&v6) && v6.s6_addr[12] == 127;
}

static int parse_host(const char *text, size_t len, struct http_addr *a, struct sbx_err *err)
{
        struct in6_addr v6;

        if (len == 0 || (len == 9 && strncmp(text, "localhost", 9) == 0)) {
                strcpy(a->host, "127.0.0.1");
        } else {
                if (len >= sizeof(a->host))
                        return sbx_fail(err, 0, "--http: host '%.*s' is too long", (int)len, text);
                memcpy(a->host, text, len);
                a->host[len] = '\0';
        }
        if (inet_pton(AF_INET, a->host, &v6) != 1 && inet_pton(AF_INET6, a->host, &v6) != 1)
                return sbx_fail(err, 0, "--http: '%s' is not a numeric IPv4 or IPv6 address "
                                "(or localhost)", a->host);
        a->loopback = is_loopback(a->host);
        return 0;
}

int http_addr_parse(const char *text, struct http_addr *a, struct sbx_err *err)
{
        const char *colon;

        memset(a, 0, sizeof(*a));
        if (strncmp(text, "unix:", 5) == 0 || strchr(text, '/')) {
                const char *path = strncmp(text, "unix:", 5) == 0 ? text + 5 : text;
                if (!*path || strlen(path) >= sizeof(a->path))
                        return sbx_fail(err, 0, "--http: a socket path of 1 to %zu bytes",
                                        sizeof(a->path) - 1);
                a->is_unix = a->loopback = true;
                strcpy(a->path, path);
                return 0;
        }
        if (text[0] == '[') {
                const char *close = strchr(text, ']');
                if (!close || close[1] != ':')
                        return sbx_fail(err, 0, "--http: '%s': an IPv6 address is [ADDR]:PORT", text);
                return parse_host(text + 1, (size_t)(close - text - 1), a, err) < 0 ? -1 :
                       parse_port(close + 2, &a->port, err);
        }
        if (!(colon = strrchr(text, ':')))
                return parse_host("", 0, a, err) < 0 ? -1 : parse_port(text, &a->port, err);
        if (strchr(text, ':') != colon)
                return sbx_fail(err, 0, "--http: '%s': write an IPv6 address as [ADDR]:PORT", text);
        return parse_host(text, (size_t)(colon - text), a, err) < 0 ? -1 :
               parse_port(colon + 1, &a->port, err);
}

void http_addr_url(const struct http_addr *a, char *buf, size_t len)
{
        if (a->is_unix)
                snprintf(buf, len, "unix:%s", a->path);
        else if (strchr(a->host, ':'))
                snprintf(buf, len, "http://[%s]:%d", a->host, a->port);
        else
                snprintf(buf, len, "http://%s:%d", a->host, a->port);
}

/* An existing socket file is replaced only when nothing answers on it. */
static int clear_unix_path(const char *path, struct sbx_err *err)
{
        struct sockaddr_un sa = { .sun_family = AF_UNIX };
        struct stat st;

        if (lstat(path, &st) < 0)
                return errno == ENOENT ? 0 : sbx_fail(err, errno, "--http: %s", path);
        if (!S_ISSOCK(st.st_mode))
                return sbx_fail(err, 0, "--http: %s exists and is not a socket", path);
        auto_fd fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0)
                return sbx_fail(err, errno, "--http: socket");
        strcpy(sa.sun_path, path);
        if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0)
                return sbx_fail(err, 0, "--http: %s: another server listens there", path);
        if (errno != ECONNREFUSED)
                return sbx_fail(err, errno, "--http: %s", path);
        return unlink(path) < 0 ? sbx_fail(err, errno, "--http: removing the stale %s", path) : 0;
}

static int listen_unix(struct http_addr *a, int backlog, struct sbx_err *err)
{
        struct sockaddr_un sa = { .sun_family = AF_UNIX };

        if (clear_unix_path(a->path, err) < 0)
                return -1;
        auto_fd fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
        if (fd < 0)
                return sbx_fail(err, errno, "--http: socket");
        strcpy(sa.sun_path, a->path);
        /* made 0600 by bind itself: connecting needs write access to it */
        mode_t old = umask(0177);
        int rc = bind(fd, (struct sockaddr *)&sa, sizeof(sa));
        umask(old);
        if (rc < 0 || listen(fd, backlog) < 0)
                return sbx_fail(err, errno, "--http: %s", a->path);
        return take_fd(&fd);
}

static int listen_tcp(struct http_addr *a, int backlog, struct sbx_err *err)
{
        struct sockaddr_storage ss = { 0 };
        struct sockaddr_in *v4 = (struct sockaddr_in *)&ss;
        struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)&ss;
        socklen_t len;
        int one = 1;

        if (inet_pton(AF_INET, a->host, &v4->sin_addr) == 1) {
                v4->sin_family = AF_INET;
                v4->sin_port = htons((uint16_t)a->port);
                len = sizeof(*v4);
        } else if (inet_pton(AF_INET6, a->host, &v6->sin6_addr) == 1) {
                v6->sin6_family = AF_INET6;
                v6->sin6_port = htons((uint16_t)a->port);
                len = sizeof(*v6);
        } else {
                return sbx_fail(err, 0, "--http: '%s' is not a numeric address", a->host);
        }
        auto_fd fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
        if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0 ||
            (ss.ss_family == AF_INET6 && setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one)) < 0))
                return sbx_fail(err, errno, "--http: socket");
        if (bind(fd, (struct sockaddr *)&ss, len) < 0 || listen(fd, backlog) < 0)
                return sbx_fail(err, errno, "--http: %s:%d", a->host, a->port);
        if (getsockname(fd, (struct sockaddr *)&ss, &len) < 0)
                return sbx_fail(err, errno, "--http: getsockname");
        a->port = ntohs(ss.ss_family == AF_INET ? v4->sin_port : v6->sin6_port);
        return take_fd(&fd);
}

int http_listen(struct http_addr *a, int backlog, struct sbx_err *err)
{
        return a->is_unix ? listen_unix(a, backlog, err) : listen_tcp(a, backlog, err);
}

/* ---- the token ------------------------------------------------------- */

static int token_file_ok(int fd, const char *path, struct sbx_err *err)
{
        struct stat st;

        if (fstat(fd, &st) < 0)
                return sbx_fail(err, errno, "--http-token-file %s", path);
        if (!S_ISREG(st.st_mode) || st.st_uid != geteuid())
                return sbx_fail(err, 0, "--http-token-file %s: not a regular file of yours", path);
        if (st.st_mode & 077)
                return sbx_fail(err, 0, "--http-token-file %s: readable or writable by others "
                                "(chmod 600 it)", path);
        return 0;
}

char *http_token_load(const char *path, struct sbx_err *err)
{
        char buf[TOKEN_MAX_BYTES + 2];
        auto_fd fd = open(path, O_RDONLY | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC);
        ssize_t n;
        size_t len = 0;

        if (fd < 0) {
                sbx_fail(err, errno, "--http-token-file %s", path);
                return NULL;
        }
        if (token_file_ok(fd, path, err) < 0)
                return NULL;
        while ((n = read(fd, buf + len, sizeof(buf) - 1 - len)) > 0 && len + (size_t)n < sizeof(buf) - 1)
                len += (size_t)n;
        if (n > 0)
                len += (size_t)n;
        buf[len] = '\0';
        buf[strcspn(buf, "\r\n")] = '\0';
        len = strlen(buf);
        for (size_t i = 0; i < len; i++)
                if (buf[i] <= ' ' || buf[i] > '~')
                        len = 0;
        if (len < TOKEN_MIN_BYTES || len > TOKEN_MAX_BYTES) {
                sbx_fail(err, 0, "--http-token-file %s: the first line must be a token of %d to "
                         "%d printable characters, no spaces", path, TOKEN_MIN_BYTES, TOKEN_MAX_BYTES);
                return NULL;
        }
        char *token = strdup(buf);
        explicit_bzero(buf, sizeof(buf));
        if (!token)
                sbx_fail_oom(err, "--http-token-file");
        return token;
}

/* Equal digests, without a branch on their bytes: the time taken says
 * nothing of how much of a guess was right. */
static bool same_secret(const char *given, size_t given_len, const char *token)
{
        char a[SHA256_HEX_LEN + 1], b[SHA256_HEX_LEN + 1];
        unsigned diff = 0;

        sha256_buf_hex(given, given_len, a);
        sha256_buf_hex(token, strlen(token), b);
        for (size_t i = 0; i < SHA256_HEX_LEN; i++)
                diff |= (unsigned)(a[i] ^ b[i]);
        return diff == 0;
}

static bool basic_ok(const char *b64, const char *token)
{
        unsigned char *raw = NULL;
        size_t len = 0;
        bool ok = false;

        if (http_base64_decode(b64, strlen(b64), &raw, &len) < 0)
                return false;
        unsigned char *colon = memchr(raw, ':', len);
        if (colon)
                ok = same_secret((const char *)colon + 1, len - (size_t)(colon + 1 - raw), token);
        explicit_bzero(raw, len);
        free(raw);
        return ok;
}

bool http_auth_ok(const char *header, const char *token)
{
        if (!token)
                return true;
        if (!header)
                return false;
        if (strncasecmp(header, "Bearer ", 7) == 0) {
                header += 7;
                header += strspn(header, " ");
                return same_secret(header, strcspn(header, " "), token) && !header[strcspn(header, " ")];
        }
        if (strncasecmp(header, "Basic ", 6) == 0) {
                header += 6;
                return basic_ok(header + strspn(header, " "), token);
        }
        return false;
}
