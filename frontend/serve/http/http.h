/* sbx-run --http: the HTTP face of the sandbox (docs/http.md). The layer
 * reads requests with libmicrohttpd (http_server.c), admits them
 * (http_admit.c), translates SandboxFusion's /run_code (http_sf.c,
 * http_files.c) and hands each to the run engine through http_exec.h's
 * table; it calls nothing above it. This header holds the pure parts,
 * each unit tested (tests/unit/frontend_http*.c), and the server's
 * options. */
#ifndef SBX_HTTP_H
#define SBX_HTTP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "err.h"
#include "http_exec.h"

#define HTTP_DEFAULT_QUEUE              256
#define HTTP_DEFAULT_MAX_BODY_BYTES     (16LL << 20)
#define HTTP_DEFAULT_MAX_BUFFERED_BYTES (256LL << 20)   /* every body held at once */
#define HTTP_DEFAULT_MAX_TIMEOUT_MS     (300LL * 1000)
#define HTTP_DEFAULT_MAX_FILES          64
#define HTTP_DEFAULT_MAX_FETCH_BYTES    (16LL << 20)
#define HTTP_DEFAULT_IDLE_TIMEOUT_S     15
#define HTTP_DEFAULT_REQUEST_TIMEOUT_MS 30000   /* headers and body, an answer's sending */
#define HTTP_HEADER_MEMORY_BYTES        (32 << 10)
#define HTTP_MAX_NAME_DEPTH             8
#define HTTP_MAX_NAME_COMPONENT         255
#define HTTP_MAX_NAME_BYTES             1024
#define HTTP_LATENCY_WINDOW             4096    /* answers the percentiles cover */
#define HTTP_CLIENT_KEY_BYTES           128

/* ---- SandboxFusion's /run_code (http_sf.c) ------------------------- */

/* The server's ceilings a request is clamped to. */
struct http_limits {
        int64_t max_timeout_ms;         /* run_timeout, compile_timeout */
        long long max_memory_bytes;     /* the session's address space; -1: none */
        size_t max_files;               /* files per request */
        size_t max_fetch;               /* fetch_files entries */
};

/* Why a request was not translated. HTTP_SF_INVALID: the body does not
 * validate (SandboxFusion answers 422, FastAPI's {"detail": [...]});
 * HTTP_SF_REFUSED: it validates but sbx will not run it (a file name
 * outside the workdir): a SandboxError answer with the message. */
enum http_sf_verdict { HTTP_SF_OK = 0, HTTP_SF_INVALID = -1, HTTP_SF_REFUSED = -2 };

struct http_sf_error {
        char field[32];                 /* loc: ["body", field] or ["body", field, key] */
        char key[64];                   /* "" when none */
        char type[32];                  /* pydantic's kind: "missing", "string_type", ... */
        char msg[384];
};

/* Parses and checks a /run_code body into rq (zeroed first; freed on
 * error). Pure. */
enum http_sf_verdict http_sf_parse(const char *body, size_t len, const struct http_limits *lim,
                                   struct http_code_request *rq, struct http_sf_error *e);
/* SandboxFusion's language names (its Language literal), NULL-terminated. */
extern const char *const http_sf_languages[];
bool http_sf_language_known(const char *name);
/* The answers, JSON text (malloc'd, NULL when out of memory). */
char *http_sf_render(const struct http_code_result *res);
char *http_sf_sandbox_error(const char *message);
char *http_sf_invalid(const struct http_sf_error *e);

/* ---- file names, base64, the workdir (http_files.c) ----------------- */

/* A name a request may give a file: relative, components neither empty,
 * "." nor "..", no control byte or backslash, at most HTTP_MAX_NAME_DEPTH
 * components of HTTP_MAX_NAME_COMPONENT bytes. 0, or -1 with why. */
int http_file_name_check(const char *name, char *why, size_t why_len);
/* Strict base64 (util/encoding.h's, no other byte) into a buffer of its
 * own: 0 with *out malloc'd (NUL-terminated after *out_len bytes), -1 on
 * bad input or ENOMEM (errno says which: EINVAL or ENOMEM). The encoder
 * is encoding.h's base64_encode. */
int http_base64_decode(const char *in, size_t len, unsigned char **out, size_t *out_len);
/* Writes each file under the directory dirfd (made by the caller, empty):
 * missing parent directories made (0700), nothing followed or replaced. */
int http_files_write(int dirfd, const struct http_file *files, size_t n, struct sbx_err *err);
/* Reads the named files back from under dirfd, no symlink followed (not
 * even inside), regular files with one link only, max_bytes in all. A file
 * missing or refused is left out and said in *message (malloc'd or NULL). */
int http_files_fetch(int dirfd, char *const *names, size_t n, size_t max_bytes,
                     struct http_file **out, size_t *n_out, char **message);

/* ---- admission (http_admit.c) -------------------------------------- */

enum http_admit_verdict {
        HTTP_ADMIT_OK = 0,
        HTTP_ADMIT_CLIENT_FULL,         /* 429: this client holds its share */
        HTTP_ADMIT_QUEUE_FULL,          /* 503: the queue is full */
        HTTP_ADMIT_CLOSED,              /* 503: shutting down */
};

struct http_ticket;                     /* one admitted request */
struct http_admit;

/* queue_max: requests waiting (being read or queued); client_max: of
 * them, one client's. */
struct http_admit *http_admit_new(size_t queue_max, size_t client_max);
void http_admit_free(struct http_admit *a);
/* A request whose headers are in: a ticket (owner is the caller's) or the
 * refusal. The client is named by key (any bytes, cut to
 * HTTP_CLIENT_KEY_BYTES). */
enum http_admit_verdict http_admit_reserve(struct http_admit *a, const char *key, void *owner,
                                           struct http_ticket **out);
/* Its body is in: it may run. false once closed (answer it 503 and end
 * it with http_admit_done). */
bool http_admit_ready(struct http_admit *a, struct http_ticket *t);
/* The next ready ticket, clients in turn (round-robin): NULL when none.
 * The ticket then counts as running until http_admit_done. */
struct http_ticket *http_admit_next(struct http_admit *a);
/* The request ended (answered, refused or its client gone), in any state. */
void http_admit_done(struct http_admit *a, struct http_ticket *t);
void *http_admit_owner(const struct http_ticket *t);
/* No new tickets from now on; returns the ready ones, in order, as a list
 * the caller ends one by one with http_admit_done (NULL-terminated). */
struct http_ticket **http_admit_close(struct http_admit *a);
size_t http_admit_waiting(const struct http_admit *a);     /* reserved, not running */
size_t http_admit_ready_count(const struct http_admit *a); /* of them, with their body */
size_t http_admit_running(const struct http_admit *a);
size_t http_admit_clients(const struct http_admit *a);
/* Seconds a refused client should wait: the queue ahead of it at the mean
 * run time, over the slots; at least 1, at most 60. */
unsigned http_retry_after_s(size_t waiting, double mean_run_s, int slots);

/* ---- metrics (http_metrics.c) -------------------------------------- */

enum http_endpoint {
        HTTP_EP_RUN_CODE, HTTP_EP_SERVE, HTTP_EP_HEALTH, HTTP_EP_METRICS, HTTP_EP_PING,
        HTTP_EP_OTHER, HTTP_EP_COUNT,
};
enum http_outcome {                     /* how a run ended, for runs_total */
        HTTP_OUT_SUCCESS, HTTP_OUT_FAILED, HTTP_OUT_TIMEOUT, HTTP_OUT_SANDBOX_ERROR,
        HTTP_OUT_CANCELLED, HTTP_OUT_COUNT,
};

struct http_metrics {
        uint64_t requests[HTTP_EP_COUNT];
        uint64_t by_status[6];          /* 1xx .. 5xx by first digit; [0] other */
        uint64_t refused_429, refused_503, refused_413, unauthorized;
        uint64_t runs[HTTP_OUT_COUNT];
        double latency_s[HTTP_LATENCY_WINDOW];  /* admitted to answered, a ring */
        size_t latency_n, latency_pos;
        double run_s_sum;               /* run time of the last runs, for Retry-After */
        uint64_t run_s_n;
        int64_t started_ms;
};
void http_metrics_init(struct http_metrics *m, int64_t now_ms);
void http_metrics_answer(struct http_metrics *m, enum http_endpoint ep, int status);
void http_metrics_latency(struct http_metrics *m, double seconds);
void http_metrics_run(struct http_metrics *m, enum http_outcome out, double run_s);
/* The q-quantile (0..1) of the window, nearest rank; 0 when empty. */
double http_metrics_quantile(const struct http_metrics *m, double q);
double http_metrics_mean_run_s(const struct http_metrics *m);
/* Prometheus text exposition, malloc'd. */
char *http_metrics_text(const struct http_metrics *m, size_t waiting, size_t running,
                        size_t connections, int slots, int64_t now_ms);

/* ---- where it listens, who may talk (http_access.c) ----------------- */

struct http_addr {
        bool is_unix;
        char path[108];                 /* sun_path */
        char host[64];                  /* numeric */
        int port;                       /* 0: the kernel's choice */
        bool loopback;                  /* 127/8, ::1, or a unix socket */
};
/* "PATH/with/slash", "HOST:PORT", "[V6]:PORT", ":PORT", "PORT". Pure. */
int http_addr_parse(const char *text, struct http_addr *a, struct sbx_err *err);
/* A listening socket (CLOEXEC, non-blocking) on a; the port the kernel
 * chose written back; a unix socket made 0600 (a stale one replaced, a
 * live one or any other file refused). */
int http_listen(struct http_addr *a, int backlog, struct sbx_err *err);
/* "http://127.0.0.1:8080", "http+unix://%2Fpath" into buf. */
void http_addr_url(const struct http_addr *a, char *buf, size_t len);

/* A token from FILE's first line: the file must be a regular file of
 * yours not readable by group or others, the token 16 to 4096 printable
 * bytes. malloc'd, or NULL with err. */
char *http_token_load(const char *path, struct sbx_err *err);
/* Whether an Authorization header value carries token: "Bearer TOKEN", or
 * "Basic base64(USER:TOKEN)". Constant-time in the token's bytes. */
bool http_auth_ok(const char *header, const char *token);

/* ---- the run engine's side of http_exec.h (http_exec_sbx.c) --------- */

struct sandbox;
struct http_exec_cfg {
        struct sandbox *sb;
        int64_t default_timeout_ms;     /* --serve requests without "timeout" */
        int64_t max_timeout_ms;         /* and with one */
        int64_t cpu_limit_s;            /* --cpu; 0: the timeout's */
        int64_t max_cpu_s;              /* the helper's max_cpu; 0: none */
        size_t max_fetch_bytes;
        const char *sbx_run;            /* suites run `sbx-run --suite` */
        char *const *suite_args;        /* with the server's sandbox options */
};
int http_exec_sbx_open(struct http_exec_ops *ops, const struct http_exec_cfg *cfg);
void http_exec_sbx_close(struct http_exec_ops *ops);

/* ---- the server (http_server.c, http_serve.c, http_main.c) ---------- */

struct http_opts {
        struct http_addr addr;
        int listen_fd;                  /* http_listen's */
        char *token;                    /* NULL: none (loopback only) */
        int slots;                      /* runs at once: -j */
        size_t queue_max, client_max;
        size_t max_body_bytes;
        size_t max_buffered_bytes;      /* the bodies of every request held at once */
        size_t max_fetch_bytes;
        unsigned idle_timeout_s;
        int64_t request_timeout_ms;     /* a request's reading, an answer's sending */
        unsigned max_connections;
        /* The status of a refusal while busy (the queue or a client's share
         * full, too many bodies held): 0 for 503 and 429; or one for all of
         * them (504: verl's client retries on it alone). */
        int busy_status;
        struct http_limits limits;
        const char *ready_tier, *ready_python;  /* for the ready line and /health */
};

/* Serves until a stop signal, then drains (docs/http.md, Shutdown).
 * Returns sbx-run's exit status. */
int http_serve(const struct http_opts *o, const struct http_exec_ops *ops);

/* The server's insides, shared by http_server.c (libmicrohttpd's side:
 * reading requests, sending answers) and http_serve.c (the event loop:
 * admission, jobs, shutdown); no other file touches them. */
struct MHD_Daemon;
struct MHD_Connection;

enum http_req_state {
        HTTP_REQ_BODY,          /* admitted; its body coming */
        HTTP_REQ_QUEUED,        /* suspended, waiting for a run slot */
        HTTP_REQ_RUNNING,       /* suspended, its job in flight */
        HTTP_REQ_ANSWER,        /* its answer made; resumed to send it */
        HTTP_REQ_SENT,          /* the answer handed to libmicrohttpd */
};

struct http_conn;

struct http_req {
        struct http_req *next, *prev;   /* every live request */
        struct http_srv *srv;
        struct MHD_Connection *conn;
        struct http_conn *cn;
        enum http_endpoint ep;
        enum http_req_state state;
        struct http_ticket *ticket;
        char *body;
        size_t len, cap;
        size_t charge;                  /* its share of srv->buffered */
        bool too_big, no_room, suspended, gone, killed, suite;
        int conn_fd;
        int64_t first_ms, admitted_ms, sent_ms;
        struct http_code_request code;  /* /run_code, translated */
        struct http_job *job;
        char *lines;                    /* a native job's answer lines */
        size_t lines_len, n_lines;
        int status;                     /* the answer */
        char *answer;
        size_t answer_len;
        const char *ctype;
        unsigned retry_after;
        size_t pfd_off, npfd;
        long hup_pfd;                   /* its socket in the poll set, or -1 */
        int weight;                     /* run slots it holds while running */
        char client[HTTP_CLIENT_KEY_BYTES];     /* who it counts against */
};

struct http_conn {
        struct http_conn *next, *prev;
        struct MHD_Connection *conn;
        struct http_req *req;           /* the request in it, if any */
        int64_t since_ms;               /* its start, or its last answer */
        bool cut;
};

struct http_srv {
        const struct http_opts *o;
        const struct http_exec_ops *ops;
        struct MHD_Daemon *d;
        struct http_admit *admit;
        struct http_metrics metrics;
        struct http_req *reqs;
        struct http_conn *conns;
        size_t n_reqs, n_conns;
        size_t buffered;                /* bytes of bodies held */
        int slots_used;                 /* the running requests' weights */
        bool draining, killing;
        bool resumed;                   /* a connection was resumed since the last run */
};

int http_srv_start(struct http_srv *s, struct sbx_err *err);
void http_srv_stop(struct http_srv *s);
/* No new connections; the listening socket closed (a unix one removed). */
void http_srv_quiesce(struct http_srv *s);
/* r's answer (body malloc'd, ours from now on); it is sent once r's
 * connection is resumed. */
void http_srv_answer(struct http_req *r, int status, char *body, const char *ctype,
                     unsigned retry_after);
void http_srv_resume(struct http_req *r);
/* The body is not needed any more (its run started): its memory freed. */
void http_srv_drop_body(struct http_req *r);
void http_srv_req_free(struct http_srv *s, struct http_req *r);
/* libmicrohttpd's epoll fd, when it must run again (ms, -1: no deadline),
 * and one run of it. */
int http_srv_epoll_fd(const struct http_srv *s);
int64_t http_srv_timeout_ms(const struct http_srv *s);
void http_srv_run(struct http_srv *s);
/* Cuts connections whose client is too slow (headers or body not in, an
 * answer not taken, request_timeout_ms after it began). */
void http_srv_sweep(struct http_srv *s, int64_t now_ms);
unsigned http_srv_retry_after(const struct http_srv *s);
#endif
