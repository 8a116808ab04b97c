/* sbx-run --serve: one long-lived frontend that reads JSON-lines requests
 * on stdin and writes JSON-lines responses on stdout, tagged with each
 * request's "id", running up to -j of them at once in the sandbox it set up
 * once. The protocol is in man/sbx-run.1 (SERVE PROTOCOL) and
 * docs/python.md. */
#ifndef SBX_SERVE_H
#define SBX_SERVE_H

#include <stdint.h>

#include "sandbox.h"
#include "serve_request.h"

/* What the server takes from sbx-run's command line (cli/main.c). */
struct serve_opts {
        struct sandbox_opts sb;         /* the session every request runs in */
        int64_t timeout_ms;             /* a request's default; 0: DEFAULT_TIMEOUT_MS */
        int64_t cpu_limit_s;            /* --cpu; 0: the timeout's */
        int64_t compile_timeout_ms;     /* --compile-timeout; 0: the language's */
        int jobs;                       /* -j; 0: the number of CPUs */
};

/* Serves requests on stdin until EOF or a stop signal; argv is sbx-run's
 * own, which a suite request's child sbx-run reuses. Returns sbx-run's
 * exit status. */
int serve_main(struct serve_opts *opts, int argc, char **argv);

#endif
