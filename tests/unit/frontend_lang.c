/* The language table (frontend/lang/lang_table.c) and its templates
 * (lang_argv.c): every row complete, lookup by name, alias and file name,
 * the argv and env expansion, a JVM's heap under the memory limit and the
 * floors that refuse a too small --memory, the version line. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <cmocka.h>

#include "lang.h"
#include "unit_tmpdir.h"

#define MIB ((int64_t)1 << 20)

static char *joined(const struct strvec *v)
{
        size_t len = 1;
        char *s;

        for (size_t i = 0; i < v->len; i++)
                len += strlen(v->items[i]) + 1;
        s = calloc(1, len);
        assert_non_null(s);
        for (size_t i = 0; i < v->len; i++) {
                if (i)
                        strcat(s, " ");
                strcat(s, v->items[i]);
        }
        return s;
}

/* Each row has what lang.h says it must: a name, a source name, a run,
 * an artifact exactly when compiled, a tool for each {tool}, limits. */
static void every_row_is_complete(void **state)
{
        size_t n;
        const struct lang_row *rows = lang_rows(&n);

        assert_true(n >= 8);
        for (size_t i = 0; i < n; i++) {
                const struct lang_row *r = &rows[i];
                assert_non_null(r->name);
                assert_non_null(r->source_name);
                assert_non_null(r->run_argv);
                assert_non_null(r->version_argv);
                assert_true((r->compile_argv != NULL) == (r->compile_tool != NULL));
                assert_true((r->compile_argv != NULL) == (r->artifact != NULL));
                assert_true(r->compile_tool || r->run_tool);
                assert_true(r->run_limits.time_ms > 0 && r->run_limits.memory_bytes > 0);
                assert_true(r->run_limits.output_bytes > 0 && r->run_limits.fsize_bytes > 0);
                if (r->compile_argv)
                        assert_true(r->compile_limits.time_ms > 0 &&
                                    r->compile_limits.memory_bytes >= r->min_memory_bytes);
                assert_true(r->run_limits.memory_bytes >= r->min_memory_bytes);
                assert_ptr_equal(lang_find(r->name), r);
                for (size_t j = 0; j < i; j++)
                        assert_string_not_equal(rows[j].name, r->name);
        }
}

static void finds_by_name_alias_and_case(void **state)
{
        assert_string_equal(lang_find("cpp")->name, "cpp");
        assert_string_equal(lang_find("CPP")->name, "cpp");      /* HumanEval-X's prefix */
        assert_string_equal(lang_find("c++")->name, "cpp");
        assert_string_equal(lang_find("JavaScript")->name, "js");
        assert_string_equal(lang_find("Go")->name, "go");
        assert_string_equal(lang_find("Rust")->name, "rust");
        assert_string_equal(lang_find("Java")->name, "java");
        assert_string_equal(lang_find("Python")->name, "python");
        assert_null(lang_find("cobol"));
        assert_null(lang_find(""));
}

static void finds_by_file_name_longest_ending(void **state)
{
        assert_string_equal(lang_for_file("prog.cpp")->name, "cpp");
        assert_string_equal(lang_for_file("/a/b/x.cc")->name, "cpp");
        assert_string_equal(lang_for_file("x.c")->name, "c");
        assert_string_equal(lang_for_file("Main.java")->name, "java");
        assert_string_equal(lang_for_file("main_test.go")->name, "go-test");
        assert_string_equal(lang_for_file("main.go")->name, "go");
        assert_string_equal(lang_for_file("t.rs")->name, "rust");
        assert_string_equal(lang_for_file("t.py")->name, "python");
        assert_null(lang_for_file("x.rs/prog"));        /* only the last component */
        assert_null(lang_for_file(".cpp"));             /* an ending, not a name */
        assert_null(lang_for_file("README"));
        assert_null(lang_for_file(""));
}

static void expands_compile_argv_with_lists(void **state)
{
        const char *flags[] = { "-std=c++11", NULL }, *libs[] = { "-lcrypto", "-lssl", NULL };
        struct lang_argv_vars v = { .tool = "/usr/bin/g++", .out = "prog", .flags = flags,
                                    .libs = libs, .memory_bytes = -1 };
        struct strvec argv = { 0 };
        struct sbx_err err = { 0 };

        assert_int_equal(lang_argv_expand(lang_find("cpp"), true, &v, &argv, &err), 0);
        char *s = joined(&argv);
        assert_string_equal(s, "/usr/bin/g++ -std=c++11 -o prog main.cpp -lcrypto -lssl");
        free(s);
        strvec_free(&argv);

        v.flags = NULL;         /* the row's defaults */
        v.libs = NULL;
        assert_int_equal(lang_argv_expand(lang_find("cpp"), true, &v, &argv, &err), 0);
        s = joined(&argv);
        assert_string_equal(s, "/usr/bin/g++ -std=c++17 -O2 -o prog main.cpp");
        free(s);
        strvec_free(&argv);
}

static void expands_run_argv_and_refuses_missing_values(void **state)
{
        struct lang_argv_vars v = { .out = "prog", .dir = "/tmp/w", .memory_bytes = -1 };
        struct strvec argv = { 0 };
        struct sbx_err err = { 0 };

        /* argv[0] is absolute: the run engine execs it as it is */
        assert_int_equal(lang_argv_expand(lang_find("go-test"), false, &v, &argv, &err), 0);
        char *s = joined(&argv);
        assert_string_equal(s, "/tmp/w/prog -test.paniconexit0");
        free(s);
        strvec_free(&argv);
        v.dir = NULL;
        assert_int_equal(lang_argv_expand(lang_find("cpp"), false, &v, &argv, &err), -1);
        assert_non_null(strstr(err.msg, "{dir}"));
        strvec_free(&argv);
        /* node needs its runner's path: none given is an error, not "(null)" */
        assert_int_equal(lang_argv_expand(lang_find("js"), false, &v, &argv, &err), -1);
        assert_non_null(strstr(err.msg, "{run_tool}"));
        strvec_free(&argv);
        /* an interpreted language has no compile */
        assert_int_equal(lang_argv_expand(lang_find("python"), true, &v, &argv, &err), -1);
        assert_non_null(strstr(err.msg, "not compiled"));
        strvec_free(&argv);
}

/* The JVM's heap is the memory limit less its reserve; below the floor
 * the limit is refused, never lifted. */
static void java_heap_follows_the_memory_limit(void **state)
{
        const struct lang_row *java = lang_find("java");
        struct lang_argv_vars v = { .run_tool = "/usr/bin/java", .memory_bytes = 1024 * MIB };
        struct strvec argv = { 0 };
        struct sbx_err err = { 0 };

        assert_int_equal(lang_heap_bytes(java, 1024 * MIB, &err), 256 * MIB);
        assert_int_equal(lang_heap_bytes(java, 4096 * MIB, &err), 3328 * MIB);
        assert_int_equal(lang_heap_bytes(java, 832 * MIB, &err), 64 * MIB);
        assert_int_equal(lang_heap_bytes(java, 831 * MIB, &err), -1);
        assert_non_null(strstr(err.msg, "java needs --memory 832M or more"));
        assert_int_equal(lang_heap_bytes(lang_find("cpp"), 100 * MIB, &err), 0);

        assert_int_equal(lang_argv_expand(java, false, &v, &argv, &err), 0);
        char *s = joined(&argv);
        assert_non_null(strstr(s, " -Xmx256m "));
        assert_non_null(strstr(s, " -cp . Main"));
        free(s);
        strvec_free(&argv);
        v.memory_bytes = 256 * MIB;
        assert_int_equal(lang_argv_expand(java, false, &v, &argv, &err), -1);
        strvec_free(&argv);
        /* javac gets the same flags through -J */
        v.tool = "/usr/bin/javac";
        v.memory_bytes = 2048 * MIB;
        assert_int_equal(lang_argv_expand(java, true, &v, &argv, &err), 0);
        s = joined(&argv);
        assert_non_null(strstr(s, " -J-Xmx1280m "));
        assert_non_null(strstr(s, " -J-XX:+UseSerialGC "));
        assert_non_null(strstr(s, " -proc:none "));
        free(s);
        strvec_free(&argv);
}

/* --file's own name is the source's where the row's ending matches and
 * the name is a plain identifier (a Java file's public class). */
static void a_file_s_own_name_is_taken_when_plain(void **state)
{
        const struct lang_row *java = lang_find("java");
        struct lang_argv_vars v = { .run_tool = "/usr/bin/java", .src = "Hello.java",
                                    .memory_bytes = 1024 * MIB };
        struct strvec argv = { 0 };
        struct sbx_err err = { 0 };

        assert_true(lang_source_name_ok(java, "Hello.java"));
        assert_true(lang_source_name_ok(java, "_x1.java"));
        assert_false(lang_source_name_ok(java, "my-prog.java"));
        assert_false(lang_source_name_ok(java, "1x.java"));
        assert_false(lang_source_name_ok(java, ".java"));
        assert_false(lang_source_name_ok(java, "a/B.java"));
        assert_false(lang_source_name_ok(java, "Hello.cpp"));
        assert_true(lang_source_name_ok(lang_find("go-test"), "x_test.go"));
        assert_int_equal(lang_argv_expand(java, false, &v, &argv, &err), 0);
        char *s = joined(&argv);
        assert_non_null(strstr(s, " -cp . Hello"));
        free(s);
        strvec_free(&argv);
}

static void memory_floors_refuse_small_limits(void **state)
{
        struct sbx_err err = { 0 };

        assert_int_equal(lang_check_memory(lang_find("go"), 512 * MIB, &err), -1);
        assert_non_null(strstr(err.msg, "go needs --memory 768M"));
        assert_int_equal(lang_check_memory(lang_find("go"), 768 * MIB, &err), 0);
        assert_int_equal(lang_check_memory(lang_find("js"), 700 * MIB, &err), -1);
        assert_int_equal(lang_check_memory(lang_find("go"), -1, &err), 0);    /* none */
        assert_int_equal(lang_check_memory(lang_find("cpp"), 16 * MIB, &err), 0);
}

static void env_fills_home(void **state)
{
        struct strvec env = { 0 };
        struct sbx_err err = { 0 };

        assert_int_equal(lang_env_expand(lang_find("go"), true, "/home/sbx", &env, &err), 0);
        char *s = joined(&env);
        assert_non_null(strstr(s, "HOME=/home/sbx"));
        assert_non_null(strstr(s, "GOCACHE=/home/sbx/go-build"));
        assert_non_null(strstr(s, "GOPATH=/home/sbx/go"));
        assert_non_null(strstr(s, "GOPROXY=off"));
        assert_null(strstr(s, "{home}"));
        free(s);
        strvec_free(&env);
}

static void version_line_is_the_first_with_text(void **state)
{
        char *v;
        char long_line[600];

        v = lang_version_parse("\n  \n  rustc 1.63.0 \r\nmore\n", 29);
        assert_string_equal(v, "rustc 1.63.0");
        free(v);
        v = lang_version_parse("openjdk 17\x1b[31m", 15);
        assert_string_equal(v, "openjdk 17?[31m");
        free(v);
        assert_null(lang_version_parse("", 0));
        assert_null(lang_version_parse(" \n\t\n", 4));
        memset(long_line, 'x', sizeof(long_line));
        v = lang_version_parse(long_line, sizeof(long_line));
        assert_int_equal(strlen(v), LANG_VERSION_MAX);
        free(v);
}

static void artifact_patterns_match_plain_names_only(void **state)
{
        assert_true(lang_artifact_match("prog", "prog"));
        assert_false(lang_artifact_match("prog", "prog2"));
        assert_true(lang_artifact_match("*.class", "Main.class"));
        assert_true(lang_artifact_match("*.class", "Solution$1.class"));
        assert_false(lang_artifact_match("*.class", ".x.class"));
        assert_false(lang_artifact_match("*.class", "a/b.class"));
        assert_false(lang_artifact_match("*", ".."));
        assert_false(lang_artifact_match("*", ""));
}

static void names_list_every_row(void **state)
{
        char buf[256], tiny[5];

        lang_names(buf, sizeof(buf));
        assert_non_null(strstr(buf, "cpp, java, js, go, go-test, rust"));
        lang_names(tiny, sizeof(tiny));
        assert_int_equal(strlen(tiny), 4);
}

/* A stand-in toolchain in a temp dir: found on the given path, its
 * version line read from what it prints (blank lines first), its install
 * root bound (it is outside the system directories); a missing tool and
 * one that fails say which language and what. */
static void resolves_a_tool_and_reads_its_version(void **state)
{
        const char *const version_argv[] = { "{tool}", "--version", NULL };
        const char *const env[] = { "HOME={home}", NULL };
        struct lang_row row = { .name = "fake", .compile_tool = "fakecc",
                                .version_argv = version_argv, .compile_env = env,
                                .bind_tool_root = true };
        struct lang_tool tool;
        struct sbx_err err = { 0 };
        char bin[512];

        snprintf(bin, sizeof(bin), "%s/opt/fake/bin", unit_tmpdir);
        assert_int_equal(sbx_mkdir_p(bin), 0);
        free(unit_write_tmp("opt/fake/bin/fakecc",
                            "#!/bin/sh\n[ \"$1\" = --version ] || exit 3\n"
                            "[ \"$HOME\" = /nonexistent ] || exit 4\n"
                            "printf '\\n  fakecc 1.2.3 \\nmore\\n'\n"));
        free(unit_write_tmp("opt/fake/bin/badcc", "#!/bin/sh\nexit 1\n"));
        char *cc, *bad;
        assert_true(asprintf(&cc, "%s/fakecc", bin) > 0 && asprintf(&bad, "%s/badcc", bin) > 0);
        assert_int_equal(chmod(cc, 0755) | chmod(bad, 0755), 0);

        assert_int_equal(lang_tool_resolve(&row, "fakecc", bin, &tool, &err), 0);
        assert_string_equal(tool.path, cc);
        assert_string_equal(tool.version, "fakecc 1.2.3");
        assert_non_null(tool.root);
        assert_non_null(strstr(tool.root, "/opt/fake"));
        assert_null(strstr(tool.root, "/bin"));
        lang_tool_free(&tool);

        assert_int_equal(lang_tool_resolve(&row, "nosuchcc", bin, &tool, &err), -1);
        assert_int_equal(err.exit_code, SBX_EXIT_SANDBOX);
        assert_non_null(strstr(err.msg, "language fake: no nosuchcc on "));
        assert_int_equal(lang_tool_resolve(&row, "badcc", bin, &tool, &err), -1);
        assert_non_null(strstr(err.msg, "tells no version"));
        assert_null(tool.path);
        free(cc);
        free(bad);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(every_row_is_complete),
                cmocka_unit_test(finds_by_name_alias_and_case),
                cmocka_unit_test(finds_by_file_name_longest_ending),
                cmocka_unit_test(expands_compile_argv_with_lists),
                cmocka_unit_test(expands_run_argv_and_refuses_missing_values),
                cmocka_unit_test(java_heap_follows_the_memory_limit),
                cmocka_unit_test(a_file_s_own_name_is_taken_when_plain),
                cmocka_unit_test(memory_floors_refuse_small_limits),
                cmocka_unit_test(env_fills_home),
                cmocka_unit_test(version_line_is_the_first_with_text),
                cmocka_unit_test(artifact_patterns_match_plain_names_only),
                cmocka_unit_test(names_list_every_row),
                cmocka_unit_test(resolves_a_tool_and_reads_its_version),
        };
        return cmocka_run_group_tests(tests, unit_tmpdir_setup, unit_tmpdir_teardown);
}
