/* The compile cache (frontend/lang/cache*.c): the key changes with each of
 * its pieces; an entry's meta is read strictly; store then fetch gives the
 * same files as copies; parallel writers of one key leave one whole entry;
 * directories open to others are refused; a symlink is never followed;
 * eviction removes the least recently used first. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "cache.h"
#include "util.h"
#include "unit_tmpdir.h"

static char *path_in(const char *a, const char *b)
{
        char *p;

        assert_true(asprintf(&p, "%s/%s", a, b) > 0);
        return p;
}

static void write_file(const char *dir, const char *name, const char *text, mode_t mode)
{
        char *p = path_in(dir, name);
        int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, mode);

        assert_true(fd >= 0);
        assert_int_equal(sbx_write_all(fd, text, strlen(text)), 0);
        close(fd);
        free(p);
}

static char *read_file(const char *dir, const char *name)
{
        char *p = path_in(dir, name), *buf = calloc(1, 16384);
        int fd = open(p, O_RDONLY);

        free(p);
        if (fd < 0) {
                free(buf);
                return NULL;
        }
        assert_true(read(fd, buf, 16383) >= 0);
        close(fd);
        return buf;
}

static char *fresh_dir(const char *name)
{
        char *p = path_in(unit_tmpdir, name);

        sbx_rm_tree(p);
        assert_int_equal(mkdir(p, 0700), 0);
        return p;
}

static void key_of(const char *source, const char *version, const char *const *argv,
                   char out[SHA256_HEX_LEN + 1])
{
        struct lang_cache_key k;

        lang_cache_key_init(&k);
        lang_cache_key_add_str(&k, "source", source);
        lang_cache_key_add_str(&k, "version", version);
        lang_cache_key_add_list(&k, "argv", argv);
        lang_cache_key_hex(&k, out);
}

static void key_changes_with_each_piece(void **state)
{
        const char *a1[] = { "g++", "-O2", NULL }, *a2[] = { "g++", "-O0", NULL };
        const char *a3[] = { "g++", "-O2", "", NULL }, *a4[] = { "g++-O2", NULL };
        char k[6][SHA256_HEX_LEN + 1];

        key_of("int main(){}", "12.2.0", a1, k[0]);
        key_of("int main(){}", "12.2.0", a1, k[5]);
        assert_string_equal(k[0], k[5]);        /* deterministic */
        assert_true(lang_cache_key_valid(k[0]));
        key_of("int main(){ }", "12.2.0", a1, k[1]);
        key_of("int main(){}", "12.3.0", a1, k[2]);
        key_of("int main(){}", "12.2.0", a2, k[3]);
        key_of("int main(){}", "12.2.0", a3, k[4]);
        for (int i = 1; i < 5; i++)
                assert_string_not_equal(k[0], k[i]);
        /* the pieces are length-prefixed: moving a boundary changes the key */
        key_of("int main(){}", "12.2.0", a4, k[1]);
        assert_string_not_equal(k[0], k[1]);
        key_of("int main(){}12.2.0", "", a1, k[1]);
        assert_string_not_equal(k[0], k[1]);
        assert_false(lang_cache_key_valid("abc"));
        assert_false(lang_cache_key_valid("../../../../etc/passwd"));
        k[0][3] = 'A';
        assert_false(lang_cache_key_valid(k[0]));
}

static void meta_round_trips_and_rejects_junk(void **state)
{
        struct lang_cache_meta in = { LANG_CACHE_COMPILE_ERROR, "main.cpp:1: error: x\n" }, out;
        char *text = lang_cache_meta_format(&in);

        assert_int_equal(lang_cache_meta_parse(text, strlen(text), &out), 0);
        assert_int_equal(out.status, LANG_CACHE_COMPILE_ERROR);
        assert_string_equal(out.message, in.message);
        lang_cache_meta_free(&out);
        /* one byte more or less than "message N" says */
        assert_int_equal(lang_cache_meta_parse(text, strlen(text) - 1, &out), -1);
        char *more;
        assert_true(asprintf(&more, "%sx", text) > 0);
        assert_int_equal(lang_cache_meta_parse(more, strlen(more), &out), -1);
        free(more);
        free(text);
        const char *bad[] = {
                "sbx-compile-cache 2\nstatus compiled\nmessage 0\n",
                LANG_CACHE_MAGIC "\nstatus passed\nmessage 0\n",
                LANG_CACHE_MAGIC "\nstatus compiled\nmessage -0\n",
                LANG_CACHE_MAGIC "\nstatus compiled\nmessage 1\nx",     /* compiled has none */
                LANG_CACHE_MAGIC "\nstatus compiled\nmessage 99999999999999999999\n",
                LANG_CACHE_MAGIC "\nstatus compiled\n",
                "",
        };
        for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++)
                assert_int_equal(lang_cache_meta_parse(bad[i], strlen(bad[i]), &out), -1);
        /* a NUL inside the message */
        assert_int_equal(lang_cache_meta_parse(LANG_CACHE_MAGIC "\nstatus compile_error\n"
                                               "message 2\na\0", strlen(LANG_CACHE_MAGIC) + 34,
                                               &out), -1);
}

static void max_bytes_parses_sizes(void **state)
{
        struct sbx_err err = { 0 };

        assert_int_equal(lang_cache_max_bytes(NULL, &err), LANG_CACHE_DEFAULT_MAX_BYTES);
        assert_int_equal(lang_cache_max_bytes("0", &err), 0);
        assert_int_equal(lang_cache_max_bytes("512M", &err), 512LL << 20);
        assert_int_equal(lang_cache_max_bytes("2G", &err), 2LL << 30);
        assert_int_equal(lang_cache_max_bytes("-1", &err), -1);
        assert_int_equal(lang_cache_max_bytes("1T", &err), -1);
        assert_int_equal(lang_cache_max_bytes("99999999999G", &err), -1);
        assert_non_null(strstr(err.msg, "SBX_COMPILE_CACHE_MAX"));
}

static void open_cache(const char *name, int64_t max, struct lang_cache *c)
{
        char *root = fresh_dir(name);
        struct sbx_err err = { 0 };

        assert_int_equal(lang_cache_open(root, max, c, &err), 0);
        free(root);
}

static void store_then_fetch_copies_the_files(void **state)
{
        struct lang_cache c;
        struct lang_cache_meta ok = { LANG_CACHE_COMPILED, NULL }, got;
        struct sbx_err err = { 0 };
        char key[SHA256_HEX_LEN + 1];
        const char *argv[] = { "javac", NULL };
        char *src = fresh_dir("src1"), *dst = fresh_dir("dst1"), *dst2 = fresh_dir("dst1b");

        open_cache("cache1", 1 << 20, &c);
        key_of("class Main {}", "17", argv, key);
        assert_int_equal(lang_cache_fetch(&c, key, dst, &got), 0);      /* a miss */
        write_file(src, "Main.class", "CAFEBABE main", 0644);
        write_file(src, "Solution.class", "CAFEBABE solution", 0644);
        write_file(src, "Main.java", "class Main {}", 0644);            /* not an artifact */
        assert_int_equal(lang_cache_store(&c, key, src, "*.class", &ok, &err), 0);
        assert_int_equal(lang_cache_fetch(&c, key, dst, &got), 1);
        assert_int_equal(got.status, LANG_CACHE_COMPILED);
        char *t = read_file(dst, "Main.class");
        assert_string_equal(t, "CAFEBABE main");
        free(t);
        t = read_file(dst, "Solution.class");
        assert_string_equal(t, "CAFEBABE solution");
        free(t);
        assert_null(read_file(dst, "Main.java"));
        lang_cache_meta_free(&got);
        /* a copy, not a link: a run that writes its file leaves the entry be */
        write_file(dst, "Main.class", "poisoned", 0644);
        assert_int_equal(lang_cache_fetch(&c, key, dst2, &got), 1);
        t = read_file(dst2, "Main.class");
        assert_string_equal(t, "CAFEBABE main");
        free(t);
        lang_cache_meta_free(&got);
        lang_cache_close(&c);
        free(src);
        free(dst);
        free(dst2);
}

static void compile_errors_are_cached_with_their_message(void **state)
{
        struct lang_cache c;
        struct lang_cache_meta bad = { LANG_CACHE_COMPILE_ERROR, "main.cpp:3: error: 'x'" }, got;
        struct sbx_err err = { 0 };
        char key[SHA256_HEX_LEN + 1];
        const char *argv[] = { "g++", NULL };
        char *dst = fresh_dir("dst2");

        open_cache("cache2", 1 << 20, &c);
        key_of("int main(){ x; }", "12", argv, key);
        assert_int_equal(lang_cache_store(&c, key, "/nonexistent", NULL, &bad, &err), 0);
        assert_int_equal(lang_cache_fetch(&c, key, dst, &got), 1);
        assert_int_equal(got.status, LANG_CACHE_COMPILE_ERROR);
        assert_string_equal(got.message, bad.message);
        lang_cache_meta_free(&got);
        lang_cache_close(&c);
        free(dst);
}

/* What a sandboxed compile left is untrusted: a symlink named like the
 * artifact (to a secret of the user's) is refused, not copied. */
static void store_refuses_links_and_missing_artifacts(void **state)
{
        struct lang_cache c;
        struct lang_cache_meta ok = { LANG_CACHE_COMPILED, NULL }, got;
        struct sbx_err err = { 0 };
        char key[SHA256_HEX_LEN + 1];
        const char *argv[] = { "g++", NULL };
        char *src = fresh_dir("src3"), *dst = fresh_dir("dst3"), *link = path_in(src, "prog");

        open_cache("cache3", 1 << 20, &c);
        key_of("x", "12", argv, key);
        char *secret = unit_write_tmp("secret", "the user's key");
        assert_int_equal(symlink(secret, link), 0);
        assert_int_equal(lang_cache_store(&c, key, src, "prog", &ok, &err), -1);
        assert_int_equal(lang_cache_fetch(&c, key, dst, &got), 0);
        assert_int_equal(unlink(link), 0);
        assert_int_equal(mkfifo(link, 0600), 0);        /* never blocks on it either */
        assert_int_equal(lang_cache_store(&c, key, src, "prog", &ok, &err), -1);
        assert_int_equal(unlink(link), 0);
        assert_int_equal(lang_cache_store(&c, key, src, "prog", &ok, &err), -1);
        assert_non_null(strstr(err.msg, "no file matches prog"));
        lang_cache_close(&c);
        free(secret);
        free(link);
        free(src);
        free(dst);
}

/* An entry replaced by a symlink (to a tree of someone else's) is a miss. */
static void fetch_never_follows_a_symlinked_entry(void **state)
{
        struct lang_cache c;
        struct lang_cache_meta ok = { LANG_CACHE_COMPILED, NULL }, got;
        struct sbx_err err = { 0 };
        char key[SHA256_HEX_LEN + 1], other[SHA256_HEX_LEN + 1];
        const char *argv[] = { "g++", NULL };
        char *src = fresh_dir("src4"), *dst = fresh_dir("dst4");

        open_cache("cache4", 1 << 20, &c);
        key_of("a", "12", argv, key);
        key_of("b", "12", argv, other);
        write_file(src, "prog", "binary", 0755);
        assert_int_equal(lang_cache_store(&c, key, src, "prog", &ok, &err), 0);
        char *entry, *fake, *shard;
        assert_true(asprintf(&entry, "%s/%.2s/%s", c.dir, key, key) > 0);
        assert_true(asprintf(&shard, "%s/%.2s", c.dir, other) > 0);
        assert_true(asprintf(&fake, "%s/%s", shard, other) > 0);
        mkdir(shard, 0700);
        assert_int_equal(symlink(entry, fake), 0);
        assert_int_equal(lang_cache_fetch(&c, other, dst, &got), 0);
        assert_int_equal(lang_cache_fetch(&c, key, dst, &got), 1);
        lang_cache_meta_free(&got);
        struct stat st;
        assert_int_equal(stat(dst, &st), 0);
        char *prog = path_in(dst, "prog");
        assert_int_equal(stat(prog, &st), 0);
        assert_true(st.st_mode & S_IXUSR);      /* still runnable */
        free(prog);
        free(entry);
        free(fake);
        free(shard);
        lang_cache_close(&c);
        free(src);
        free(dst);
}

/* Never shared: a cache directory others may enter or write is refused. */
static void refuses_directories_open_to_others(void **state)
{
        struct lang_cache c;
        struct sbx_err err = { 0 };
        char *root = fresh_dir("cache5"), *compile = path_in(root, "compile");

        assert_int_equal(lang_cache_open(root, 1 << 20, &c, &err), 0);
        lang_cache_close(&c);
        assert_int_equal(chmod(compile, 0755), 0);
        assert_int_equal(lang_cache_open(root, 1 << 20, &c, &err), -1);
        assert_non_null(strstr(err.msg, "closed to others"));
        assert_int_equal(chmod(compile, 0700), 0);
        assert_int_equal(chmod(root, 0777), 0);
        assert_int_equal(lang_cache_open(root, 1 << 20, &c, &err), -1);
        assert_int_equal(chmod(root, 0755), 0);        /* readable is fine */
        assert_int_equal(lang_cache_open(root, 1 << 20, &c, &err), 0);
        lang_cache_close(&c);
        assert_int_equal(lang_cache_open("relative/dir", 1 << 20, &c, &err), -1);
        free(compile);
        free(root);
}

/* Eight processes store the same key at once, and eight others their own:
 * each key ends as one whole entry, no temp directory is left. */
static void parallel_writers_leave_whole_entries(void **state)
{
        struct lang_cache c;
        const char *argv[] = { "g++", NULL };
        char shared[SHA256_HEX_LEN + 1];
        char *src = fresh_dir("src6");

        open_cache("cache6", 64 << 20, &c);
        key_of("shared", "12", argv, shared);
        for (int i = 0; i < 16; i++) {
                pid_t pid = fork();
                assert_true(pid >= 0);
                if (pid == 0) {
                        struct lang_cache_meta ok = { LANG_CACHE_COMPILED, NULL };
                        struct sbx_err err = { 0 };
                        char key[SHA256_HEX_LEN + 1], name[32], text[8192];
                        snprintf(name, sizeof(name), "own%d", i);
                        key_of(i % 2 ? "shared" : name, "12", argv, key);
                        char *mine = fresh_dir(name);
                        memset(text, 'a', sizeof(text) - 1);
                        text[sizeof(text) - 1] = '\0';
                        write_file(mine, "prog", text, 0755);
                        _exit(lang_cache_store(&c, key, mine, "prog", &ok, &err) == 0 ? 0 : 1);
                }
        }
        int status, failed = 0;
        while (wait(&status) > 0)
                failed += !WIFEXITED(status) || WEXITSTATUS(status) != 0;
        assert_int_equal(failed, 0);
        for (int i = 0; i < 16; i += 2) {
                struct lang_cache_meta got;
                char key[SHA256_HEX_LEN + 1], name[32];
                snprintf(name, sizeof(name), "own%d", i);
                key_of(name, "12", argv, key);
                char *dst = fresh_dir("dst6");
                assert_int_equal(lang_cache_fetch(&c, key, dst, &got), 1);
                lang_cache_meta_free(&got);
                free(dst);
        }
        struct lang_cache_meta got;
        char *dst = fresh_dir("dst6");
        assert_int_equal(lang_cache_fetch(&c, shared, dst, &got), 1);
        lang_cache_meta_free(&got);
        char *t = read_file(dst, "prog");
        assert_int_equal(strlen(t), 8191);
        free(t);
        free(dst);
        char cmd[4200];
        snprintf(cmd, sizeof(cmd), "test -z \"$(ls %s | grep -v '^[0-9a-f][0-9a-f]$')\"", c.dir);
        assert_int_equal(system(cmd), 0);       /* no tmp.* left behind */
        lang_cache_close(&c);
        free(src);
}

static void store_n(struct lang_cache *c, const char *src, const char *what, char key[65])
{
        struct lang_cache_meta ok = { LANG_CACHE_COMPILED, NULL };
        struct sbx_err err = { 0 };
        const char *argv[] = { "g++", NULL };

        key_of(what, "12", argv, key);
        assert_int_equal(lang_cache_store(c, key, src, "prog", &ok, &err), 0);
}

static void set_mtime(struct lang_cache *c, const char *key, time_t when)
{
        char *entry;
        struct timespec ts[2] = { { when, 0 }, { when, 0 } };

        assert_true(asprintf(&entry, "%s/%.2s/%s", c->dir, key, key) > 0);
        assert_int_equal(utimensat(AT_FDCWD, entry, ts, 0), 0);
        free(entry);
}

/* Over its limit the cache drops the least recently used entries; a hit
 * makes an entry the most recently used. */
static void eviction_removes_least_recently_used(void **state)
{
        struct lang_cache c;
        struct lang_cache_meta got;
        char keys[6][SHA256_HEX_LEN + 1], text[8001];
        char *src = fresh_dir("src7"), *dst;

        memset(text, 'x', sizeof(text) - 1);
        text[sizeof(text) - 1] = '\0';
        write_file(src, "prog", text, 0755);
        /* room for four entries of 8 KB and a meta; no scan while storing */
        open_cache("cache7", 4 * 12800, &c);
        for (int i = 0; i < 4; i++) {
                char what[16];
                snprintf(what, sizeof(what), "p%d", i);
                c.stored_bytes = INT64_MIN / 2;
                store_n(&c, src, what, keys[i]);
                set_mtime(&c, keys[i], 1000000 + i);
        }
        assert_true(lang_cache_evict(&c) <= 4 * 12800);
        dst = fresh_dir("dst7");
        assert_int_equal(lang_cache_fetch(&c, keys[0], dst, &got), 1);   /* p0 used now */
        lang_cache_meta_free(&got);
        free(dst);
        c.stored_bytes = INT64_MIN / 2;
        store_n(&c, src, "p4", keys[4]);
        store_n(&c, src, "p5", keys[5]);
        int64_t left = lang_cache_evict(&c);
        assert_true(left > 0 && left <= 4 * 12800 - 4 * 12800 / 10);
        /* p1, p2, p3 (least recently used) went; p0 (just used), p4, p5 stay */
        int expect[6] = { 1, 0, 0, 0, 1, 1 };
        for (int i = 0; i < 6; i++) {
                if (expect[i] < 0)
                        continue;
                dst = fresh_dir("dst7");
                assert_int_equal(lang_cache_fetch(&c, keys[i], dst, &got), expect[i]);
                lang_cache_meta_free(&got);
                free(dst);
        }
        lang_cache_close(&c);
        free(src);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(key_changes_with_each_piece),
                cmocka_unit_test(meta_round_trips_and_rejects_junk),
                cmocka_unit_test(max_bytes_parses_sizes),
                cmocka_unit_test(store_then_fetch_copies_the_files),
                cmocka_unit_test(compile_errors_are_cached_with_their_message),
                cmocka_unit_test(store_refuses_links_and_missing_artifacts),
                cmocka_unit_test(fetch_never_follows_a_symlinked_entry),
                cmocka_unit_test(refuses_directories_open_to_others),
                cmocka_unit_test(parallel_writers_leave_whole_entries),
                cmocka_unit_test(eviction_removes_least_recently_used),
        };
        return cmocka_run_group_tests(tests, unit_tmpdir_setup, unit_tmpdir_teardown);
}
