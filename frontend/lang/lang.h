/* The language layer (issue 32): one row per language a sample may be
 * written in (struct lang_row), as tiers and suites are rows. A row says
 * what the source file is called, how to compile it (or that it is not
 * compiled), how to run the result, which toolchain binary it needs and how
 * that binary tells its version, what the sandbox must set or bind for it,
 * and its default compile and run limits. The compile cache (cache.h) keys
 * builds by the source, the toolchain's version and the expanded flags.
 *
 * Layer: below the command line, the server and the suites (which pick a
 * row and hand its argv, env and limits to the run engine); above the run
 * engine and process layer (it may call proc.h to find a tool and read its
 * version). It never reaches up. Pure but for lang_tool_resolve.
 *
 * Adding a language: a row in lang_table.c (docs/languages.md says what
 * each field means and how to measure its limits), its unit test rows in
 * tests/unit/frontend_lang.c, and its integration tests. */
#ifndef SBX_LANG_H
#define SBX_LANG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "err.h"
#include "util.h"

/* Bumped whenever a row's meaning changes in a way the cache key does not
 * see (the argv templates are hashed expanded, so a flag change is seen). */
#define LANG_ROWS_VERSION 1

#define LANG_MAX_NAMES  4
#define LANG_VERSION_MAX 200            /* bytes of a version line kept */

struct lang_limits {
        int64_t time_ms;                /* wall clock */
        int64_t memory_bytes;           /* address space (RLIMIT_AS) */
        int64_t output_bytes;           /* per stream */
        int64_t fsize_bytes;            /* largest file written */
};

struct lang_row {
        const char *name;               /* "cpp": --language, results */
        /* Other names a user or a data set gives it ("c++"; HumanEval-X's
         * task-id prefix "CPP"), matched without regard to case. */
        const char *aliases[LANG_MAX_NAMES];
        /* File name endings that pick this row for --file, longest first
         * wins ("_test.go" over ".go"). Empty: chosen by name only. */
        const char *extensions[LANG_MAX_NAMES];
        const char *source_name;        /* the file the sample is written to */
        const char *package;            /* Debian's package with its toolchain */
        /* Compile and run argv templates, NULL-terminated; compile NULL:
         * not compiled. Placeholders (lang_argv_expand): {tool} the
         * compiler's absolute path, {run_tool} the runner's, {src} the
         * source name, {class} the source name without its ending (a
         * Java file's public class), {out} the artifact, {dir} the run's
         * workdir (argv[0] is an absolute path), {heap_mb} (a JVM's -Xmx),
         * {timeout_s}; an item that is exactly {flags}, {libs} or {extra}
         * becomes the caller's list of zero or more arguments. */
        const char *const *compile_argv;
        const char *const *run_argv;
        const char *compile_tool;       /* searched for on the tool path; NULL: none */
        const char *run_tool;           /* NULL: the artifact runs itself */
        /* Its first line is the toolchain's version (the cache key's). */
        const char *const *version_argv;
        const char *artifact;           /* what a compile leaves: a file, or a
                                         * "*.ext" pattern of files */
        const char *const *default_flags; /* {flags} when the caller has none */
        /* NAME=VALUE for the sandboxed compile and run: {home} is the run's
         * private home (a tmpfs in the strong tiers). */
        const char *const *compile_env;
        const char *const *run_env;
        /* Bind the tool's install root (two levels above its real path)
         * read-only when it lies outside the system directories, which
         * every tier shows already (/usr, /etc: a Debian JDK, Go, rustc). */
        bool bind_tool_root;
        struct lang_limits compile_limits, run_limits;
        /* A JVM reserves this much address space beside its heap: the heap
         * is the memory limit less this ({heap_mb}); 0: no heap. */
        int64_t heap_reserve_bytes;
        int64_t heap_min_bytes;
        /* The least address space the runtime starts in (measured,
         * docs/languages.md): a smaller --memory is refused with this
         * figure, never lifted. 0: no floor. */
        int64_t min_memory_bytes;
};

/* The table. */
const struct lang_row *lang_rows(size_t *count);
/* By name or alias, case-insensitively; NULL when unknown. */
const struct lang_row *lang_find(const char *name);
/* By a file name's ending (the longest that matches); NULL when none. */
const struct lang_row *lang_for_file(const char *path);
/* "cpp, go, ..." into buf (cut to fit), for messages and --help. */
void lang_names(char *buf, size_t len);

/* The values lang_argv_expand puts in place of the placeholders. */
struct lang_argv_vars {
        const char *tool, *run_tool;    /* absolute paths (NULL: not needed) */
        const char *src;                /* the source's name; NULL: the row's */
        const char *out;                /* the artifact's name */
        const char *dir;                /* the run's workdir (NULL: not needed) */
        const char *const *flags;       /* NULL: the row's default_flags */
        const char *const *libs;        /* NULL: none */
        const char *const *extra;       /* NULL: none */
        int64_t memory_bytes;           /* the run's address-space limit; -1: none */
        int64_t timeout_ms;
};

/* The row's compile (compile true) or run argv with the placeholders
 * filled, appended to *out. -1 with err for an unknown placeholder or a
 * missing value (a row bug), or a memory limit below the row's floor. */
int lang_argv_expand(const struct lang_row *row, bool compile,
                     const struct lang_argv_vars *vars, struct strvec *out,
                     struct sbx_err *err);
/* The same for any template of the row (its version_argv). */
int lang_argv_expand_list(const struct lang_row *row, const char *const *tmpl,
                          const struct lang_argv_vars *vars, struct strvec *out,
                          struct sbx_err *err);
/* Is name a source file name the row may be given instead of its own
 * (--file's): the row's ending, a plain name ([A-Za-z_][A-Za-z0-9_]*
 * before it: a Java class), no path. */
bool lang_source_name_ok(const struct lang_row *row, const char *name);
/* The environment entries of the compile or run, {home} filled. */
int lang_env_expand(const struct lang_row *row, bool compile, const char *home,
                    struct strvec *out, struct sbx_err *err);
/* The heap a JVM gets under memory_bytes (0 when the row has none);
 * -1 with err when memory_bytes is below the row's floor. A limit of -1
 * (none) gives the row's default run memory's heap. */
int64_t lang_heap_bytes(const struct lang_row *row, int64_t memory_bytes,
                        struct sbx_err *err);
/* -1 with err naming the language and its floor when memory_bytes (>= 0)
 * is below the row's min_memory_bytes. */
int lang_check_memory(const struct lang_row *row, int64_t memory_bytes,
                      struct sbx_err *err);

/* The version line of a --version style output: the first line with
 * anything on it, trimmed, cut to LANG_VERSION_MAX bytes, control bytes
 * replaced by '?'. NULL when there is none; malloc'd. */
char *lang_version_parse(const char *output, size_t len);
/* Does the artifact pattern ("prog", "*.class") match this file name? */
bool lang_artifact_match(const char *pattern, const char *name);

/* A toolchain as found on this host (lang_toolchain.c). */
struct lang_tool {
        char *path;             /* as found on the search path */
        char *real;             /* its real path */
        char *root;             /* a root to bind, or NULL (under a system dir) */
        char *version;          /* lang_version_parse of version_argv's output */
};
#define LANG_DEFAULT_TOOL_PATH "/usr/local/bin:/usr/bin:/bin"
/* Finds name on search_path (NULL: LANG_DEFAULT_TOOL_PATH) and, when
 * version_argv is given, runs it ({tool} = the path found) unsandboxed: a
 * system binary with fixed arguments. -1 with err (exit code
 * SBX_EXIT_SANDBOX) naming the language and the tool when it is missing
 * or tells no version. */
int lang_tool_resolve(const struct lang_row *row, const char *name,
                      const char *search_path, struct lang_tool *tool,
                      struct sbx_err *err);
/* The same, the version read only when version is set, and kept in
 * memo_dir (NULL: none) by the tool's inode, size and times. */
int lang_tool_resolve_memo(const struct lang_row *row, const char *name,
                           const char *search_path, const char *memo_dir, bool version,
                           struct lang_tool *tool, struct sbx_err *err);
/* The same without reading its version (a runner: java beside javac). */
int lang_tool_find(const struct lang_row *row, const char *name,
                   const char *search_path, struct lang_tool *tool,
                   struct sbx_err *err);
void lang_tool_free(struct lang_tool *tool);

#endif
