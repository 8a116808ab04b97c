/* helper.conf parsing and the ceilings it puts on requests. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "helper.h"

static int parse(struct config *cfg, const char *text, char *err, size_t errlen)
{
        char buf[4096];

        snprintf(buf, sizeof(buf), "%s", text);
        config_set_builtin(cfg);
        return config_parse(cfg, "test.conf", buf, err, errlen);
}

static void test_full_config_parses(void **state)
{
        struct config cfg;
        char err[SBX_ERRLEN] = "";

        assert_int_equal(parse(&cfg, "# comment\n\n  group = sbx  \ndefault_timeout = 2.5\n"
                                     "max_timeout=60\ndefault_memory = none\nmax_memory = none\n"
                                     "default_tmpfs_size = 10M\nro_bind_prefix = /opt\n"
                                     "ro_bind_prefix = /usr/local\nallow_network = no\r\n",
                               err, sizeof(err)), 0);
        assert_string_equal(cfg.group, "sbx");
        assert_int_equal(cfg.deflt[LIM_TIMEOUT], 2500);
        assert_int_equal(cfg.max[LIM_TIMEOUT], 60000);
        assert_int_equal(cfg.deflt[LIM_MEMORY], SBX_LIMIT_NONE);
        assert_int_equal(cfg.deflt[LIM_TMPFS], 10 << 20);
        assert_int_equal(cfg.n_prefixes, 2);
        assert_string_equal(cfg.prefixes[1], "/usr/local");
        assert_string_equal(cfg.pids_cgroup, "");
        assert_string_equal(cfg.memory_cgroup, "");
}

/* Each bad config is refused with "test.conf:LINE:" naming the line. */
static void expect_error_at(const char *text, int line, const char *words)
{
        struct config cfg;
        char err[SBX_ERRLEN] = "", want[64];

        assert_int_equal(parse(&cfg, text, err, sizeof(err)), -1);
        snprintf(want, sizeof(want), line ? "test.conf:%d:" : "test.conf", line);
        if (!strstr(err, want) || !strstr(err, words))
                fail_msg("error \"%s\" lacks \"%s\" / \"%s\"", err, want, words);
}

static void test_bad_lines_name_file_and_line(void **state)
{
        expect_error_at("group = sbx\nthis is not key value\n", 2, "key = value");
        expect_error_at("group = sbx\n# ok\nfrobnicate = 1\n", 3, "unknown key");
        expect_error_at("group = sbx\ndefault_nproc = lots\n", 2, "bad value");
        expect_error_at("group = sbx\ndefault_nproc = -1\n", 2, "bad value");
        expect_error_at("group = sbx\ndefault_nproc = none\n", 2, "bad value");
        expect_error_at("group = sbx\nmax_fsize = 1X\n", 2, "bad value");
        expect_error_at("group = sbx\nallow_network = yes\n", 2, "allow_network");
        expect_error_at("group = sbx\nro_bind_prefix = /\n", 2, "ro_bind_prefix");
        expect_error_at("group = sbx\nro_bind_prefix = opt\n", 2, "ro_bind_prefix");
        expect_error_at("group = sbx\nro_bind_prefix = /opt/../root\n", 2, "ro_bind_prefix");
        expect_error_at("group =\n", 1, "group");
}

static void test_inconsistent_configs_are_refused(void **state)
{
        expect_error_at("default_timeout = 5\n", 0, "group");
        expect_error_at("group = sbx\ndefault_nproc = 100\nmax_nproc = 10\n", 0, "default_nproc");
        expect_error_at("group = sbx\ndefault_memory = none\n", 0, "default_memory");
}

/* "group = g\nKEY = VALUE\n" parsed: 0, or -1 with the error checked to
 * name line 2 and the key. */
static int parse_cgroup_key(struct config *cfg, const char *key, const char *value, bool want_ok)
{
        char text[400], err[SBX_ERRLEN] = "";

        snprintf(text, sizeof(text), "group = g\n%s = %s\n", key, value);
        if (!want_ok) {
                expect_error_at(text, 2, key);
                return -1;
        }
        assert_int_equal(parse(cfg, text, err, sizeof(err)), 0);
        return 0;
}

/* A cgroup directory the admin delegated; the helper writes there as root,
 * so nothing but a clean path below /sys/fs/cgroup/ is accepted. */
static void check_cgroup_key(const char *key)
{
        const char *bad[] = { "sys/fs/cgroup/sbx", "/sys/fs/cgroup", "/sys/fs/cgroup/", "/sys/fs/cgroupx/sbx",
                              "/tmp/sbx", "/sys/fs/cgroup/../../etc", "/sys/fs/cgroup/sbx/..", "/sys/fs/cgroup/a..b",
                              "/sys/fs/cgroup/./sbx", "/sys/fs/cgroup//sbx", "" };
        char long_path[300];
        struct config cfg;
        const char *slot = key[0] == 'p' ? cfg.pids_cgroup : cfg.memory_cgroup;

        parse_cgroup_key(&cfg, key, "/sys/fs/cgroup/sbx", true);
        assert_string_equal(slot, "/sys/fs/cgroup/sbx");
        parse_cgroup_key(&cfg, key, "/sys/fs/cgroup/a/b.c", true);
        assert_string_equal(slot, "/sys/fs/cgroup/a/b.c");
        for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
                parse_cgroup_key(&cfg, key, bad[i], false);
        /* 256 bytes and more: too long for the helper's buffer. */
        memset(long_path, 'a', sizeof(long_path));
        memcpy(long_path, "/sys/fs/cgroup/", 15);
        long_path[256] = '\0';
        parse_cgroup_key(&cfg, key, long_path, false);
        long_path[255] = '\0';
        parse_cgroup_key(&cfg, key, long_path, true);
        assert_int_equal(strlen(slot), 255);
}

static void test_pids_cgroup(void **state)
{
        check_cgroup_key("pids_cgroup");
}

static void test_memory_cgroup(void **state)
{
        struct config cfg;
        char err[SBX_ERRLEN] = "";

        check_cgroup_key("memory_cgroup");
        /* Either key alone sets only itself. */
        assert_int_equal(parse(&cfg, "group = g\nmemory_cgroup = /sys/fs/cgroup/m\n", err, sizeof(err)), 0);
        assert_string_equal(cfg.pids_cgroup, "");
        /* A process is in one cgroup: both keys must name the run's one parent. */
        assert_int_equal(parse(&cfg, "group = g\nmemory_cgroup = /sys/fs/cgroup/sbx\npids_cgroup = /sys/fs/cgroup/sbx\n",
                               err, sizeof(err)), 0);
        assert_string_equal(cfg.memory_cgroup, cfg.pids_cgroup);
        expect_error_at("group = g\nmemory_cgroup = /sys/fs/cgroup/m\npids_cgroup = /sys/fs/cgroup/p\n", 0,
                        "memory_cgroup and pids_cgroup must name the same directory");
}

static void test_defaults_fill_and_ceilings_refuse(void **state)
{
        struct config cfg;
        struct request rq;
        char err[SBX_ERRLEN] = "";

        assert_int_equal(parse(&cfg, "group = g\ndefault_nproc = 7\nmax_nproc = 9\n", err, sizeof(err)), 0);
        memset(&rq, 0, sizeof(rq));
        assert_int_equal(config_apply_limits(&cfg, &rq, err, sizeof(err)), 0);
        assert_int_equal(rq.limit[LIM_NPROC], 7);
        rq.limit_given[LIM_NPROC] = true;
        rq.limit[LIM_NPROC] = 9;
        assert_int_equal(config_apply_limits(&cfg, &rq, err, sizeof(err)), 0);
        rq.limit[LIM_NPROC] = 10;
        assert_int_equal(config_apply_limits(&cfg, &rq, err, sizeof(err)), -1);
        assert_non_null(strstr(err, "--nproc"));
        /* "none" is above every finite ceiling. */
        rq.limit[LIM_NPROC] = 9;
        rq.limit_given[LIM_MEMORY] = true;
        rq.limit[LIM_MEMORY] = SBX_LIMIT_NONE;
        assert_int_equal(config_apply_limits(&cfg, &rq, err, sizeof(err)), -1);
        assert_non_null(strstr(err, "--memory"));
}

/* --zygote's --timeout is its life: max_zygote_life bounds it (built in: an
 * hour), max_timeout every other run's, the zygote's --cpu max_cpu still. */
static void test_zygote_life_ceiling(void **state)
{
        struct config cfg;
        struct request rq;
        char err[SBX_ERRLEN] = "";

        assert_int_equal(parse(&cfg, "group = g\nmax_timeout = 120\nmax_cpu = 60\n", err, sizeof(err)), 0);
        assert_int_equal(cfg.max_zygote_life, 3600 * 1000);
        memset(&rq, 0, sizeof(rq));
        rq.limit_given[LIM_TIMEOUT] = true;
        rq.limit[LIM_TIMEOUT] = 600 * 1000;
        assert_int_equal(config_apply_limits(&cfg, &rq, err, sizeof(err)), -1);
        assert_null(strstr(err, "max_zygote_life"));
        rq.zygote = true;
        assert_int_equal(config_apply_limits(&cfg, &rq, err, sizeof(err)), 0);
        rq.limit[LIM_TIMEOUT] = 3600 * 1000 + 1;
        assert_int_equal(config_apply_limits(&cfg, &rq, err, sizeof(err)), -1);
        assert_non_null(strstr(err, "max_zygote_life"));
        rq.limit[LIM_TIMEOUT] = 600 * 1000;
        rq.limit_given[LIM_CPU] = true;
        rq.limit[LIM_CPU] = 61 * 1000;
        assert_int_equal(config_apply_limits(&cfg, &rq, err, sizeof(err)), -1);
        assert_non_null(strstr(err, "--cpu"));

        assert_int_equal(parse(&cfg, "group = g\nmax_timeout = 120\nmax_zygote_life = 90.5\n", err, sizeof(err)), 0);
        assert_int_equal(cfg.max_zygote_life, 90500);
        memset(&rq, 0, sizeof(rq));
        rq.zygote = rq.limit_given[LIM_TIMEOUT] = true;
        rq.limit[LIM_TIMEOUT] = 100 * 1000;     /* within max_timeout, above the zygote's */
        assert_int_equal(config_apply_limits(&cfg, &rq, err, sizeof(err)), -1);
        expect_error_at("group = g\nmax_zygote_life = soon\n", 2, "bad value");
}

static void test_path_helpers(void **state)
{
        assert_true(path_is_clean("/"));
        assert_true(path_is_clean("/a/b"));
        assert_false(path_is_clean("/a/"));
        assert_false(path_is_clean("a"));
        assert_false(path_is_clean("/a/./b"));
        assert_false(path_is_clean("/.."));
        assert_true(path_is_clean("/a/..b"));
        assert_true(path_is_under("/opt/x", "/opt"));
        assert_true(path_is_under("/opt", "/opt"));
        assert_false(path_is_under("/optx", "/opt"));
        assert_false(path_is_under("/op", "/opt"));
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_full_config_parses),
                cmocka_unit_test(test_bad_lines_name_file_and_line),
                cmocka_unit_test(test_inconsistent_configs_are_refused),
                cmocka_unit_test(test_pids_cgroup),
                cmocka_unit_test(test_memory_cgroup),
                cmocka_unit_test(test_defaults_fill_and_ceilings_refuse),
                cmocka_unit_test(test_zygote_life_ceiling),
                cmocka_unit_test(test_path_helpers),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
