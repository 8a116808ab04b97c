/* The languages, one row each (struct lang_row, lang.h), and their lookup
 * by name and by file name. The memory figures are measured with Debian
 * 12's toolchains under RLIMIT_AS (docs/languages.md says how); the
 * toolchains themselves come from /usr, which every tier shows read-only. */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "lang.h"

#define MIB (1LL << 20)
#define GIB (1LL << 30)

#define COMPILE_TIME_MS        30000
#define COMPILE_MEMORY_BYTES   (2 * GIB)
#define COMPILE_OUTPUT_BYTES   (1 << 20)
#define COMPILE_FSIZE_BYTES    (256 * MIB)
#define RUN_TIME_MS            10000
#define RUN_MEMORY_BYTES       (4 * GIB)
#define RUN_OUTPUT_BYTES       (1 << 20)
#define RUN_FSIZE_BYTES        (64 * MIB)

/* A JVM: at -Xmx64m it starts in 511 MiB of address space with the flags
 * below (1 GiB of compressed class space and 1/4 of the RAM as heap
 * without them: 4 GiB here); 64m -> 511M, 256m -> 706M, 512m -> 961M.
 * Heap + 448 MiB maps at 14 threads with two malloc arenas: 768 MiB beside
 * the heap leaves room for a program's own threads (1 MiB of stack each;
 * at 512 MiB a JVM failed to start one). */
#define JVM_HEAP_RESERVE_BYTES (768 * MIB)
#define JVM_HEAP_MIN_BYTES     (64 * MIB)
/* go (the command and what it builds), node and rustc reserve address
 * space up front: 702-758 MiB, 719 MiB and 791 MiB were their least. */
#define GO_MIN_MEMORY_BYTES    (768 * MIB)
#define NODE_MIN_MEMORY_BYTES  (768 * MIB)
#define RUSTC_MEMORY_BYTES     (2 * GIB)

/* Initializers, not const objects: C (and clang, which builds the
 * fuzzers) takes no object as a static initializer. */
#define COMPILE_LIMITS { .time_ms = COMPILE_TIME_MS, .memory_bytes = COMPILE_MEMORY_BYTES, \
        .output_bytes = COMPILE_OUTPUT_BYTES, .fsize_bytes = COMPILE_FSIZE_BYTES }
#define RUN_LIMITS { .time_ms = RUN_TIME_MS, .memory_bytes = RUN_MEMORY_BYTES, \
        .output_bytes = RUN_OUTPUT_BYTES, .fsize_bytes = RUN_FSIZE_BYTES }

#define ARGV(...) ((const char *const[]){ __VA_ARGS__, NULL })

/* The JVM's flags, for java as they are and for javac behind -J: one
 * collector thread set (SerialGC), C1 only (these programs live for a
 * second), bounded class space and code cache, no perf file in /tmp, and
 * thread pools sized for two CPUs whatever the host has (each thread
 * counts against the run's process limit). */
#define JVM_FLAGS(P) P "-XX:+UseSerialGC", P "-XX:TieredStopAtLevel=1", \
        P "-XX:CompressedClassSpaceSize=64m", P "-XX:ReservedCodeCacheSize=64m", \
        P "-XX:MaxMetaspaceSize=192m", P "-XX:-UsePerfData", P "-XX:ActiveProcessorCount=2", \
        P "-Xmx{heap_mb}m"

/* glibc gives each thread that meets contention an arena of its own, 64
 * MiB of address space each, up to 8 per CPU: next to a heap sized to the
 * limit (-Xmx), a JVM then failed to start a thread under RLIMIT_AS
 * (HumanEval-X's Java/34 in one run of 164, "unable to create native
 * thread"). Two arenas bound it. */
#define JVM_ENV "HOME={home}", "MALLOC_ARENA_MAX=2"

/* Go builds offline, with its caches in the compile's private home, two
 * threads' worth of parallelism (its processes and threads count against
 * the run's process limit, and would grow with the host's CPUs). cgo
 * stays as upstream's image had it (on): the standard packages come
 * built from /usr/lib/go, and a seeded cache is a third of the size
 * (docs/languages.md). */
#define GO_ENV "HOME={home}", "GOCACHE={home}/go-build", "GOPATH={home}/go", \
        "GOPROXY=off", "GOTOOLCHAIN=local", "GOTELEMETRY=off", "GOMAXPROCS=2"

static const struct lang_row rows[] = {
        { .name = "python", .aliases = { "py", "python3" }, .extensions = { ".py" },
          .source_name = "main.py", .package = "python3", .run_tool = "python3",
          .run_argv = ARGV("{run_tool}", "{src}"),
          .version_argv = ARGV("{tool}", "--version"),
          .run_env = ARGV("HOME={home}"), .bind_tool_root = true,
          .compile_limits = COMPILE_LIMITS, .run_limits = RUN_LIMITS },
        { .name = "c", .extensions = { ".c" }, .source_name = "main.c", .package = "gcc",
          .compile_tool = "gcc", .artifact = "prog",
          .compile_argv = ARGV("{tool}", "{flags}", "-o", "{out}", "{src}", "{libs}"),
          .default_flags = ARGV("-std=gnu17", "-O2"),
          .run_argv = ARGV("{dir}/{out}"),
          .version_argv = ARGV("{tool}", "-dumpfullversion"),
          .compile_env = ARGV("HOME={home}"), .run_env = ARGV("HOME={home}"),
          .bind_tool_root = true,
          .compile_limits = COMPILE_LIMITS, .run_limits = RUN_LIMITS },
        { .name = "cpp", .aliases = { "c++", "cxx" },
          .extensions = { ".cpp", ".cc", ".cxx" }, .source_name = "main.cpp",
          .package = "g++",
          .compile_tool = "g++", .artifact = "prog",
          .compile_argv = ARGV("{tool}", "{flags}", "-o", "{out}", "{src}", "{libs}"),
          .default_flags = ARGV("-std=c++17", "-O2"),
          .run_argv = ARGV("{dir}/{out}"),
          .version_argv = ARGV("{tool}", "-dumpfullversion"),
          .compile_env = ARGV("HOME={home}"), .run_env = ARGV("HOME={home}"),
          .bind_tool_root = true,
          .compile_limits = COMPILE_LIMITS, .run_limits = RUN_LIMITS },
        /* javac without annotation processing: nothing on the class path
         * may run inside the compiler. UTF-8 as JDK 18+ (upstream's). */
        { .name = "java", .extensions = { ".java" }, .source_name = "Main.java",
          .package = "default-jdk-headless",
          .compile_tool = "javac", .run_tool = "java", .artifact = "*.class",
          .compile_argv = ARGV("{tool}", JVM_FLAGS("-J"), "-encoding", "UTF-8",
                               "-proc:none", "{flags}", "-d", ".", "{src}"),
          .run_argv = ARGV("{run_tool}", JVM_FLAGS(""), "-Dfile.encoding=UTF-8",
                           "-cp", ".", "{class}"),
          .version_argv = ARGV("{tool}", "-version"),
          .compile_env = ARGV(JVM_ENV), .run_env = ARGV(JVM_ENV),
          .bind_tool_root = true,
          .compile_limits = COMPILE_LIMITS, .run_limits = RUN_LIMITS,
          .heap_reserve_bytes = JVM_HEAP_RESERVE_BYTES, .heap_min_bytes = JVM_HEAP_MIN_BYTES,
          .min_memory_bytes = JVM_HEAP_RESERVE_BYTES + JVM_HEAP_MIN_BYTES },
        { .name = "js", .aliases = { "javascript", "node" }, .extensions = { ".js" },
          .source_name = "main.js", .package = "nodejs", .run_tool = "node",
          .run_argv = ARGV("{run_tool}", "{src}"),
          .version_argv = ARGV("{tool}", "--version"),
          .run_env = ARGV("HOME={home}"), .bind_tool_root = true,
          .compile_limits = COMPILE_LIMITS, .run_limits = RUN_LIMITS,
          .min_memory_bytes = NODE_MIN_MEMORY_BYTES },
        { .name = "go", .aliases = { "golang" }, .extensions = { ".go" },
          .source_name = "main.go", .package = "golang-go", .compile_tool = "go",
          .artifact = "prog",
          .compile_argv = ARGV("{tool}", "build", "{flags}", "-o", "{out}", "{src}"),
          .run_argv = ARGV("{dir}/{out}"),
          .version_argv = ARGV("{tool}", "env", "GOVERSION"),
          .compile_env = ARGV(GO_ENV), .run_env = ARGV("HOME={home}"),
          .bind_tool_root = true,
          .compile_limits = COMPILE_LIMITS, .run_limits = RUN_LIMITS,
          .min_memory_bytes = GO_MIN_MEMORY_BYTES },
        /* A test file, built as `go test -c` builds it (vet included) and run
         * with the flag `go test` adds: an os.Exit(0) in a test fails. */
        { .name = "go-test", .extensions = { "_test.go" },
          .source_name = "main_test.go", .package = "golang-go", .compile_tool = "go",
          .artifact = "prog",
          .compile_argv = ARGV("{tool}", "test", "-c", "{flags}", "-o", "{out}", "{src}"),
          .run_argv = ARGV("{dir}/{out}", "-test.paniconexit0"),
          .version_argv = ARGV("{tool}", "env", "GOVERSION"),
          .compile_env = ARGV(GO_ENV), .run_env = ARGV("HOME={home}"),
          .bind_tool_root = true,
          .compile_limits = COMPILE_LIMITS, .run_limits = RUN_LIMITS,
          .min_memory_bytes = GO_MIN_MEMORY_BYTES },
        { .name = "rust", .aliases = { "rs" }, .extensions = { ".rs" },
          .source_name = "main.rs", .package = "rustc", .compile_tool = "rustc",
          .artifact = "prog",
          .compile_argv = ARGV("{tool}", "--edition", "2021", "-C", "strip=debuginfo", "{flags}",
                               "-o", "{out}", "{extra}", "{src}"),
          .default_flags = ARGV("-O"),
          .run_argv = ARGV("{dir}/{out}"),
          .version_argv = ARGV("{tool}", "--version"),
          .compile_env = ARGV("HOME={home}"), .run_env = ARGV("HOME={home}"),
          .bind_tool_root = true,
          .compile_limits = { COMPILE_TIME_MS, RUSTC_MEMORY_BYTES, COMPILE_OUTPUT_BYTES,
                              COMPILE_FSIZE_BYTES },
          .run_limits = RUN_LIMITS },
        /* `cargo test`'s build: the test harness, debug assertions on
         * (overflow panics), unoptimized as cargo's dev profile. Both Rust
         * rows strip the debug info the crates bring: a HumanEval-X test
         * binary is 1.2 MB instead of 22 MB (the compile cache holds its
         * suite), and links in half the time; a panic's message is the
         * same. */
        { .name = "rust-test", .source_name = "main.rs", .package = "rustc",
          .compile_tool = "rustc", .artifact = "prog",
          .compile_argv = ARGV("{tool}", "--edition", "2021", "--test", "-C", "strip=debuginfo",
                               "{flags}", "-o", "{out}", "{extra}", "{src}"),
          .run_argv = ARGV("{dir}/{out}"),
          .version_argv = ARGV("{tool}", "--version"),
          .compile_env = ARGV("HOME={home}"), .run_env = ARGV("HOME={home}"),
          .bind_tool_root = true,
          .compile_limits = { COMPILE_TIME_MS, RUSTC_MEMORY_BYTES, COMPILE_OUTPUT_BYTES,
                              COMPILE_FSIZE_BYTES },
          .run_limits = RUN_LIMITS },
};

#define N_ROWS (sizeof(rows) / sizeof(rows[0]))

const struct lang_row *lang_rows(size_t *count)
{
        *count = N_ROWS;
        return rows;
}

const struct lang_row *lang_find(const char *name)
{
        for (size_t i = 0; i < N_ROWS; i++) {
                if (!strcasecmp(rows[i].name, name))
                        return &rows[i];
                for (size_t a = 0; a < LANG_MAX_NAMES && rows[i].aliases[a]; a++)
                        if (!strcasecmp(rows[i].aliases[a], name))
                                return &rows[i];
        }
        return NULL;
}

static bool ends_with(const char *s, const char *tail)
{
        size_t n = strlen(s), t = strlen(tail);

        return n > t && !strcmp(s + n - t, tail);
}

/* The longest ending wins: main_test.go is go-test, main.go go. Only the
 * last path component counts, so "x.rs/prog" is not Rust. */
const struct lang_row *lang_for_file(const char *path)
{
        const char *base = strrchr(path, '/');
        const struct lang_row *best = NULL;
        size_t best_len = 0;

        base = base ? base + 1 : path;
        for (size_t i = 0; i < N_ROWS; i++)
                for (size_t e = 0; e < LANG_MAX_NAMES && rows[i].extensions[e]; e++) {
                        size_t n = strlen(rows[i].extensions[e]);
                        if (n > best_len && ends_with(base, rows[i].extensions[e])) {
                                best = &rows[i];
                                best_len = n;
                        }
                }
        return best;
}

void lang_names(char *buf, size_t len)
{
        size_t at = 0;

        if (!len)
                return;
        buf[0] = '\0';
        for (size_t i = 0; i < N_ROWS && at < len; i++) {
                int n = snprintf(buf + at, len - at, "%s%s", i ? ", " : "", rows[i].name);
                at += n > 0 ? (size_t)n : 0;
        }
}
