/* Results JSONL: one line per sample, written and flushed as its run ends,
 * read back for --resume and merge, rewritten in input order at the end. */
#ifndef SBX_RESULTS_H
#define SBX_RESULTS_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "err.h"
#include "sandbox.h"
#include "verdict.h"

/* Recorded on every line, so that resume and merge can refuse lines that
 * belong to another run. */
struct result_meta {
        const char *suite;
        const char *samples_hash;       /* FNV-1a of the samples file, or "canonical" */
        size_t total;                   /* samples in the input */
        int shard_index, shard_count;   /* 0/1 when not sharded */
};

/* A failed result carries at most this much of the end of stderr (whole
 * lines when they fit): enough for a traceback, bounded per line. */
#define RESULT_STDERR_TAIL_BYTES 2048

/* The line for a sample (its own fields, then ours), as an object, or
 * NULL when out of memory. Always valid UTF-8: invalid bytes become U+FFFD,
 * counted in "sbx_invalid_utf8" (left out when 0). */
cJSON *results_line_json(const cJSON *sample_fields, size_t index, long line,
                         const struct verdict *v, const struct result_meta *m);
/* The same printed: malloc'd, no newline. */
char *results_line(const cJSON *sample_fields, size_t index, long line,
                   const struct verdict *v, const struct result_meta *m);

struct results_file {
        int fd;
        char *path;
        size_t n;                       /* samples in the input */
        char **lines;                   /* by sample index; NULL = not done */
        cJSON **parsed;                 /* the same, parsed (for the summary) */
        size_t done;
};

/* Opens path for appending. With resume, lines already there that match a
 * sample (sbx_index, sbx_line and task_id, same samples file and shard)
 * are kept and their samples count as done; a torn last line is dropped. */
int results_open(struct results_file *rf, const char *path, size_t n_samples,
                 bool resume, const struct result_meta *m,
                 const cJSON *const *sample_fields, const long *sample_lines,
                 struct sbx_err *err);
/* Writes the line + "\n" at once and keeps it, printed and as it is
 * (takes ownership of line, also on error). */
int results_append(struct results_file *rf, size_t index, cJSON *line, struct sbx_err *err);
/* Rewrites the file with the done lines in input order (temp file + rename). */
int results_rewrite_ordered(struct results_file *rf, struct sbx_err *err);
void results_close(struct results_file *rf);

/* Reads a results file into parsed lines (for merge); errors name the line. */
int results_read(const char *path, cJSON ***lines, size_t *n, struct sbx_err *err);

/* A single run's result as --json prints it (run_json.c): status, output
 * (UTF-8, the tail past the cap), summary, tier. NULL when out of memory. */
cJSON *run_result_to_json(const struct run_result *res, const char *summary);

#endif
