/* sbx-http: the program behind `sbx-run --http ADDR [OPTIONS]`
 * (docs/http.md). Its own options (--http...) are taken out of argv; the
 * rest are sbx-run --serve's sandbox options, read by sbx-run's own parser
 * (cli.c), so the server and --serve take the same ones and suites run
 * with them. It listens before the sandbox is set up (a port in use fails
 * at once), then serves until a stop signal. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "http.h"
#include "limit.h"
#include "trace.h"

enum hopt { H_SBX_RUN, H_ADDR, H_TOKEN_FILE, H_QUEUE, H_CLIENT_QUEUE, H_MAX_BODY, H_MAX_BUFFERED, H_MAX_TIMEOUT,
            H_MAX_FILES, H_MAX_FETCH, H_IDLE, H_REQUEST_TIMEOUT, H_MAX_CONN, H_BUSY_STATUS,
            H_TOKENLESS_WEAK };

static const struct { const char *name; enum hopt id; } http_options[] = {
        { "--sbx-run", H_SBX_RUN }, { "--http", H_ADDR }, { "--http-token-file", H_TOKEN_FILE },
        { "--http-queue", H_QUEUE }, { "--http-client-queue", H_CLIENT_QUEUE },
        { "--http-max-body", H_MAX_BODY }, { "--http-max-buffered", H_MAX_BUFFERED },
        { "--http-max-timeout", H_MAX_TIMEOUT },
        { "--http-max-files", H_MAX_FILES }, { "--http-max-fetch-bytes", H_MAX_FETCH },
        { "--http-idle-timeout", H_IDLE }, { "--http-request-timeout", H_REQUEST_TIMEOUT },
        { "--http-max-connections", H_MAX_CONN }, { "--http-busy-status", H_BUSY_STATUS },
        { "--http-tokenless-weak-tier", H_TOKENLESS_WEAK },
};

static const char http_usage[] =
"Usage: sbx-run --http ADDR [HTTP OPTIONS] [SANDBOX OPTIONS]\n"
"\n"
"An HTTP server (docs/http.md): POST /run_code (SandboxFusion's), POST /v1/serve\n"
"(the JSON object of a --serve request line), GET /health, GET /metrics.\n"
"The sandbox options are --serve's (sbx-run --help): --tier, --python, --venv,\n"
"--timeout (a --serve request's default), --cpu, --memory, --max-output, -j N\n"
"(runs at once), --cold, ...\n"
"\n"
"  --http ADDR               PORT or :PORT (127.0.0.1), HOST:PORT, [V6]:PORT, or a\n"
"                            unix socket PATH (made 0600); port 0: any free one.\n"
"                            A HOST outside loopback needs a token\n"
"  --http-token-file FILE    the token is FILE's first line (16+ printable bytes;\n"
"                            the file yours, mode 600; or $SBX_HTTP_TOKEN): every\n"
"                            request but GET /health then needs\n"
"                            'Authorization: Bearer TOKEN' or HTTP Basic with the\n"
"                            token as password (http://sbx:TOKEN@HOST:PORT/run_code)\n"
"  --http-queue N            requests waiting for a run slot at most (default 256);\n"
"                            past it 503 with Retry-After\n"
"  --http-client-queue N     of them, one client's (default 3/4 of the queue);\n"
"                            past it 429 with Retry-After\n"
"  --http-busy-status CODE   answer every refusal for being busy (queue, a\n"
"                            client's share, bodies held) with CODE: 429, 503 or\n"
"                            504. verl's sandbox_fusion client retries on 504\n"
"                            alone and scores any other refusal 0: give it 504\n"
"  --http-max-body BYTES     a request body's cap (default 16M): 413 past it\n"
"  --http-max-buffered BYTES the bodies held at once, waiting to run (default\n"
"                            256M, at least one body): 503 past it\n"
"  --http-max-timeout SEC    a request's run_timeout/timeout is cut to this (300)\n"
"  --http-max-files N        files a /run_code request may send (default 64)\n"
"  --http-max-fetch-bytes B  fetch_files' bytes in all (default 16M)\n"
"  --http-idle-timeout SEC   a silent connection is closed (default 15)\n"
"  --http-request-timeout SEC  a request's headers and body must be in, and its\n"
"                            answer taken, within SEC of its start (default 30)\n"
"  --http-max-connections N  open connections at most (default -j + queue + 64)\n"
"  --http-tokenless-weak-tier  serve TCP without a token even when the tier is\n"
"                            weaker than bwrap (unshare, rlimit), where a program\n"
"                            can read your files: refused without it\n"
"\n"
"SIGTERM, SIGINT, SIGHUP: stop listening, answer queued requests 503, finish and\n"
"answer the runs in flight, exit 0; a second signal kills those runs.\n";

struct http_main {
        const char *sbx_run, *addr, *token_file;
        long long queue, client_queue, max_body, max_buffered, max_files, max_fetch, idle, request_timeout, max_conn;
        long long busy_status;
        double max_timeout_s;
        bool help, tokenless_weak;
        struct strvec rest;             /* the sandbox options, for cli_parse */
        struct strvec suite_args;       /* the same, for suites' sbx-run */
};

static int parse_size(const char *opt, const char *s, long long *out, struct sbx_err *err)
{
        char *end;
        double v = strtod(s, &end);
        long long mult = 1;

        if (*end == 'K' || *end == 'k')
                mult = 1LL << 10;
        else if (*end == 'M' || *end == 'm')
                mult = 1LL << 20;
        else if (*end == 'G' || *end == 'g')
                mult = 1LL << 30;
        if (end == s || (mult > 1 ? end[1] : end[0]) || !isfinite(v) || v < 1 || v * (double)mult > 1e12)
                return sbx_fail(err, 0, "%s: '%s' is not a size (1 to 1e12 bytes, K/M/G allowed)", opt, s);
        *out = (long long)(v * (double)mult);
        return 0;
}

static int take_value(struct http_main *m, enum hopt id, const char *opt, const char *v,
                      struct sbx_err *err)
{
        char *end;

        switch (id) {
        case H_SBX_RUN: m->sbx_run = v; return 0;
        case H_ADDR: m->addr = v; return 0;
        case H_TOKEN_FILE: m->token_file = v; return 0;
        case H_QUEUE: return limit_parse_int(opt, v, 1, 100000, &m->queue, err);
        case H_CLIENT_QUEUE: return limit_parse_int(opt, v, 1, 100000, &m->client_queue, err);
        case H_MAX_BODY: return parse_size(opt, v, &m->max_body, err);
        case H_MAX_BUFFERED: return parse_size(opt, v, &m->max_buffered, err);
        case H_MAX_FETCH: return parse_size(opt, v, &m->max_fetch, err);
        case H_MAX_FILES: return limit_parse_int(opt, v, 0, 100000, &m->max_files, err);
        case H_IDLE: return limit_parse_int(opt, v, 1, 3600, &m->idle, err);
        case H_REQUEST_TIMEOUT: return limit_parse_int(opt, v, 1, 3600, &m->request_timeout, err);
        case H_MAX_CONN: return limit_parse_int(opt, v, 16, 65536, &m->max_conn, err);
        case H_BUSY_STATUS:
                if (limit_parse_int(opt, v, 429, 504, &m->busy_status, err) < 0 ||
                    (m->busy_status != 429 && m->busy_status != 503 && m->busy_status != 504))
                        return sbx_fail(err, 0, "%s: '%s': give 429, 503 or 504", opt, v);
                return 0;
        case H_TOKENLESS_WEAK: return 0;        /* a flag: http_option */
        case H_MAX_TIMEOUT:
                m->max_timeout_s = strtod(v, &end);
                if (end == v || *end || !isfinite(m->max_timeout_s) || m->max_timeout_s <= 0 ||
                    m->max_timeout_s > SBX_MAX_TIMEOUT_MS / 1000)
                        return sbx_fail(err, 0, "%s: '%s' is not a number of seconds in (0, %lld]",
                                        opt, v, SBX_MAX_TIMEOUT_MS / 1000);
                return 0;
        }
        return sbx_fail(err, 0, "internal: unhandled option %s", opt);
}

/* An --http... option at argv[*i] (or -1: not one of them). */
static int http_option(int argc, char **argv, int *i, struct http_main *m, struct sbx_err *err)
{
        for (size_t k = 0; k < sizeof(http_options) / sizeof(http_options[0]); k++) {
                const char *name = http_options[k].name;
                size_t len = strlen(name);
                if (strncmp(argv[*i], name, len) != 0 || (argv[*i][len] && argv[*i][len] != '='))
                        continue;
                if (http_options[k].id == H_TOKENLESS_WEAK) {
                        m->tokenless_weak = true;
                        return argv[*i][len] ? sbx_fail(err, 0, "%s takes no value", name) : 0;
                }
                if (argv[*i][len] == '=')
                        return take_value(m, http_options[k].id, name, argv[*i] + len + 1, err);
                if (*i + 1 >= argc)
                        return sbx_fail(err, 0, "%s needs a value (see --help)", name);
                *i += 1;
                return take_value(m, http_options[k].id, name, argv[*i], err);
        }
        return 1;
}

static int parse_args(int argc, char **argv, struct http_main *m, struct sbx_err *err)
{
        int i = 1;

        if (strvec_push(&m->rest, "sbx-run") < 0)
                return sbx_fail_oom(err, "arguments");
        for (; i < argc && strcmp(argv[i], "--") != 0; i++) {
                int rc = http_option(argc, argv, &i, m, err);
                if (rc < 0)
                        return -1;
                if (rc == 0)
                        continue;
                if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0)
                        m->help = true;
                else if (strvec_push(&m->rest, argv[i]) < 0 || strvec_push(&m->suite_args, argv[i]) < 0)
                        return sbx_fail_oom(err, "arguments");
        }
        if (i < argc)
                return sbx_fail(err, 0, "--http takes no program to run (-- %s)",
                                i + 1 < argc ? argv[i + 1] : "");
        return strvec_push(&m->rest, "--serve") < 0 ? sbx_fail_oom(err, "arguments") : 0;
}

/* The token: a file's, else $SBX_HTTP_TOKEN's (then taken out of the
 * environment, which nothing below needs). */
static char *load_token(const struct http_main *m, struct sbx_err *err)
{
        const char *env = getenv("SBX_HTTP_TOKEN");
        char *token = NULL;

        if (m->token_file)
                return http_token_load(m->token_file, err);
        if (!env)
                return NULL;
        if (strlen(env) < 16)
                sbx_fail(err, 0, "$SBX_HTTP_TOKEN: a token of 16 or more bytes");
        else if (!(token = strdup(env)))
                sbx_fail_oom(err, "$SBX_HTTP_TOKEN");
        unsetenv("SBX_HTTP_TOKEN");
        return token;
}

/* sbx-run, for the suites: the one that started us, else beside us. */
static const char *find_sbx_run(const struct http_main *m, char *buf, size_t len)
{
        ssize_t n;

        if (m->sbx_run)
                return m->sbx_run;
        if ((n = readlink("/proc/self/exe", buf, len - 16)) < 0)
                return "sbx-run";
        buf[n] = '\0';
        char *slash = strrchr(buf, '/');
        strcpy(slash ? slash + 1 : buf, "sbx-run");
        return buf;
}

static int check_access(const struct http_opts *o, const struct cli_opts *c, struct sbx_err *err)
{
        if (!o->addr.loopback && !o->token)
                return sbx_fail(err, 0, "--http %s: not a loopback address, so a token is needed "
                                "(--http-token-file FILE): without one anybody who reaches the "
                                "port runs code as you", o->addr.host);
        if (geteuid() == 0 && !c->allow_root)
                return sbx_fail(err, 0, "refusing to run candidate programs as root (uid 0): "
                                "run the server as a normal user, or pass --allow-root");
        return 0;
}

static void fill_opts(struct http_opts *o, const struct http_main *m, const struct cli_opts *c)
{
        o->slots = c->jobs;
        o->queue_max = m->queue ? (size_t)m->queue : HTTP_DEFAULT_QUEUE;
        o->client_max = m->client_queue ? (size_t)m->client_queue : (o->queue_max * 3 + 3) / 4;
        o->max_body_bytes = m->max_body ? (size_t)m->max_body : HTTP_DEFAULT_MAX_BODY_BYTES;
        o->max_buffered_bytes = m->max_buffered ? (size_t)m->max_buffered : HTTP_DEFAULT_MAX_BUFFERED_BYTES;
        if (o->max_buffered_bytes < o->max_body_bytes)
                o->max_buffered_bytes = o->max_body_bytes;
        o->max_fetch_bytes = m->max_fetch ? (size_t)m->max_fetch : HTTP_DEFAULT_MAX_FETCH_BYTES;
        o->idle_timeout_s = m->idle ? (unsigned)m->idle : HTTP_DEFAULT_IDLE_TIMEOUT_S;
        o->request_timeout_ms = m->request_timeout ? m->request_timeout * 1000 :
                                HTTP_DEFAULT_REQUEST_TIMEOUT_MS;
        o->max_connections = m->max_conn ? (unsigned)m->max_conn :
                             (unsigned)(o->slots + o->queue_max + 64);
        o->limits.max_timeout_ms = m->max_timeout_s > 0 ? limit_ms_round_up(m->max_timeout_s) :
                                   HTTP_DEFAULT_MAX_TIMEOUT_MS;
        o->limits.max_files = m->max_files >= 0 ? (size_t)m->max_files : HTTP_DEFAULT_MAX_FILES;
        o->limits.max_fetch = o->limits.max_files;
        o->limits.max_memory_bytes = c->sb.memory_bytes ? c->sb.memory_bytes : DEFAULT_MEMORY_BYTES;
        o->busy_status = (int)m->busy_status;
}

/* TCP without a token lets every local user run code as you; in a tier
 * weaker than bwrap (unshare, rlimit) that code can also read your files
 * (no private $HOME or /tmp): refused there unless asked for. A unix
 * socket (0600) reaches you alone. */
static int check_tier(const struct http_opts *o, const struct http_main *m, struct sandbox *sb,
                      struct sbx_err *err)
{
        enum tier t = sandbox_tier(sb);

        if (o->addr.is_unix || o->token || tier_at_least(t, TIER_BWRAP) || m->tokenless_weak)
                return 0;
        return sbx_fail(err, 0, "--http %s without a token in tier %s: every user of this machine "
                        "could run code as you, and in this tier that code reads your files. Use a "
                        "unix socket (--http PATH), a token (--http-token-file), a stronger tier, "
                        "or --http-tokenless-weak-tier to accept it", m->addr, tier_name(t));
}

/* The helper's ceilings bind too: a run above them would be refused.
 * Returns its max_cpu (0: none). */
static int64_t apply_ceilings(struct http_opts *o, struct sandbox *sb)
{
        double timeout_s = 0, cpu_s = 0;

        if (sandbox_helper_ceilings(sb, &timeout_s, &cpu_s) != 1)
                return 0;
        if (timeout_s > 0 && timeout_s * 1000 < (double)o->limits.max_timeout_ms)
                o->limits.max_timeout_ms = (int64_t)(timeout_s * 1000);
        return cpu_s > 0 ? (int64_t)cpu_s : 0;
}

static int serve(struct http_main *m, struct cli_opts *c, struct http_opts *o, struct sbx_err *err)
{
        struct sandbox *sb = NULL;
        struct http_exec_ops ops;
        char self[PATH_MAX];
        int rc;

        if ((o->listen_fd = http_listen(&o->addr, 128, err)) < 0)
                return -1;
        c->sb.probe_by_first_run = false;
        if (sandbox_open(&sb, &c->sb, err) < 0)
                return -1;
        if (check_tier(o, m, sb, err) < 0) {
                sandbox_close(sb);
                return -1;
        }
        int64_t max_cpu_s = apply_ceilings(o, sb);
        sandbox_warm_expect(sb, (size_t)o->slots);
        o->ready_tier = tier_name(sandbox_tier(sb));
        o->ready_python = sandbox_python(sb);
        struct http_exec_cfg cfg = {
                .sb = sb, .default_timeout_ms = c->timeout_ms ? c->timeout_ms : DEFAULT_TIMEOUT_MS,
                .max_timeout_ms = o->limits.max_timeout_ms, .cpu_limit_s = c->cpu_limit_s,
                .max_cpu_s = max_cpu_s,
                .max_fetch_bytes = o->max_fetch_bytes,
                .sbx_run = find_sbx_run(m, self, sizeof(self)), .suite_args = m->suite_args.items ? m->suite_args.items : (char *[]){ NULL },
        };
        if (http_exec_sbx_open(&ops, &cfg) < 0) {
                sandbox_close(sb);
                return sbx_fail_oom(err, "--http");
        }
        rc = http_serve(o, &ops);
        o->listen_fd = -1;              /* libmicrohttpd's, closed */
        http_exec_sbx_close(&ops);
        sandbox_close(sb);
        return rc;
}

static int setup(struct http_main *m, struct cli_opts *c, struct http_opts *o, struct sbx_err *err)
{
        if (!m->addr)
                return sbx_fail(err, 0, "--http ADDR is needed (see --help)");
        if (http_addr_parse(m->addr, &o->addr, err) < 0)
                return -1;
        o->token = load_token(m, err);
        if (!o->token && err->msg[0])
                return -1;
        if (check_access(o, c, err) < 0)
                return -1;
        c->jobs = limit_jobs(c->jobs);
        fill_opts(o, m, c);
        /* each connection holds an fd, as a run's pipes do (4 a run) */
        if (limit_reserve_fds(c->jobs + (int)(o->max_connections + 3) / 4, err) < 0)
                return sbx_err_wrap(err, "--http-max-connections %u: ", o->max_connections);
        return 0;
}

int main(int argc, char **argv)
{
        struct http_main m = { .max_files = -1 };
        struct cli_opts c;
        struct http_opts o = { .listen_fd = -1 };
        struct sbx_err err = { 0 };
        int rc = SBX_EXIT_OK;

        sbx_trace_init();
        if (parse_args(argc, argv, &m, &err) < 0 ||
            cli_parse((int)m.rest.len, m.rest.items, &c, &err) < 0) {
                fprintf(stderr, "sbx-run: %s\n", err.msg);
                strvec_free(&m.rest);
                strvec_free(&m.suite_args);
                return err.exit_code ? err.exit_code : SBX_EXIT_USAGE;
        }
        if (m.help) {
                fputs(http_usage, stdout);
        } else if (setup(&m, &c, &o, &err) < 0 || (rc = serve(&m, &c, &o, &err)) < 0) {
                fprintf(stderr, "sbx-run: %s\n", err.msg);
                rc = err.exit_code ? err.exit_code : SBX_EXIT_USAGE;
        }
        if (o.listen_fd >= 0)
                close(o.listen_fd);
        if (o.token) {
                explicit_bzero(o.token, strlen(o.token));
                free(o.token);
        }
        cli_opts_free(&c);
        strvec_free(&m.rest);
        strvec_free(&m.suite_args);
        return rc;
}
