/* sandbox.c's workdir removal: sandbox_rmdtemp removes a run's directory
 * whether it holds only its program, nothing, or more (a weak tier's
 * program wrote there), and never follows a link out of it. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "sandbox.h"
#include "unit_tmpdir.h"

/* A fresh run directory under the group's temp dir, with name in it. */
static void make_run_dir(char *dir, size_t len, const char *name)
{
        snprintf(dir, len, "%s/run-XXXXXX", unit_tmpdir);
        assert_non_null(mkdtemp(dir));
        if (name) {
                char rel[256];

                snprintf(rel, sizeof(rel), "%s/%s", strrchr(dir, '/') + 1, name);
                free(unit_write_tmp(rel, "print(1)\n"));
        }
}

static void rmdtemp_removes_a_dir_holding_only_its_program(void **state)
{
        char dir[256];

        make_run_dir(dir, sizeof(dir), "program.py");
        sandbox_rmdtemp(dir, "program.py");
        assert_int_equal(access(dir, F_OK), -1);
        assert_int_equal(errno, ENOENT);
}

static void rmdtemp_removes_a_dir_whose_program_is_gone(void **state)
{
        char dir[256];

        make_run_dir(dir, sizeof(dir), NULL);
        sandbox_rmdtemp(dir, "program.py");
        assert_int_equal(access(dir, F_OK), -1);
}

static void rmdtemp_walks_what_a_run_left_but_not_a_links_target(void **state)
{
        char dir[256], path[512], keep[300];

        make_run_dir(dir, sizeof(dir), "program.py");
        snprintf(keep, sizeof(keep), "%s/keep", unit_tmpdir);
        assert_int_equal(mkdir(keep, 0700), 0);
        snprintf(path, sizeof(path), "%s/made-here", dir);
        assert_int_equal(mkdir(path, 0700), 0);
        snprintf(path, sizeof(path), "%s/made-here/link", dir);
        assert_int_equal(symlink(keep, path), 0);
        sandbox_rmdtemp(dir, "program.py");
        assert_int_equal(access(dir, F_OK), -1);
        assert_int_equal(access(keep, F_OK), 0);
        /* no name: the walk alone */
        make_run_dir(dir, sizeof(dir), "other.txt");
        sandbox_rmdtemp(dir, NULL);
        assert_int_equal(access(dir, F_OK), -1);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(rmdtemp_removes_a_dir_holding_only_its_program),
                cmocka_unit_test(rmdtemp_removes_a_dir_whose_program_is_gone),
                cmocka_unit_test(rmdtemp_walks_what_a_run_left_but_not_a_links_target),
        };
        return cmocka_run_group_tests(tests, unit_tmpdir_setup, unit_tmpdir_teardown);
}
