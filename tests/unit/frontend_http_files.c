/* The files of a /run_code request in the run's workdir
 * (frontend/serve/http/http_files.c): written only below it, parents made,
 * nothing replaced; fetched back only from below it, and never through a
 * symlink the program left (to a file, or as a directory on the way), a
 * hard link, a FIFO (which would block the server) or past the size cap. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "http.h"
#include "unit_tmpdir.h"

static int open_tmpdir(const char *sub)
{
        char path[256];

        snprintf(path, sizeof(path), "%s/%s", unit_tmpdir, sub);
        assert_int_equal(mkdir(path, 0700), 0);
        int fd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
        assert_true(fd >= 0);
        return fd;
}

static void files_are_written_below_the_workdir(void **state)
{
        struct http_file f[] = {
                { .name = "a.txt", .data = (unsigned char *)"A", .len = 1 },
                { .name = "d1/d2/b.bin", .data = (unsigned char *)"B\0B", .len = 3 },
        };
        struct sbx_err err = { 0 };
        int dir = open_tmpdir("write");
        char buf[8];

        assert_int_equal(http_files_write(dir, f, 2, &err), 0);
        int fd = openat(dir, "d1/d2/b.bin", O_RDONLY);
        assert_int_equal(read(fd, buf, sizeof(buf)), 3);
        assert_memory_equal(buf, "B\0B", 3);
        close(fd);
        /* nothing is replaced: the same name again fails, saying which */
        assert_int_equal(http_files_write(dir, f, 1, &err), -1);
        assert_non_null(strstr(err.msg, "a.txt"));
        close(dir);
}

static void a_symlink_in_the_workdir_is_not_written_through(void **state)
{
        struct http_file f = { .name = "link/x", .data = (unsigned char *)"X", .len = 1 };
        struct http_file g = { .name = "flink", .data = (unsigned char *)"X", .len = 1 };
        struct sbx_err err = { 0 };
        int dir = open_tmpdir("wlink");
        char target[256];

        snprintf(target, sizeof(target), "%s/outside", unit_tmpdir);
        assert_int_equal(mkdir(target, 0700), 0);
        assert_int_equal(symlinkat(target, dir, "link"), 0);
        assert_int_equal(http_files_write(dir, &f, 1, &err), -1);
        strcat(target, "/x");
        assert_int_equal(access(target, F_OK), -1);
        assert_int_equal(symlinkat(target, dir, "flink"), 0);
        assert_int_equal(http_files_write(dir, &g, 1, &err), -1);
        assert_int_equal(access(target, F_OK), -1);
        close(dir);
}

static char *fetch_one(int dir, const char *name, size_t max, size_t *len)
{
        char *names[] = { (char *)name };
        struct http_file *out;
        size_t n;
        char *message = NULL;

        assert_int_equal(http_files_fetch(dir, names, 1, max, &out, &n, &message), 0);
        if (n == 0) {
                assert_non_null(message);
                assert_non_null(strstr(message, name));
                free(out);
                return message;         /* why it was left out */
        }
        assert_null(message);
        assert_int_equal(n, 1);
        assert_string_equal(out[0].name, name);
        *len = out[0].len;
        char *data = (char *)out[0].data;
        free(out[0].name);
        free(out);
        return data;
}

static void fetch_reads_plain_files_only(void **state)
{
        int dir = open_tmpdir("fetch");
        char outside[256], *got;
        size_t len = 0;

        snprintf(outside, sizeof(outside), "%s/secret", unit_tmpdir);
        free(unit_write_tmp("secret", "the user's secret"));
        assert_int_equal(mkdirat(dir, "sub", 0700), 0);
        int fd = openat(dir, "sub/ok.txt", O_WRONLY | O_CREAT, 0600);
        assert_int_equal(write(fd, "fine", 4), 4);
        close(fd);
        got = fetch_one(dir, "sub/ok.txt", 100, &len);
        assert_int_equal(len, 4);
        assert_memory_equal(got, "fine", 4);
        free(got);
        /* a symlink to a file outside, and one as a directory on the way */
        assert_int_equal(symlinkat(outside, dir, "s"), 0);
        got = fetch_one(dir, "s", 100, &len);
        assert_non_null(strstr(got, "symlink"));
        free(got);
        assert_int_equal(symlinkat(unit_tmpdir, dir, "up"), 0);
        got = fetch_one(dir, "up/secret", 100, &len);
        assert_non_null(strstr(got, "not a plain directory path"));
        free(got);
        /* a hard link to the user's file */
        assert_int_equal(linkat(AT_FDCWD, outside, dir, "hard", 0), 0);
        got = fetch_one(dir, "hard", 100, &len);
        assert_non_null(strstr(got, "more than one link"));
        free(got);
        /* a FIFO would block an open without O_NONBLOCK */
        assert_int_equal(mkfifoat(dir, "fifo", 0600), 0);
        got = fetch_one(dir, "fifo", 100, &len);
        assert_non_null(strstr(got, "not a regular file"));
        free(got);
        got = fetch_one(dir, "sub", 100, &len);
        assert_non_null(strstr(got, "not a regular file"));
        free(got);
        got = fetch_one(dir, "missing", 100, &len);
        assert_non_null(strstr(got, "not found"));
        free(got);
        got = fetch_one(dir, "sub/ok.txt", 3, &len);
        assert_non_null(strstr(got, "size limit"));
        free(got);
        close(dir);
}

static void fetch_counts_the_cap_over_all_files(void **state)
{
        int dir = open_tmpdir("cap");
        char *names[] = { "a", "b", "c" };
        struct http_file *out;
        size_t n;
        char *message = NULL;

        for (int i = 0; i < 3; i++) {
                int fd = openat(dir, names[i], O_WRONLY | O_CREAT, 0600);
                assert_int_equal(write(fd, "12345", 5), 5);
                close(fd);
        }
        assert_int_equal(http_files_fetch(dir, names, 3, 12, &out, &n, &message), 0);
        assert_int_equal(n, 2);
        assert_non_null(strstr(message, "'c'"));
        http_files_free(out, n);
        free(message);
        close(dir);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(files_are_written_below_the_workdir),
                cmocka_unit_test(a_symlink_in_the_workdir_is_not_written_through),
                cmocka_unit_test(fetch_reads_plain_files_only),
                cmocka_unit_test(fetch_counts_the_cap_over_all_files),
        };
        alarm(60);      /* an open that blocks (a FIFO without O_NONBLOCK) fails, not hangs */
        return cmocka_run_group_tests(tests, unit_tmpdir_setup, unit_tmpdir_teardown);
}
