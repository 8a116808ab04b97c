/* sbx-run merge: combine the results of --shard I/N runs into one file in
 * input order and recompute the summary. Inconsistent inputs are refused:
 * different samples files or suites, a shard given twice, a missing or
 * incomplete shard. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "passk.h"
#include "results.h"
#include "suite_ops.h"
#include "suite_summary.h"
#include "util.h"

struct shard_file {
        const char *path;
        cJSON **lines;
        size_t n;
        int index, count;
};

struct merge {
        struct shard_file *files;
        size_t nfiles;
        const char *suite, *samples, *first;    /* from the first file */
        size_t total;
        int count;
        cJSON **ordered;                        /* by sbx_index, borrowed */
};

/* Every line of one file must carry the same run identity. */
static int check_file(struct merge *M, struct shard_file *f, struct sbx_err *err)
{
        for (size_t i = 0; i < f->n; i++) {
                const cJSON *l = f->lines[i];
                const char *suite = json_get_str(l, "sbx_suite", NULL);
                const char *samples = json_get_str(l, "sbx_samples", NULL);
                const char *shard = json_get_str(l, "sbx_shard", NULL);
                double total = json_get_num(l, "sbx_total", -1);
                int si, sn;

                if (!suite || !samples || !shard || total < 0 ||
                    sscanf(shard, "%d/%d", &si, &sn) != 2 || sn < 1 || si < 0 || si >= sn)
                        return sbx_fail(err, 0, "%s: result %zu has no sbx_suite/sbx_samples/"
                                        "sbx_total/sbx_shard: not an sbx-run results file",
                                        f->path, i + 1);
                if (!M->suite) {
                        M->suite = suite;
                        M->samples = samples;
                        M->total = (size_t)total;
                        M->count = sn;
                        M->first = f->path;
                }
                if (strcmp(suite, M->suite) || strcmp(samples, M->samples) ||
                    (size_t)total != M->total)
                        return sbx_fail(err, 0, "%s: results of another suite or samples file "
                                        "than %s (%s, samples %s)", f->path, M->first,
                                        M->suite, M->samples);
                if (sn != M->count)
                        return sbx_fail(err, 0, "%s: shard %s, but %s has N=%d",
                                        f->path, shard, M->first, M->count);
                if (i == 0)
                        f->index = si;
                else if (si != f->index)
                        return sbx_fail(err, 0, "%s: lines from shards %d and %d in one file",
                                        f->path, f->index, si);
        }
        return 0;
}

static int check_shards(struct merge *M, struct sbx_err *err)
{
        for (int s = 0; s < M->count; s++) {
                const struct shard_file *have = NULL;
                size_t want = M->total > (size_t)s
                        ? (M->total - (size_t)s + (size_t)M->count - 1) / (size_t)M->count : 0;
                for (size_t i = 0; i < M->nfiles; i++) {
                        if (M->files[i].index != s)
                                continue;
                        if (have)
                                return sbx_fail(err, 0, "overlapping shards: %s and %s are both "
                                                "shard %d/%d", have->path, M->files[i].path,
                                                s, M->count);
                        have = &M->files[i];
                }
                if (!have && want)
                        return sbx_fail(err, 0, "missing shard %d/%d (have %zu files)",
                                        s, M->count, M->nfiles);
                if (have && have->n != want)
                        return sbx_fail(err, 0, "%s: shard %d/%d has %zu of %zu results "
                                        "(interrupted? finish it with --resume)",
                                        have->path, s, M->count, have->n, want);
        }
        return 0;
}

static int order_lines(struct merge *M, struct sbx_err *err)
{
        if (!(M->ordered = calloc(M->total + 1, sizeof(cJSON *))))
                return sbx_fail_oom(err, "merge");
        for (size_t f = 0; f < M->nfiles; f++) {
                for (size_t i = 0; i < M->files[f].n; i++) {
                        cJSON *l = M->files[f].lines[i];
                        double idx = json_get_num(l, "sbx_index", -1);
                        if (idx < 0 || idx >= (double)M->total ||
                            (size_t)idx % (size_t)M->count != (size_t)M->files[f].index)
                                return sbx_fail(err, 0, "%s: result %zu: sbx_index does not "
                                                "belong to shard %d/%d", M->files[f].path,
                                                i + 1, M->files[f].index, M->count);
                        if (M->ordered[(size_t)idx])
                                return sbx_fail(err, 0, "%s: sample %zu appears twice",
                                                M->files[f].path, (size_t)idx);
                        M->ordered[(size_t)idx] = l;
                }
        }
        return 0;
}

static int write_merged(const struct merge *M, const char *out, struct sbx_err *err)
{
        char *tmp = NULL;
        FILE *fp;
        int ok = 1;

        if (asprintf(&tmp, "%s.tmp.%d", out, (int)getpid()) < 0)
                return sbx_fail_oom(err, "%s", out);
        if (!(fp = fopen(tmp, "w"))) {
                free(tmp);
                return sbx_fail(err, errno, "%s", out);
        }
        for (size_t i = 0; i < M->total && ok; i++) {
                char *text = cJSON_PrintUnformatted(M->ordered[i]);
                ok = text && fprintf(fp, "%s\n", text) > 0;
                free(text);
        }
        if (fclose(fp) != 0)
                ok = 0;
        if (!ok || rename(tmp, out) < 0) {
                int e = errno;
                unlink(tmp);
                free(tmp);
                return sbx_fail(err, e, "writing %s", out);
        }
        free(tmp);
        return 0;
}

static int print_summary(const struct merge *M, const struct cli_opts *o, struct sbx_err *err)
{
        const struct suite_row *row = suite_row_find(M->suite);
        const struct suite_ops *ops = row ? row->ops : &suite_custom_ops;
        struct summary_opts so = { .suite = M->suite, .wall_s = -1, .total = M->total,
                                   .extra = ops->summary };
        cJSON *sum;

        so.nk = passk_parse_list(o->k_list ? o->k_list : "1,10,100", so.ks, SUMMARY_MAX_K);
        if (so.nk < 0)
                return sbx_fail(err, 0, "--k %s: expected a list like 1,10,100", o->k_list);
        if (!(sum = suite_summary(M->ordered, M->total, &so, err)))
                return -1;
        cJSON_AddNumberToObject(sum, "shards", M->count);
        char *text = o->json ? cJSON_Print(sum) : NULL;
        if (text)
                printf("%s\n", text);
        else
                suite_summary_print(stdout, sum, ops->print_summary);
        free(text);
        int rc = o->summary ? suite_summary_save(sum, o->summary, err) : 0;
        cJSON_Delete(sum);
        return rc;
}

/* Options may also follow the files (sbx-run merge FILES... --out F). */
static int take_option(char *const *args, size_t *i, struct cli_opts *o, struct sbx_err *err)
{
        const char *a = args[*i];
        const char **dest = !strcmp(a, "--out") ? &o->merge_out :
                            !strcmp(a, "--summary") ? &o->summary :
                            !strcmp(a, "--k") ? &o->k_list : NULL;

        if (!strcmp(a, "--json")) {
                o->json = true;
                return 1;
        }
        if (!strncmp(a, "--out=", 6)) {
                o->merge_out = a + 6;
                return 1;
        }
        if (!dest)
                return a[0] == '-' && a[1] ? sbx_fail(err, 0, "merge: unknown option %s", a) : 0;
        if (!args[*i + 1])
                return sbx_fail(err, 0, "merge: %s needs a value", a);
        *dest = args[++*i];
        return 1;
}

static int merge_main(struct merge *M, struct cli_opts *o, struct sbx_err *err)
{
        size_t n = 0;

        while (o->merge_files && o->merge_files[n])
                n++;
        if (!(M->files = calloc(n + 1, sizeof(*M->files))))
                return sbx_fail_oom(err, "merge");
        for (size_t i = 0; i < n; i++) {
                int rc = take_option(o->merge_files, &i, o, err);
                if (rc < 0)
                        return -1;
                if (rc == 0)
                        M->files[M->nfiles++].path = o->merge_files[i];
        }
        if (M->nfiles == 0)
                return sbx_fail(err, 0, "merge: no results files given");
        for (size_t i = 0; i < M->nfiles; i++) {
                struct shard_file *f = &M->files[i];
                if (results_read(f->path, &f->lines, &f->n, err) < 0)
                        return -1;
                if (f->n == 0)
                        return sbx_fail(err, 0, "%s: no results", f->path);
                if (check_file(M, f, err) < 0)
                        return -1;
        }
        if (check_shards(M, err) < 0 || order_lines(M, err) < 0)
                return -1;
        if (o->merge_out && write_merged(M, o->merge_out, err) < 0)
                return -1;
        return print_summary(M, o, err);
}

int merge_cli_main(struct cli_opts *opts)
{
        struct merge M = { 0 };
        struct sbx_err err = { .exit_code = SBX_EXIT_USAGE };
        int rc = merge_main(&M, opts, &err);

        if (rc < 0)
                fprintf(stderr, "sbx-run merge: %s\n", err.msg);
        for (size_t i = 0; i < M.nfiles; i++) {
                for (size_t j = 0; j < M.files[i].n; j++)
                        cJSON_Delete(M.files[i].lines[j]);
                free(M.files[i].lines);
        }
        free(M.files);
        free(M.ordered);
        return rc < 0 ? err.exit_code : SBX_EXIT_OK;
}
