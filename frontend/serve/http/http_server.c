/* libmicrohttpd's side of the server: each request is routed, checked
 * (token, method, size) and admitted when its headers are in, its body
 * read up to the cap, then suspended until the event loop (http_serve.c)
 * has its answer. libmicrohttpd runs in the loop's thread (external
 * polling on its epoll fd): nothing here blocks and nothing is shared
 * between threads. */
#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "http_srv.h"
#include "util.h"

/* ---- the requests --------------------------------------------------- */

static enum http_endpoint endpoint_of(const char *url, bool *post)
{
        static const struct { const char *url; enum http_endpoint ep; bool post; } routes[] = {
                { "/run_code", HTTP_EP_RUN_CODE, true },
                { "/v1/serve", HTTP_EP_SERVE, true },
                { "/health", HTTP_EP_HEALTH, false },
                { "/metrics", HTTP_EP_METRICS, false },
                { "/v1/ping", HTTP_EP_PING, false },
        };

        for (size_t i = 0; i < sizeof(routes) / sizeof(routes[0]); i++)
                if (strcmp(url, routes[i].url) == 0) {
                        *post = routes[i].post;
                        return routes[i].ep;
                }
        return HTTP_EP_OTHER;
}

/* The client a request is counted against: its address (a unix socket's
 * peer process), and the X-Sbx-Client header's value within that. */
static void client_key(struct http_req *r, char *key, size_t len)
{
        const union MHD_ConnectionInfo *ci =
                MHD_get_connection_info(r->conn, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
        const char *label = MHD_lookup_connection_value(r->conn, MHD_HEADER_KIND, "X-Sbx-Client");
        char addr[INET6_ADDRSTRLEN + 8] = "?";
        const struct sockaddr *sa = ci ? ci->client_addr : NULL;

        if (sa && sa->sa_family == AF_INET)
                inet_ntop(AF_INET, &((const struct sockaddr_in *)sa)->sin_addr, addr, sizeof(addr));
        else if (sa && sa->sa_family == AF_INET6)
                inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)sa)->sin6_addr, addr, sizeof(addr));
        else {
                struct ucred cred;
                socklen_t n = sizeof(cred);
                if (getsockopt(r->conn_fd, SOL_SOCKET, SO_PEERCRED, &cred, &n) == 0)
                        snprintf(addr, sizeof(addr), "pid:%d", (int)cred.pid);
        }
        snprintf(key, len, "%s|%.64s", addr, label ? label : "");
}

struct framing { int lengths, encodings; };

static enum MHD_Result count_framing(void *cls, enum MHD_ValueKind kind, const char *key,
                                     const char *value)
{
        struct framing *f = cls;

        if (strcasecmp(key, MHD_HTTP_HEADER_CONTENT_LENGTH) == 0)
                f->lengths++;
        else if (strcasecmp(key, MHD_HTTP_HEADER_TRANSFER_ENCODING) == 0)
                f->encodings++;
        return MHD_YES;
}

/* A body framed two ways (two Content-Lengths, or one and chunked) is
 * what request smuggling through a proxy in front relies on: refused. */
static bool framing_ok(struct MHD_Connection *c)
{
        struct framing f = { 0, 0 };

        MHD_get_connection_values(c, MHD_HEADER_KIND, count_framing, &f);
        return f.lengths + f.encodings <= 1;
}

/* The body's announced length (0: none, chunked: counted as read). */
static unsigned long long announced_length(struct http_req *r)
{
        const char *cl = MHD_lookup_connection_value(r->conn, MHD_HEADER_KIND,
                                                     MHD_HTTP_HEADER_CONTENT_LENGTH);

        return cl ? strtoull(cl, NULL, 10) : 0;
}

/* A refusal while busy: its own status, or the one --http-busy-status
 * gives them all. */
static int busy(const struct http_srv *s, int status)
{
        return s->o->busy_status ? s->o->busy_status : status;
}

static enum MHD_Result admit(struct http_req *r)
{
        struct http_srv *s = r->srv;
        char key[HTTP_CLIENT_KEY_BYTES];

        if (!framing_ok(r->conn))
                return http_srv_answer_now(r, MHD_HTTP_BAD_REQUEST, http_json_detail("the body's length is given "
                                  "more than once (Content-Length, Transfer-Encoding)"), 0);
        unsigned long long length = announced_length(r);
        if (length > s->o->max_body_bytes)
                return http_srv_answer_now(r, MHD_HTTP_CONTENT_TOO_LARGE, http_json_detail(
                                  "request body over %zu bytes", s->o->max_body_bytes), 0);
        /* every body is held until its run starts: their sum is bounded */
        if (s->buffered + length > s->o->max_buffered_bytes)
                return http_srv_answer_now(r, busy(s, MHD_HTTP_SERVICE_UNAVAILABLE), http_json_detail(
                                  "the server holds %zu bytes of requests already", s->buffered),
                                  http_srv_retry_after(s));
        client_key(r, key, sizeof(key));
        snprintf(r->client, sizeof(r->client), "%s", key);
        switch (http_admit_reserve(s->admit, key, r, &r->ticket)) {
        case HTTP_ADMIT_OK:
                r->state = HTTP_REQ_BODY;
                r->charge = length;     /* held for it before it is sent */
                s->buffered += length;
                return MHD_YES;
        case HTTP_ADMIT_CLIENT_FULL:
                return http_srv_answer_now(r, busy(s, MHD_HTTP_TOO_MANY_REQUESTS), http_json_detail(
                                  "this client has %zu requests waiting, its share of the queue",
                                  s->o->client_max), http_srv_retry_after(s));
        case HTTP_ADMIT_QUEUE_FULL:
                return http_srv_answer_now(r, busy(s, MHD_HTTP_SERVICE_UNAVAILABLE), http_json_detail(
                                  "the queue is full (%zu requests waiting)", s->o->queue_max),
                                  http_srv_retry_after(s));
        case HTTP_ADMIT_CLOSED:
                break;
        }
        return http_srv_answer_now(r, MHD_HTTP_SERVICE_UNAVAILABLE, http_json_detail("the server is shutting down"),
                          http_srv_retry_after(s));
}

static enum MHD_Result begin(struct http_srv *s, struct MHD_Connection *c, const char *url,
                             const char *method, void **con_cls)
{
        struct http_req *r = calloc(1, sizeof(*r));
        const union MHD_ConnectionInfo *ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
        const union MHD_ConnectionInfo *sc = MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
        bool post = false;

        if (!r)
                return MHD_NO;
        r->srv = s;
        r->conn = c;
        r->hup_pfd = -1;                /* not in the poll set until the loop puts it there */
        r->conn_fd = ci ? ci->connect_fd : -1;
        r->first_ms = sbx_now_ms();
        r->cn = sc ? sc->socket_context : NULL;
        if (r->cn)
                r->cn->req = r;
        if ((r->next = s->reqs))
                s->reqs->prev = r;
        s->reqs = r;
        s->n_reqs++;
        *con_cls = r;
        r->ep = endpoint_of(url, &post);
        const char *auth = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_AUTHORIZATION);
        bool authorized = http_auth_ok(auth, s->o->token);
        if (r->ep == HTTP_EP_HEALTH && strcmp(method, "GET") == 0)
                return http_srv_answer_get(r, authorized);
        if (!authorized)
                return http_srv_answer_now(r, MHD_HTTP_UNAUTHORIZED, http_json_detail("a token is needed "
                                  "(Authorization: Bearer TOKEN)"), 0);
        if (r->ep == HTTP_EP_OTHER)
                return http_srv_answer_now(r, MHD_HTTP_NOT_FOUND, http_json_detail("Not Found"), 0);
        if (strcmp(method, post ? "POST" : "GET") != 0)
                return http_srv_answer_now(r, MHD_HTTP_METHOD_NOT_ALLOWED, http_json_detail("Method Not Allowed"), 0);
        return post ? admit(r) : http_srv_answer_get(r, true);
}

/* A body past the cap is read on and dropped, then answered 413, so the
 * client sees why rather than a reset connection. */
static enum MHD_Result take_body(struct http_req *r, const char *data, size_t *size)
{
        size_t n = *size;

        *size = 0;
        if (sbx_now_ms() - r->first_ms > r->srv->o->request_timeout_ms)
                return MHD_NO;          /* a trickling client: cut */
        if (r->too_big || r->len + n > r->srv->o->max_body_bytes) {
                r->too_big = true;
                return MHD_YES;
        }
        if (r->len + n + 1 > r->cap) {
                size_t cap = r->cap ? r->cap : 4096;
                while (cap < r->len + n + 1)
                        cap *= 2;
                struct http_srv *s = r->srv;
                size_t charge = cap > r->charge ? cap : r->charge;
                if (r->no_room || s->buffered - r->charge + charge > s->o->max_buffered_bytes) {
                        r->no_room = true;      /* read on and dropped, then 503 */
                        return MHD_YES;
                }
                char *b = realloc(r->body, cap);
                if (!b)
                        return MHD_NO;
                s->buffered += charge - r->charge;
                r->charge = charge;
                r->body = b;
                r->cap = cap;
        }
        memcpy(r->body + r->len, data, n);
        r->len += n;
        r->body[r->len] = '\0';
        return MHD_YES;
}

static enum MHD_Result refuse_body(struct http_req *r, int status, char *answer)
{
        struct http_srv *s = r->srv;

        http_admit_done(s->admit, r->ticket);
        r->ticket = NULL;
        return http_srv_answer_now(r, status, answer, status == busy(s, MHD_HTTP_SERVICE_UNAVAILABLE) ?
                          http_srv_retry_after(s) : 0);
}

/* A suite's answer is a stream of lines (application/x-ndjson). */
static bool is_suite(const char *body, size_t len)
{
        cJSON *o = cJSON_ParseWithLength(body, len);
        const cJSON *t = cJSON_GetObjectItemCaseSensitive(o, "type");
        bool suite = cJSON_IsString(t) && strcmp(t->valuestring, "suite") == 0;

        cJSON_Delete(o);
        return suite;
}

static enum MHD_Result body_done(struct http_req *r)
{
        struct http_srv *s = r->srv;
        struct http_sf_error e;

        if (r->too_big)
                return refuse_body(r, MHD_HTTP_CONTENT_TOO_LARGE,
                                   http_json_detail("request body over %zu bytes", s->o->max_body_bytes));
        if (r->no_room)
                return refuse_body(r, busy(s, MHD_HTTP_SERVICE_UNAVAILABLE), http_json_detail(
                                   "the server holds %zu bytes of requests already", s->buffered));
        if (r->ep == HTTP_EP_RUN_CODE) {
                switch (http_sf_parse(r->body ? r->body : "", r->len, &s->o->limits, &r->code, &e)) {
                case HTTP_SF_INVALID:
                        return refuse_body(r, MHD_HTTP_UNPROCESSABLE_CONTENT, http_sf_invalid(&e));
                case HTTP_SF_REFUSED:
                        http_metrics_run(&s->metrics, HTTP_OUT_SANDBOX_ERROR, -1);
                        return refuse_body(r, MHD_HTTP_OK, http_sf_sandbox_error(e.msg));
                case HTTP_SF_OK:
                        break;
                }
        } else {
                r->suite = is_suite(r->body ? r->body : "", r->len);
        }
        if (!http_admit_ready(s->admit, r->ticket))
                return refuse_body(r, MHD_HTTP_SERVICE_UNAVAILABLE,
                                   http_json_detail("the server is shutting down"));
        r->state = HTTP_REQ_QUEUED;
        r->admitted_ms = sbx_now_ms();
        r->suspended = true;
        MHD_suspend_connection(r->conn);
        return MHD_YES;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
                                  const char *method, const char *version, const char *upload,
                                  size_t *upload_size, void **con_cls)
{
        struct http_req *r = *con_cls;

        if (!r)
                return begin(cls, c, url, method, con_cls);
        switch (r->state) {
        case HTTP_REQ_BODY:
                return *upload_size ? take_body(r, upload, upload_size) : body_done(r);
        case HTTP_REQ_ANSWER:
                return http_srv_send(r);
        case HTTP_REQ_QUEUED:
        case HTTP_REQ_RUNNING:
                return MHD_NO;          /* resumed without an answer: its client is gone */
        case HTTP_REQ_SENT:
                break;
        }
        *upload_size = 0;
        return MHD_YES;
}

void http_srv_req_free(struct http_srv *s, struct http_req *r)
{
        http_admit_done(s->admit, r->ticket);
        if (r->cn) {
                r->cn->req = NULL;
                r->cn->since_ms = sbx_now_ms();
        }
        if (r->prev)
                r->prev->next = r->next;
        else
                s->reqs = r->next;
        if (r->next)
                r->next->prev = r->prev;
        s->n_reqs--;
        http_code_request_free(&r->code);
        http_srv_drop_body(r);
        free(r->lines);
        free(r->answer);
        free(r);
}

static void on_completed(void *cls, struct MHD_Connection *c, void **con_cls,
                         enum MHD_RequestTerminationCode toe)
{
        struct http_srv *s = cls;
        struct http_req *r = *con_cls;

        if (!r)
                return;
        *con_cls = NULL;
        if (r->job) {
                /* a run not answered (its client gone, or the daemon
                 * stopping) or answered before its end (killed): the loop
                 * frees r once the job has ended */
                r->gone = true;
                r->conn = NULL;
                if (r->cn)
                        r->cn->req = NULL;
                r->cn = NULL;
                return;
        }
        http_srv_req_free(s, r);
}

static void on_connection(void *cls, struct MHD_Connection *c, void **socket_context,
                          enum MHD_ConnectionNotificationCode code)
{
        struct http_srv *s = cls;
        struct http_conn *cn = *socket_context;

        if (code == MHD_CONNECTION_NOTIFY_STARTED) {
                if (!(cn = calloc(1, sizeof(*cn))))
                        return;
                cn->conn = c;
                cn->since_ms = sbx_now_ms();
                if ((cn->next = s->conns))
                        s->conns->prev = cn;
                s->conns = cn;
                s->n_conns++;
                *socket_context = cn;
                return;
        }
        if (!cn)
                return;
        if (cn->req)
                cn->req->cn = NULL;
        if (cn->prev)
                cn->prev->next = cn->next;
        else
                s->conns = cn->next;
        if (cn->next)
                cn->next->prev = cn->prev;
        s->n_conns--;
        free(cn);
        *socket_context = NULL;
}

void http_srv_sweep(struct http_srv *s, int64_t now_ms)
{
        for (struct http_conn *cn = s->conns; cn; cn = cn->next) {
                struct http_req *r = cn->req;
                int64_t since = !r ? cn->since_ms : r->state == HTTP_REQ_BODY ? r->first_ms :
                                r->state == HTTP_REQ_SENT ? r->sent_ms : now_ms;
                if (cn->cut || now_ms - since <= s->o->request_timeout_ms)
                        continue;
                const union MHD_ConnectionInfo *ci =
                        MHD_get_connection_info(cn->conn, MHD_CONNECTION_INFO_CONNECTION_FD);
                if (ci && shutdown(ci->connect_fd, SHUT_RDWR) == 0)
                        cn->cut = true; /* libmicrohttpd reads EOF and closes it */
        }
}

#define LOG_LINES_PER_S 10

/* libmicrohttpd's notes, at most LOG_LINES_PER_S a second: a flood of bad
 * clients must not become a flood of stderr. */
static void log_error(void *cls, const char *fmt, va_list ap)
{
        static int64_t second;
        static unsigned lines, dropped;
        char msg[512];
        int64_t now = sbx_now_ms() / 1000;

        if (now != second) {
                if (dropped)
                        fprintf(stderr, "sbx-run: http: %u more such lines left out\n", dropped);
                second = now;
                lines = dropped = 0;
        }
        if (++lines > LOG_LINES_PER_S) {
                dropped++;
                return;
        }
        vsnprintf(msg, sizeof(msg), fmt, ap);
        msg[strcspn(msg, "\n")] = '\0';
        fprintf(stderr, "sbx-run: http: %s\n", msg);
}

int http_srv_start(struct http_srv *s, struct sbx_err *err)
{
        const struct http_opts *o = s->o;
        unsigned per_ip = o->addr.loopback ? 0 : (o->max_connections / 4 > 16 ? o->max_connections / 4 : 16);

        s->d = MHD_start_daemon(MHD_USE_EPOLL | MHD_ALLOW_SUSPEND_RESUME | MHD_USE_ERROR_LOG,
                                0, NULL, NULL, on_request, s,
                                MHD_OPTION_EXTERNAL_LOGGER, log_error, NULL,
                                MHD_OPTION_LISTEN_SOCKET, o->listen_fd,
                                MHD_OPTION_CONNECTION_LIMIT, o->max_connections,
                                MHD_OPTION_PER_IP_CONNECTION_LIMIT, per_ip,
                                MHD_OPTION_CONNECTION_TIMEOUT, o->idle_timeout_s,
                                MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)HTTP_HEADER_MEMORY_BYTES,
                                MHD_OPTION_NOTIFY_COMPLETED, on_completed, s,
                                MHD_OPTION_NOTIFY_CONNECTION, on_connection, s,
                                MHD_OPTION_STRICT_FOR_CLIENT, 1,
                                MHD_OPTION_SIGPIPE_HANDLED_BY_APP, 1,
                                MHD_OPTION_END);
        if (!s->d)
                return sbx_fail_code(err, SBX_EXIT_SANDBOX, errno, "--http: libmicrohttpd did not start");
        return 0;
}

int http_srv_epoll_fd(const struct http_srv *s)
{
        const union MHD_DaemonInfo *di = MHD_get_daemon_info(s->d, MHD_DAEMON_INFO_EPOLL_FD);

        return di ? di->epoll_fd : -1;
}

/* Milliseconds until libmicrohttpd must run again (-1: no deadline). */
int64_t http_srv_timeout_ms(const struct http_srv *s)
{
        MHD_UNSIGNED_LONG_LONG ms;

        return MHD_get_timeout(s->d, &ms) == MHD_YES ? (int64_t)ms : -1;
}

void http_srv_run(struct http_srv *s)
{
        MHD_run(s->d);
}

void http_srv_quiesce(struct http_srv *s)
{
        MHD_socket fd = MHD_quiesce_daemon(s->d);

        if (fd != MHD_INVALID_SOCKET)
                close(fd);
        if (s->o->addr.is_unix)
                unlink(s->o->addr.path);
}

void http_srv_stop(struct http_srv *s)
{
        for (struct http_req *r = s->reqs; r; r = r->next)
                http_srv_resume(r);
        MHD_run(s->d);
        MHD_stop_daemon(s->d);
        s->d = NULL;
}
