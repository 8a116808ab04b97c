/* What lang_session.c, lang_support.c, lang_compile.c and lang_job.c
 * share: the session, a language's support in it, a job. Not for callers
 * (they have lang_run.h). */
#ifndef SBX_LANG_IMPL_H
#define SBX_LANG_IMPL_H

#include <stdbool.h>

#include "cache.h"
#include "lang_run.h"

#define LANG_MAX_ROWS 16
#define LANG_SUPPORT_KEY_LEN SHA256_HEX_LEN

/* A seed: something a row's compiles need that is built once per user, in
 * the sandbox, and cached as a compile is (Go's build cache with the
 * suite's module built into it, Rust's crates). */
struct lang_seed {
        const char *tool;               /* its own toolchain ("cargo"); NULL: the row's compiler */
        const char *const *version_argv; /* that tool's version ({tool}) */
        const char *source_name, *source; /* a program it builds, or NULL */
        /* argv ({tool}, {compile_tool}, {support}); it runs in a fresh
         * directory with the row's compile links and env */
        const char *const *argv;
        const char *artifact;           /* what it leaves, a pattern */
        const char *key_dir;            /* a directory whose entries' names the key holds */
        /* Crates: --extern NAME=<support>/libNAME-*.rlib each, and
         * -L dependency=<support>, become the compile's {extra}. */
        const char *const *externs;
};

/* A support set's needs for one language (lang_support.c's table). */
struct lang_support_row {
        const char *set;                /* "humaneval-x" */
        const char *language;           /* a row's name */
        const char *const *files;       /* copied from the set's directory into the support dir */
        const char *unpack;             /* one of them, a .tar.gz unpacked there (in the sandbox) */
        /* A fixed shell script the compile runs before its compiler (exec
         * "$@"), with SBX_SUPPORT (the support dir), SBX_WORK (the compile's
         * directory) and SBX_SRC (the source's name) in its env; the
         * compiler's {out} is then SBX_WORK's. NULL: none. */
        const char *compile_prelude;
        const char *const *compile_env; /* {support}: the support dir */
        const char *const *run_env;
        bool bind_compile, bind_run;    /* the support dir read-only in the compile, the run */
        const struct lang_seed *seed;
};

/* A language's support, readied in the session. */
struct lang_support {
        const struct lang_support_row *row;
        char *dir;                      /* the support dir: sbx's own, in the session's scratch */
        char key[LANG_SUPPORT_KEY_LEN + 1]; /* what the compile key holds of it */
        struct strvec compile_env, run_env, extra;
};

struct lang_session {
        struct sandbox *sb;
        struct lang_opts opts;
        struct lang_cache cache;
        bool cache_on;
        char *memo_dir;                 /* toolchains' version lines, or NULL */
        bool ready[LANG_MAX_ROWS];
        struct lang_tool tool[LANG_MAX_ROWS], run_tool[LANG_MAX_ROWS];
        struct lang_support *support[LANG_MAX_ROWS];    /* NULL: none */
};

/* lang_work.c */
size_t lang_row_index(const struct lang_row *row);
/* The weak tiers share the host's /tmp: a compile's home and temp files
 * go to <dir>/.tmp there; the strong ones give each run its own /tmp. */
char *lang_compile_tmp(struct lang_session *ls, const char *dir);
/* A compile's (or a seed's) wall clock and CPU (the timeout's whole
 * seconds and DEFAULT_CPU_SLACK_S), within the helper's ceilings
 * (max_timeout, max_cpu): a build the admin allows less gets less, and
 * says so by its timeout, rather than being refused. */
void lang_clamp_time(struct lang_session *ls, int64_t *timeout_ms, int64_t *cpu_s);
/* A blocking run for preparing support (unpacking, seeds). */
int lang_sync_run(struct lang_session *ls, const struct run_spec *spec,
                  struct run_result *res, struct sbx_err *err);
/* The tail of a run's stderr (stdout when it wrote none), from a line start;
 * malloc'd, NULL when empty. */
char *lang_output_tail(const struct run_result *res, size_t max);

/* A new file dir/name holding text (never through a link). */
int lang_write_source(const char *dir, const char *name, const char *text, size_t len,
                      struct sbx_err *err);

/* A compile's env: the row's ({home} = tmp), HOME and TMPDIR = tmp, and
 * with a support, its env and SBX_SUPPORT, SBX_WORK = dir, SBX_SRC = src. */
int lang_compile_env(const struct lang_row *row, const struct lang_support *s,
                     const char *tmp, const char *dir, const char *src, struct strvec *env,
                     struct sbx_err *err);

/* lang_support.c */
const struct lang_support_row *lang_support_find(const char *set, const char *language);
int lang_support_prepare(struct lang_session *ls, const struct lang_row *row,
                         const struct lang_support_row *srow, struct lang_support **out,
                         struct sbx_err *err);
void lang_support_free(struct lang_support *s);

/* lang_seed.c: the support's seed built or fetched into its dir; its key
 * goes into the support's */
int lang_seed_ready(struct lang_session *ls, const struct lang_row *row,
                    struct lang_support *s, struct lang_cache_key *key, struct sbx_err *err);
/* lang_compile.c: a job's compile */
struct lang_job {
        struct lang_session *ls;
        const struct lang_row *row;
        struct lang_support *support;   /* borrowed, or NULL */
        enum { JOB_COMPILING, JOB_RUNNING, JOB_DONE } phase;
        char key[SHA256_HEX_LEN + 1];   /* the compile's cache key ("" with no cache) */
        char *src_name, *stdin_path;
        char *build_dir, *run_dir;      /* sandbox_mkdtemp'd, or NULL */
        struct strvec compile_argv, compile_env, binds;
        struct strvec run_argv, run_env, run_files;
        struct run_spec compile_spec, run_spec;
        struct lang_build_info build;
};
int lang_compile_start(struct lang_job *job, const struct lang_program *p,
                       struct sbx_run **run, struct sbx_err *err);
/* The cache's entry for the job's key: 1 hit (artifact in run_dir, or a
 * cached compile error in job->build), 0 miss. */
int lang_compile_lookup(struct lang_job *job);
/* The compile ended with res: 1 the artifact is in run_dir, 0 the job
 * ends with res (build says why). */
int lang_compile_finish(struct lang_job *job, const struct run_result *res,
                        struct sbx_err *err);
void lang_compile_key(struct lang_job *job, const struct lang_program *p);

#endif
