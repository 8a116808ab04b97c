/* Input/output problems (issue 33): a problem is a list of tests (an input
 * the program reads on stdin, the output it must print), per-test limits,
 * how its output is compared, and, for call-based problems, the function
 * to call. This header is the layer's contract: the readers turn one row
 * of a benchmark's file, as that benchmark writes it, into a struct
 * io_problem; the comparators (compare.h) and the verdicts (io_verdict.h)
 * judge a run against it.
 *
 * Layer: suites/io/formats. Pure code: no process, no sandbox. It may
 * call suites/io/compare (a comparison's name), util (err, strbuf, the
 * task ids' order), cJSON and zlib; nothing here calls up. */
#ifndef SBX_IO_H
#define SBX_IO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "compare.h"       /* struct io_compare: how a problem's outputs compare */
#include "err.h"

/* Decoded test data (LiveCodeBench's compressed private tests) larger than
 * this is refused: a few hundred bytes of zlib can claim gigabytes. */
#define IO_MAX_DECODED_BYTES    (1LL << 30)
/* A problem with more tests than this in one row is refused. */
#define IO_MAX_TESTS            (1 << 20)

/* A test's input or expected output: bytes in memory, or a file that
 * holds them (sbx's own format; tests too large to keep in memory). */
struct io_data {
        char *text;             /* NUL-terminated, owned; NULL when in a file */
        size_t len;
        char *path;             /* owned, or NULL */
};

struct io_test {
        struct io_data input, output;
        const char *group;      /* static: "public", "private", "generated", "" */
};

/* Call-based problems: the sample defines a function; each test's input is
 * its arguments and its output the return value, both JSON. */
enum io_call_style {
        IO_CALL_NONE = 0,       /* stdin/stdout */
        IO_CALL_APPS,           /* APPS/TACO fn_name: input a JSON list of arguments */
        IO_CALL_LCB,            /* LiveCodeBench functional: one JSON argument a line */
};

/* What a harness puts before the program (LiveCodeBench's import_string,
 * APPS's import header): the names its programs may use unimported. The
 * runner runs it first in the program's namespace (io_runner.py). */
enum io_prelude {
        IO_PRELUDE_NONE = 0,
        IO_PRELUDE_LCB,
        IO_PRELUDE_APPS,
};

enum io_format {
        IO_FORMAT_AUTO = 0,
        IO_FORMAT_APPS,         /* APPS and TACO: input_output */
        IO_FORMAT_CODECONTESTS, /* public_tests / private_tests / generated_tests */
        IO_FORMAT_LCB,          /* public_test_cases / private_test_cases */
        IO_FORMAT_SANDBOXFUSION, /* SandboxFusion's rows: id, content, test */
        IO_FORMAT_SBX,          /* sbx's own: tests [{input, output}] */
        IO_FORMATS,
};

struct io_problem {
        char *task_id;
        enum io_format format;
        struct io_test *tests;
        size_t n_tests, cap_tests;
        int64_t time_limit_ms;          /* per test; 0: the suite's default */
        int64_t memory_limit_bytes;     /* per test; 0: the suite's default */
        struct io_compare compare;      /* the format's own harness unless the row says */
        char *checker;                  /* checker program path (IO_CMP_CHECKER), or NULL */
        enum io_call_style call;
        enum io_prelude prelude;
        char *fn_name;                  /* call-based: the function's name */
        char *starter_code;             /* or NULL */
        char *canonical;                /* a reference solution the row carries, or NULL */
};

/* Where a row came from, for errors ("path:line: ...") and paths. */
struct io_origin {
        const char *path;               /* the problem file */
        long line;                      /* 1-based line (JSONL) or array position */
        size_t index;                   /* 0-based row index: task_id when the row has none */
};

/* The format's name ("apps", "codecontests", "livecodebench",
 * "sandboxfusion", "sbx") and back (-1 when unknown). */
const char *io_format_name(enum io_format f);
int io_format_parse(const char *name);

/* Reads one row (a parsed JSONL line or array element) into p, which must
 * be zeroed. fmt AUTO picks the format by the fields present. Strings are
 * taken out of row where they can be (no copy of large tests): row is
 * left in a state only fit for cJSON_Delete. On error p is freed and
 * zeroed, and err names the file and line. */
int io_read_row(cJSON *row, enum io_format fmt, const struct io_origin *at,
                struct io_problem *p, struct sbx_err *err);
void io_problem_free(struct io_problem *p);

/* ---- shared by the readers (io_problem.c) ---- */

/* Appends a test taking ownership of input and output (both NUL-terminated,
 * malloc'd), or freeing them on error. */
int io_add_test(struct io_problem *p, char *input, size_t in_len,
                char *output, size_t out_len, const char *group,
                const struct io_origin *at, struct sbx_err *err);
/* The string in obj[key], moved out of obj (obj keeps an empty string),
 * as a NUL-terminated malloc'd buffer: 1; 0 when absent or null; -1 (err
 * names file, line and key) when it is not a string. */
int io_take_str(cJSON *obj, const char *key, char **out, size_t *len,
                const struct io_origin *at, struct sbx_err *err);
/* The same for an item that is itself a string (array elements). */
int io_take_item_str(cJSON *item, char **out, size_t *len, const char *what,
                     const struct io_origin *at, struct sbx_err *err);
/* The task id: obj[key] as a string (numbers in decimal), else the row's
 * index; malloc'd into p->task_id. */
int io_set_task_id(struct io_problem *p, const cJSON *obj, const char *key,
                   const struct io_origin *at, struct sbx_err *err);
/* A fresh malloc'd copy of a JSON value's compact text (call-based tests). */
char *io_print_json(const cJSON *v, size_t *len);

/* ---- the readers, one per format (io_read_*.c) ---- */
int io_read_apps(cJSON *row, const struct io_origin *at, struct io_problem *p,
                 struct sbx_err *err);
/* APPS's input_output object itself: {inputs, outputs, fn_name?}
 * (SandboxFusion's LiveCodeBench rows carry the same). With fn_name the
 * problem is call-based, in p->call's style (IO_CALL_APPS unless the
 * caller set IO_CALL_LCB: then each input is one JSON argument a line). */
int io_read_apps_io(cJSON *io, const struct io_origin *at, struct io_problem *p,
                    struct sbx_err *err);
int io_read_codecontests(cJSON *row, const struct io_origin *at,
                         struct io_problem *p, struct sbx_err *err);
int io_read_lcb(cJSON *row, const struct io_origin *at, struct io_problem *p,
                struct sbx_err *err);
int io_read_sandboxfusion(cJSON *row, const struct io_origin *at,
                          struct io_problem *p, struct sbx_err *err);
int io_read_sbx(cJSON *row, const struct io_origin *at, struct io_problem *p,
                struct sbx_err *err);

/* ---- LiveCodeBench's packed tests (io_decode.c, io_pickle.c) ---- */

/* base64 (standard alphabet, padded; whitespace skipped) then zlib, in
 * bounded memory: *out is malloc'd and NUL-terminated. Errors say what
 * was wrong without the file (the caller adds it). */
int io_unpack_b64_zlib(const char *text, size_t len, char **out, size_t *out_len,
                       struct sbx_err *err);
/* The same with another cap than IO_MAX_DECODED_BYTES (tests). */
int io_unpack_b64_zlib_max(const char *text, size_t len, size_t max, char **out,
                           size_t *out_len, struct sbx_err *err);
/* The str a pickle holds, read by a strict reader that executes nothing:
 * it accepts a pickle of one str (PROTO, FRAME, SHORT_BINUNICODE,
 * BINUNICODE, BINUNICODE8, MEMOIZE, BINPUT, LONG_BINPUT, STOP), or of a
 * dict holding one str under the key "input_output" (SandboxFusion's
 * LiveCodeBench rows: EMPTY_DICT, SETITEM), and refuses every other
 * opcode, naming it and its offset. *out points into pk. */
int io_pickle_str(const unsigned char *pk, size_t len, const char **out,
                  size_t *out_len, struct sbx_err *err);

#endif
