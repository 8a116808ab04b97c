/* The JSON and JSONL files sbx reads (problems, samples, results),
 * gunzipped when they are gzip, with the file and line in every error; and
 * the task ids those records carry. Named for the suite files they were
 * written for; the suites and the results read them alike. */
#ifndef SBX_SUITE_FILE_H
#define SBX_SUITE_FILE_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "err.h"

#define SUITE_MAX_FILE_BYTES    (1LL << 31)     /* 2 GiB, after gunzip */
#define SUITE_MAX_LINE_BYTES    (64 << 20)      /* one JSONL line */

/* Reads a whole file, gunzipping it when it ends in .gz (suite_file.c). The buffer is
 * NUL-terminated; *len excludes the NUL. */
int suite_read_file(const char *path, char **buf, size_t *len, struct sbx_err *err);
/* A whole file's text as one JSON value; NULL with err naming the file and
 * the line of the error (or its NUL byte: binary data). */
cJSON *suite_parse_json(const char *path, const char *buf, size_t len, struct sbx_err *err);

/* Calls fn for each non-blank line of a JSONL buffer, parsed into an object
 * (owned by fn). Errors name path and line (suite_jsonl.c). */
typedef int (*jsonl_fn)(void *ctx, cJSON *obj, long line, struct sbx_err *err);
int suite_parse_jsonl(const char *path, const char *buf, size_t len,
                      jsonl_fn fn, void *ctx, struct sbx_err *err);
/* A JSONL line with Python's NaN/Infinity, parsed with null in their
 * place; NULL when it is not valid JSON even so. */
cJSON *json_parse_nonfinite(const char *p, size_t n);

/* String form of a task_id field (string, or integer as MBPP has); malloc'd. */
char *suite_task_id_string(const cJSON *v);
/* strcmp, but digit runs compare as numbers (HumanEval/2 < HumanEval/10). */
int suite_natural_cmp(const char *a, const char *b);

#endif
