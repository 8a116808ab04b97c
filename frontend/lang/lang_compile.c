/* A job's compile: its cache key, the lookup, the sandboxed compile run
 * (lang_run.h says what it sees) and what its end means: an artifact moved
 * into the run's workdir (and stored in the cache), or a compile error
 * with the tail of the compiler's message. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lang_impl.h"
#include "util.h"

#define MESSAGE_TAIL_BYTES 2000
#define ARTIFACT_NAME "prog"            /* {out}: where the row's artifact is one file */

/* Everything the artifact depends on, none of the session's paths: the
 * row's templates, the compiler and its version, the flags, the support's
 * key, the limits a compiler's answer may depend on, the source. */
void lang_compile_key(struct lang_job *job, const struct lang_program *p)
{
        const struct lang_row *row = job->row;
        const struct lang_tool *t = &job->ls->tool[lang_row_index(row)];
        struct lang_cache_key k;
        char limits[96];

        lang_cache_key_init(&k);
        snprintf(limits, sizeof(limits), "%d %" PRId64 " %" PRId64 " %" PRId64, LANG_ROWS_VERSION,
                 row->compile_limits.memory_bytes, row->compile_limits.fsize_bytes,
                 row->compile_limits.output_bytes);
        lang_cache_key_add_str(&k, "row", row->name);
        lang_cache_key_add_str(&k, "limits", limits);
        lang_cache_key_add_list(&k, "argv", row->compile_argv);
        lang_cache_key_add_list(&k, "env", row->compile_env);
        lang_cache_key_add_list(&k, "default flags", row->default_flags);
        lang_cache_key_add_str(&k, "tool", t->real);
        lang_cache_key_add_str(&k, "version", t->version);
        lang_cache_key_add_list(&k, "flags", p->flags);
        lang_cache_key_add_list(&k, "libs", p->libs);
        lang_cache_key_add_str(&k, "support", job->support ? job->support->key : NULL);
        lang_cache_key_add_str(&k, "source name", job->src_name);
        lang_cache_key_add(&k, "source", p->source, p->source_len);
        lang_cache_key_hex(&k, job->key);
}

static void set_message(struct lang_build_info *b, const char *text)
{
        free(b->message);
        b->message = text ? strdup(text) : NULL;
}

int lang_compile_lookup(struct lang_job *job)
{
        struct lang_cache_meta meta;

        if (!job->ls->cache_on || lang_cache_fetch(&job->ls->cache, job->key, job->run_dir, &meta) != 1)
                return 0;
        if (meta.status == LANG_CACHE_COMPILED) {
                job->build.status = LANG_BUILD_CACHED;
        } else {
                job->build.status = LANG_BUILD_COMPILE_ERROR;
                job->build.from_cache = true;
                snprintf(job->build.detail, sizeof(job->build.detail), "compile error (cached)");
                set_message(&job->build, meta.message);
        }
        lang_cache_meta_free(&meta);
        return 1;
}

/* The compile's argv: the support's prelude first where it has one (a
 * fixed script: "$@" is the compiler's argv, never program text). */
static int compile_argv(struct lang_job *job, const struct lang_program *p,
                        struct sbx_err *err)
{
        const struct lang_support *s = job->support;
        const struct lang_row *row = job->row;
        bool prelude = s && s->row->compile_prelude;
        char out[4096];
        struct lang_argv_vars vars = {
                .tool = job->ls->tool[lang_row_index(row)].path, .src = job->src_name,
                .out = out, .flags = p->flags, .libs = p->libs,
                .extra = s ? strvec_list(&s->extra) : NULL,
                .memory_bytes = row->compile_limits.memory_bytes,
                .timeout_ms = row->compile_limits.time_ms,
        };

        /* the prelude moves the compiler out of the directory: the artifact
         * goes back by its full path */
        snprintf(out, sizeof(out), "%s%s" ARTIFACT_NAME, prelude ? job->build_dir : "",
                 prelude ? "/" : "");
        if (prelude && strvec_extend(&job->compile_argv, (const char *[]){ "/bin/sh", "-c",
                                     s->row->compile_prelude, "sbx-prelude", NULL }) < 0)
                return sbx_fail_oom(err, "argv");
        return lang_argv_expand(row, true, &vars, &job->compile_argv, err);
}

int lang_compile_start(struct lang_job *job, const struct lang_program *p,
                       struct sbx_run **run, struct sbx_err *err)
{
        const struct lang_row *row = job->row;
        auto_free char *tmp = NULL;

        if (!(job->build_dir = sandbox_mkdtemp(job->ls->sb, err)) ||
            lang_write_source(job->build_dir, job->src_name, p->source, p->source_len, err) < 0)
                return -1;
        if (!(tmp = lang_compile_tmp(job->ls, job->build_dir)))
                return sbx_fail_code(err, SBX_EXIT_SANDBOX, errno, "%s/.tmp", job->build_dir);
        if (lang_compile_env(row, job->support, tmp, job->build_dir, job->src_name,
                             &job->compile_env, err) < 0 ||
            compile_argv(job, p, err) < 0)
                return -1;
        if (job->support && job->support->row->bind_compile &&
            strvec_push(&job->binds, job->support->dir) < 0)
                return sbx_fail_oom(err, "binds");
        int64_t t = p->compile_timeout_ms ? p->compile_timeout_ms : row->compile_limits.time_ms, cpu;
        lang_clamp_time(job->ls, &t, &cpu);
        job->compile_spec = (struct run_spec){
                .argv = job->compile_argv.items, .workdir = job->build_dir,
                .env_extra = strvec_list(&job->compile_env),
                .timeout_ms = t, .cpu_limit_s = cpu,
                .memory_bytes = row->compile_limits.memory_bytes,
                .fsize_bytes = row->compile_limits.fsize_bytes,
                .max_output_bytes = (size_t)row->compile_limits.output_bytes,
                .ro_binds = strvec_list(&job->binds),
        };
        job->phase = JOB_COMPILING;
        return sbx_run_start(job->ls->sb, &job->compile_spec, run, err);
}

/* A compiler that ran out of its address space, file size or temp space
 * says so and exits 1 like any compile error; these words make it a limit's
 * answer (a runaway), not the compiler's (g++, javac's JVM, go, rustc). */
static const struct { const char *says, *detail; } limit_words[] = {
        { "virtual memory exhausted", "memory-limit" },
        { "out of memory", "memory-limit" },
        { "Cannot allocate memory", "memory-limit" },
        { "OutOfMemoryError", "memory-limit" },
        { "memory allocation of", "memory-limit" },
        { "File size limit exceeded", "fsize-limit" },
        { "No space left on device", "tmpfs-full" },
};

/* Why a compile that did not exit 0 failed, and whether the answer is the
 * compiler's own (cached) or its limits' (a runaway: not cached). */
static bool compile_failure(const struct run_result *res, const char *message,
                            char *detail, size_t len)
{
        for (size_t i = 0; message && i < sizeof(limit_words) / sizeof(limit_words[0]); i++)
                if (strstr(message, limit_words[i].says)) {
                        snprintf(detail, len, "%s", limit_words[i].detail);
                        return false;
                }
        if (res->status == RUN_TIMEOUT) {
                snprintf(detail, len, "%s", res->detail[0] ? res->detail : "timeout");
                return false;
        }
        if (res->signal || !strcmp(res->detail, "memory-limit")) {
                if (res->detail[0])
                        snprintf(detail, len, "%s", res->detail);
                else
                        snprintf(detail, len, "killed by signal %d", res->signal);
                return false;
        }
        snprintf(detail, len, "exit status %d", res->returncode);
        return true;
}

/* The artifact files into the cache (best effort) and the run's workdir. */
static int collect(struct lang_job *job, struct sbx_err *err)
{
        struct lang_cache_meta meta = { .status = LANG_CACHE_COMPILED };
        struct sbx_err ignored = { 0 };
        const char *pattern = job->row->artifact;
        DIR *d;
        struct dirent *e;
        int n = 0;

        if (job->ls->cache_on)
                (void)lang_cache_store(&job->ls->cache, job->key, job->build_dir, pattern,
                                       &meta, &ignored);
        if (!(d = opendir(job->build_dir)))
                return sbx_fail_code(err, SBX_EXIT_SANDBOX, errno, "%s", job->build_dir);
        while ((e = readdir(d))) {
                struct stat st;
                char src[4096], dst[4096];
                /* what the compiler left: a regular file of ours, not a link
                 * to anything, linked nowhere else */
                if (!lang_artifact_match(pattern, e->d_name) ||
                    fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
                    !S_ISREG(st.st_mode) || st.st_uid != getuid() || st.st_nlink != 1)
                        continue;
                snprintf(src, sizeof(src), "%s/%s", job->build_dir, e->d_name);
                snprintf(dst, sizeof(dst), "%s/%s", job->run_dir, e->d_name);
                if (rename(src, dst) < 0) {
                        closedir(d);
                        return sbx_fail_code(err, SBX_EXIT_SANDBOX, errno, "rename %s", src);
                }
                n++;
        }
        closedir(d);
        return n;
}

int lang_compile_finish(struct lang_job *job, const struct run_result *res,
                        struct sbx_err *err)
{
        struct lang_build_info *b = &job->build;
        auto_free char *tail = lang_output_tail(res, MESSAGE_TAIL_BYTES);
        int rc = 0;

        b->duration_s = res->duration_s;
        b->cpu_s = res->cpu_s;
        b->max_rss_kb = res->max_rss_kb;
        if (res->status == RUN_ERROR) {
                b->status = LANG_BUILD_SANDBOX_ERROR;
        } else if (res->status != RUN_OK) {
                b->status = LANG_BUILD_COMPILE_ERROR;
                set_message(b, tail);
                if (compile_failure(res, tail, b->detail, sizeof(b->detail)) && job->ls->cache_on) {
                        struct lang_cache_meta meta = { LANG_CACHE_COMPILE_ERROR, tail ? tail : (char *)"" };
                        struct sbx_err ignored = { 0 };
                        (void)lang_cache_store(&job->ls->cache, job->key, job->build_dir, NULL,
                                               &meta, &ignored);
                }
        } else if ((rc = collect(job, err)) < 0) {
                rc = -1;
        } else if (rc == 0) {
                b->status = LANG_BUILD_COMPILE_ERROR;
                snprintf(b->detail, sizeof(b->detail), "the compiler left no %s", job->row->artifact);
                set_message(b, tail);
        } else {
                b->status = LANG_BUILD_COMPILED;
                rc = 1;
        }
        sbx_rm_tree(job->build_dir);
        free(job->build_dir);
        job->build_dir = NULL;
        return rc;
}
