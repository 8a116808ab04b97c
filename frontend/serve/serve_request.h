/* One --serve request line, parsed (pure, unit tested, fuzzed), and the
 * error line that answers one that cannot be. */
#ifndef SBX_SERVE_REQUEST_H
#define SBX_SERVE_REQUEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "lang.h"

#define SERVE_MAX_LINE_BYTES    (64LL << 20)    /* one request line, newline excluded */
#define SERVE_MAX_TIMEOUT_MS    (24LL * 3600 * 1000)
#define SERVE_MAX_ARGS          4096            /* argv, env, k entries */

enum serve_type {
        SERVE_RUN = 1,          /* "run": program text in a fresh private workdir */
        SERVE_RUN_ARGV,         /* "run_argv": argv in the caller's workdir */
        SERVE_SUITE,            /* "suite": score a suite, records streamed */
};

struct serve_request {
        enum serve_type type;
        cJSON *id;                      /* owned copy: a string or a number */
        int64_t timeout_ms;             /* 0 = the server's default */
        long long memory_bytes;         /* run, run_argv: 0 = the server's --memory */
        char *code;                     /* run */
        size_t code_len;
        /* run: the program's language (lang/'s row; NULL: Python) and its
         * compile's wall clock (0: the server's, else the language's) */
        const struct lang_row *language;
        int64_t compile_timeout_ms;
        char **argv;                    /* run_argv, NULL-terminated */
        char *workdir;                  /* run_argv */
        char **env;                     /* NAME=VALUE, NULL-terminated, or NULL */
        char *stdin_text;               /* run, run_argv: the program's stdin, or NULL */
        size_t stdin_len;
        /* suite */
        char *suite, *problems, *samples, *out, *k;
        bool canonical;
        int jobs;                       /* 0 = the server's -j */
        /* io suites: sbx-run's --all-tests, --test-timeout, --time-scale,
         * --compare, --checker, --io-format, --language (a sample's
         * language when its line names none) (0 / NULL: not given) */
        bool all_tests;
        double test_timeout_s, time_scale;
        char *compare, *checker, *io_format, *io_language;
};

/* Parses one request line (pure, unit tested). On error returns -1 with
 * a reason in why, and *id_out set to the request's id when one could be
 * read (else NULL; the caller frees it). */
int serve_parse_request(const char *line, size_t len, struct serve_request *rq,
                        cJSON **id_out, char *why, size_t why_len);
void serve_request_free(struct serve_request *rq);

/* Responses: one JSON object a line, each with "id" (null when the
 * request's could not be read) and "type". */
char *serve_error_line(const cJSON *id, const char *why);

#endif
