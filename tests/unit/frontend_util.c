/* util.c, the frontend's shared helpers: whole writes through a pipe, tree
 * removal that never follows a link, FNV-1a against published vectors, the
 * string vector, the JSON field getters and the cleanup attributes. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include <cjson/cJSON.h>

#include "util.h"

static void write_all_writes_more_than_a_pipe_holds(void **state)
{
        size_t len = 1 << 20;           /* a pipe holds 64 KiB: short writes */
        char *data = malloc(len), *back = malloc(len);
        int fds[2];
        size_t got = 0;

        assert_non_null(data);
        assert_non_null(back);
        for (size_t i = 0; i < len; i++)
                data[i] = (char)(i * 7);
        assert_int_equal(pipe(fds), 0);
        pid_t pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
                close(fds[0]);
                _exit(sbx_write_all(fds[1], data, len) == 0 ? 0 : 1);
        }
        close(fds[1]);
        for (ssize_t n; (n = read(fds[0], back + got, len - got)) > 0; )
                got += (size_t)n;
        close(fds[0]);
        int status;
        assert_int_equal(waitpid(pid, &status, 0), pid);
        assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
        assert_int_equal(got, len);
        assert_memory_equal(data, back, len);
        free(data);
        free(back);
}

static void write_all_reports_a_closed_reader(void **state)
{
        int fds[2];

        assert_int_equal(pipe2(fds, O_CLOEXEC), 0);
        close(fds[0]);
        signal(SIGPIPE, SIG_IGN);
        assert_int_equal(sbx_write_all(fds[1], "x", 1), -1);
        assert_int_equal(errno, EPIPE);
        close(fds[1]);
}

static void rm_tree_removes_a_tree_but_not_a_links_target(void **state)
{
        char top[] = "/tmp/sbx-util-XXXXXX", keep[] = "/tmp/sbx-keep-XXXXXX";
        char path[256];

        assert_non_null(mkdtemp(top));
        assert_non_null(mkdtemp(keep));
        snprintf(path, sizeof(path), "%s/a/b/c", top);
        assert_int_equal(sbx_mkdir_p(path), 0);
        assert_int_equal(sbx_mkdir_p(path), 0);         /* there already */
        snprintf(path, sizeof(path), "%s/a/b/c/file", top);
        FILE *f = fopen(path, "w");
        assert_non_null(f);
        fclose(f);
        snprintf(path, sizeof(path), "%s/a/b/c/file/d", top);
        assert_int_equal(sbx_mkdir_p(path), -1);        /* under a file */
        snprintf(path, sizeof(path), "%s/a/link", top);
        assert_int_equal(symlink(keep, path), 0);

        assert_int_equal(sbx_rm_tree(top), 0);
        assert_int_equal(access(top, F_OK), -1);
        assert_int_equal(access(keep, F_OK), 0);
        /* already gone is not an error */
        assert_int_equal(sbx_rm_tree(top), 0);
        assert_int_equal(rmdir(keep), 0);
}

static void fnv1a_matches_published_vectors(void **state)
{
        assert_true(sbx_fnv1a(SBX_FNV1A_INIT, "", 0) == 0xcbf29ce484222325ULL);
        assert_true(sbx_fnv1a(SBX_FNV1A_INIT, "a", 1) == 0xaf63dc4c8601ec8cULL);
        assert_true(sbx_fnv1a(SBX_FNV1A_INIT, "foobar", 6) == 0x85944171f73967e8ULL);
        /* fed in pieces, the same hash */
        assert_true(sbx_fnv1a(sbx_fnv1a(SBX_FNV1A_INIT, "foo", 3), "bar", 3) ==
                    0x85944171f73967e8ULL);
}

static void strvec_stays_null_terminated_and_sorts(void **state)
{
        struct strvec v = { 0 };
        const char *more[] = { "b", "a", NULL };

        for (int i = 0; i < 40; i++)    /* past the first allocation */
                assert_int_equal(strvec_pushf(&v, "z%02d", 39 - i), 0);
        assert_int_equal(strvec_extend(&v, more), 0);
        assert_int_equal(strvec_push(&v, "c"), 0);
        assert_int_equal(v.len, 43);
        assert_null(v.items[v.len]);
        qsort(v.items, v.len, sizeof(char *), sbx_cmp_str);
        assert_string_equal(v.items[0], "a");
        assert_string_equal(v.items[2], "c");
        assert_string_equal(v.items[3], "z00");
        assert_string_equal(strvec_list(&v)[42], "z39");
        strvec_free(&v);
        assert_null(v.items);
        assert_int_equal(v.len, 0);
}

static void json_getters_fall_back_on_wrong_types(void **state)
{
        cJSON *o = cJSON_Parse("{\"s\":\"text\",\"n\":2.5,\"z\":null}");
        char *copy = NULL;

        assert_non_null(o);
        assert_string_equal(json_get_str(o, "s", NULL), "text");
        assert_string_equal(json_get_str(o, "n", "dflt"), "dflt");
        assert_null(json_get_str(o, "missing", NULL));
        assert_null(json_get_str(NULL, "s", NULL));
        assert_float_equal(json_get_num(o, "n", -1), 2.5, 0);
        assert_float_equal(json_get_num(o, "s", -1), -1, 0);

        assert_int_equal(json_dup_str(o, "missing", &copy), 0);
        assert_null(copy);
        assert_int_equal(json_dup_str(o, "z", &copy), -1);
        assert_int_equal(errno, EINVAL);
        assert_int_equal(json_dup_str(o, "s", &copy), 1);
        assert_string_equal(copy, "text");
        free(copy);
        cJSON_Delete(o);
}

static void steal_pointer_leaves_null_behind(void **state)
{
        char *kept;
        {
                auto_free char *p = strdup("mine");
                kept = steal_pointer(&p);
                assert_null(p);
        }
        assert_string_equal(kept, "mine");      /* the cleanup freed nothing */
        free(kept);

        auto_fd fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
        int taken = take_fd(&fd);
        assert_int_equal(fd, -1);
        assert_int_equal(close(taken), 0);
}

static void strv_free_takes_null(void **state)
{
        char **v = calloc(3, sizeof(char *));

        assert_non_null(v);
        v[0] = strdup("a");
        v[1] = strdup("b");
        sbx_strv_free(v);               /* ASan's leak check is the assert */
        sbx_strv_free(NULL);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(write_all_writes_more_than_a_pipe_holds),
                cmocka_unit_test(write_all_reports_a_closed_reader),
                cmocka_unit_test(rm_tree_removes_a_tree_but_not_a_links_target),
                cmocka_unit_test(fnv1a_matches_published_vectors),
                cmocka_unit_test(strvec_stays_null_terminated_and_sorts),
                cmocka_unit_test(json_getters_fall_back_on_wrong_types),
                cmocka_unit_test(steal_pointer_leaves_null_behind),
                cmocka_unit_test(strv_free_takes_null),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
