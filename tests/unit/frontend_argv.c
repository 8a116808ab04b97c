/* Each tier's argv, built from the session prefix and the per-run part:
 * what the sandbox is told is what it promises. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "argv.h"
#include "tier_ops.h"

static const struct host_dir merged_usr[] = {
        { "/bin", "usr/bin" }, { "/lib", "usr/lib" }, { "/lib64", NULL },
};
static const char *const binds[] = { "/tmp/cache/venv", "/home/u/.pyenv/versions/3.12", NULL };
static char *const cand[] = { "/tmp/cache/venv/bin/python", "-I", "-B", "/w/program.py", NULL };
static const char *const files[] = { "program.py", NULL };

static struct tier_params params(const char *tool)
{
        struct tier_params p = {
                .tool = tool, .root_dirs = merged_usr, .n_root_dirs = 3,
                .binds = binds, .memory_bytes = 4LL << 30, .fsize_bytes = 64 << 20,
                .tmpfs_bytes = 1 << 20, .seccomp = true,
        };
        return p;
}

static int index_of(const struct strvec *v, const char *s, size_t from)
{
        for (size_t i = from; i < v->len; i++)
                if (strcmp(v->items[i], s) == 0)
                        return (int)i;
        return -1;
}

/* the words a..., in order, consecutive */
static bool has_seq(const struct strvec *v, const char *const *seq)
{
        for (size_t i = 0; i < v->len; i++) {
                size_t k = 0;
                while (seq[k] && i + k < v->len && strcmp(v->items[i + k], seq[k]) == 0)
                        k++;
                if (!seq[k])
                        return true;
        }
        return false;
}
#define HAS(v, ...) has_seq((v), (const char *const[]){ __VA_ARGS__, NULL })

static void bwrap_root_is_allow_listed(void **state)
{
        struct tier_params p = params("/usr/bin/bwrap");
        struct strvec v = { 0 };

        assert_int_equal(tier_build_prefix(TIER_BWRAP, &p, &v), 0);
        assert_false(HAS(&v, "--ro-bind", "/", "/"));
        assert_false(HAS(&v, "--bind", "/", "/"));
        assert_true(HAS(&v, "--unshare-all"));
        assert_true(HAS(&v, "--die-with-parent"));
        assert_true(HAS(&v, "--new-session"));
        assert_true(HAS(&v, "--cap-drop", "ALL"));
        assert_true(HAS(&v, "--ro-bind", "/usr", "/usr"));
        assert_true(HAS(&v, "--ro-bind", "/etc", "/etc"));
        assert_true(HAS(&v, "--symlink", "usr/bin", "/bin"));
        assert_true(HAS(&v, "--ro-bind", "/lib64", "/lib64"));
        /* /proc/sys read-only, which bwrap leaves writable (its own cover
         * needs access(W_OK) on the 0555 directory) */
        assert_true(HAS(&v, "--proc", "/proc", "--ro-bind", "/proc/sys", "/proc/sys"));
        assert_true(HAS(&v, "--dev", "/dev"));
        /* pid 1 is sbx-run-init, not bwrap's own init */
        assert_true(HAS(&v, "--as-pid-1"));
        assert_true(HAS(&v, "--size", "1048576", "--tmpfs", "/tmp"));
        /* bwrap's own tmpfs have no size: the root is ours, capped, first;
         * /dev is read-only, its shm a capped tmpfs mounted after that */
        assert_true(HAS(&v, "--cap-drop", "ALL", "--size", "1048576", "--tmpfs", "/"));
        assert_true(HAS(&v, "--dev", "/dev", "--remount-ro", "/dev",
                        "--size", "1048576", "--tmpfs", "/dev/shm"));
        assert_true(HAS(&v, "--seccomp", "3"));
        assert_true(HAS(&v, "--json-status-fd", "4"));
        /* a venv under /tmp must be bound after the /tmp tmpfs hides it */
        int tmpfs = index_of(&v, "/tmp", 0);
        int venv = index_of(&v, "/tmp/cache/venv", 0);
        assert_true(tmpfs > 0 && venv > tmpfs);
        strvec_free(&v);
}

static void bwrap_private_workdir_is_capped_tmpfs(void **state)
{
        struct tier_params p = params("/usr/bin/bwrap");
        struct strvec prefix = { 0 }, v = { 0 };
        struct run_params rp = {
                .workdir = "/w", .private_workdir = true, .workdir_files = files,
                .timeout_ms = 2500, .cpu_s = 8, .tmpfs_bytes = 4096, .argv = cand,
        };

        assert_int_equal(tier_build_prefix(TIER_BWRAP, &p, &prefix), 0);
        assert_int_equal(tier_build_argv(TIER_BWRAP, &prefix, &rp, &v), 0);
        assert_true(HAS(&v, "--size", "4096", "--tmpfs", "/w"));
        assert_true(HAS(&v, "--ro-bind", "/w/program.py", "/w/program.py"));
        /* the root goes read-only after the last mount */
        assert_true(HAS(&v, "--remount-ro", "/", "--chdir", "/w", "--", RUN_INIT_PATH, RUN_INIT_ARG,
                        "/tmp/cache/venv/bin/python", "-I", "-B", "/w/program.py"));
        assert_false(HAS(&v, "--bind", "/w", "/w"));
        assert_null(v.items[v.len]);
        strvec_free(&prefix);
        strvec_free(&v);
}

/* A --file run's program from CHILD_FD_DATA: copied into the run's
 * tmpfs by bwrap, read-only, the workdir a path of the sandbox alone. */
static void bwrap_workdir_data_is_copied_in(void **state)
{
        struct tier_params p = params("/usr/bin/bwrap");
        struct strvec prefix = { 0 }, v = { 0 };
        struct run_params rp = {
                .workdir = "/w", .private_workdir = true, .workdir_files = files,
                .workdir_data = true, .timeout_ms = 2500, .cpu_s = 8, .tmpfs_bytes = 4096,
                .argv = cand,
        };

        assert_int_equal(tier_build_prefix(TIER_BWRAP, &p, &prefix), 0);
        assert_int_equal(tier_build_argv(TIER_BWRAP, &prefix, &rp, &v), 0);
        assert_true(HAS(&v, "--size", "4096", "--tmpfs", "/w", "--perms", "0644",
                        "--ro-bind-data", "5", "/w/program.py", "--remount-ro", "/"));
        assert_false(HAS(&v, "--ro-bind", "/w/program.py", "/w/program.py"));
        assert_true(HAS(&v, "--chdir", "/w", "--", RUN_INIT_PATH, RUN_INIT_ARG,
                        "/tmp/cache/venv/bin/python", "-I", "-B", "/w/program.py"));
        strvec_free(&prefix);
        strvec_free(&v);
}

static void bwrap_user_workdir_is_bound_rw(void **state)
{
        struct tier_params p = params("/usr/bin/bwrap");
        struct strvec prefix = { 0 }, v = { 0 };
        struct run_params rp = { .workdir = "/home/u/w", .argv = cand, .timeout_ms = 1000 };

        p.seccomp = false;
        assert_int_equal(tier_build_prefix(TIER_BWRAP, &p, &prefix), 0);
        assert_int_equal(tier_build_argv(TIER_BWRAP, &prefix, &rp, &v), 0);
        assert_true(HAS(&v, "--bind", "/home/u/w", "/home/u/w", "--remount-ro", "/"));
        assert_false(HAS(&v, "--seccomp"));
        strvec_free(&prefix);
        strvec_free(&v);
}

/* The zygote's bwrap: its own init (it forks as the tier's pid 1 would),
 * and /proc without binds over it (it unmounts them; a locked bind of the
 * host's /proc/sys it could not). Its runs get sbx-run-init and their own
 * read-only /proc/sys. */
static void bwrap_zygote_has_no_run_init(void **state)
{
        struct tier_params p = params("/usr/bin/bwrap");
        char *const zargv[] = { "/usr/bin/python3", "-I", "-B", "-c", "zygote", NULL };
        struct zygote_params zp = { .argv = zargv, .memory_bytes = -1 };
        struct strvec v = { 0 };

        assert_int_equal(bwrap_zygote(&p, &zp, &v), 0);
        assert_false(HAS(&v, "--as-pid-1"));
        assert_false(HAS(&v, "/proc/sys"));
        assert_false(HAS(&v, RUN_INIT_PATH));
        assert_true(HAS(&v, "--", "/usr/bin/python3", "-I", "-B", "-c", "zygote"));
        strvec_free(&v);
}

static void helper_gets_limits_as_options(void **state)
{
        struct tier_params p = params("/usr/libexec/sbx/sbx-helper");
        struct strvec prefix = { 0 }, v = { 0 };
        char *const env[] = { "PATH=/usr/bin:/bin", "HOME=/w", NULL };
        struct run_params rp = {
                .workdir = "/w", .private_workdir = true, .workdir_files = files,
                .timeout_ms = 2500, .cpu_s = 8, .env = env, .argv = cand,
        };

        p.memory_bytes = -1;
        assert_int_equal(tier_build_prefix(TIER_HELPER, &p, &prefix), 0);
        assert_int_equal(tier_build_argv(TIER_HELPER, &prefix, &rp, &v), 0);
        assert_string_equal(v.items[0], "/usr/libexec/sbx/sbx-helper");
        assert_true(HAS(&v, "--ro-bind", "/tmp/cache/venv"));
        assert_true(HAS(&v, "--memory", "none"));
        assert_true(HAS(&v, "--fsize", "67108864"));
        assert_true(HAS(&v, "--timeout", "2.500"));
        assert_true(HAS(&v, "--cpu", "8"));
        assert_true(HAS(&v, "--private-workdir", "/w"));
        assert_true(HAS(&v, "--ro-bind", "/w/program.py"));
        assert_true(HAS(&v, "--env", "HOME=/w"));
        assert_true(HAS(&v, "--status-fd", "3", "--", "/tmp/cache/venv/bin/python"));
        assert_int_equal(index_of(&v, "--workdir", 0), -1);
        strvec_free(&prefix);
        strvec_free(&v);
}

/* A compile's own limits and support binds (issue 32): the helper takes a
 * limit's last value, so the run's come after the session's; bwrap binds
 * them after the workdir; a run without its own says nothing more. */
static void a_run_s_own_limits_and_binds_follow_the_session_s(void **state)
{
        struct tier_params p = params("/usr/libexec/sbx/sbx-helper");
        struct strvec prefix = { 0 }, v = { 0 };
        const char *const own[] = { "/tmp/s/support", NULL };
        struct run_params rp = {
                .workdir = "/w", .timeout_ms = 30000, .cpu_s = 35, .argv = cand,
                .memory_bytes = 2LL << 30, .fsize_bytes = 256 << 20, .ro_binds = own,
        };

        assert_int_equal(tier_build_prefix(TIER_HELPER, &p, &prefix), 0);
        assert_int_equal(tier_build_argv(TIER_HELPER, &prefix, &rp, &v), 0);
        int session = index_of(&v, "--memory", 0), run = index_of(&v, "--memory", session + 1);
        assert_true(session > 0 && run > session);
        assert_string_equal(v.items[run + 1], "2147483648");
        assert_true(HAS(&v, "--fsize", "268435456"));
        assert_true(HAS(&v, "--ro-bind", "/tmp/s/support"));
        assert_true(index_of(&v, "--ro-bind", 0) < index_of(&v, "--", 0));
        strvec_free(&v);
        rp.memory_bytes = rp.fsize_bytes = 0;
        rp.ro_binds = NULL;
        assert_int_equal(tier_build_argv(TIER_HELPER, &prefix, &rp, &v), 0);
        assert_int_equal(index_of(&v, "--memory", index_of(&v, "--memory", 0) + 1), -1);
        assert_false(HAS(&v, "--ro-bind", "/tmp/s/support"));
        strvec_free(&prefix);
        strvec_free(&v);

        p = params("/usr/bin/bwrap");
        rp.ro_binds = own;
        assert_int_equal(tier_build_prefix(TIER_BWRAP, &p, &prefix), 0);
        assert_int_equal(tier_build_argv(TIER_BWRAP, &prefix, &rp, &v), 0);
        assert_true(HAS(&v, "--bind", "/w", "/w", "--ro-bind", "/tmp/s/support", "/tmp/s/support"));
        strvec_free(&prefix);
        strvec_free(&v);
}

static void weak_tiers(void **state)
{
        struct tier_params p = params("/usr/bin/unshare");
        struct run_params rp = { .workdir = "/w", .argv = cand };
        struct strvec prefix = { 0 }, v = { 0 };

        assert_int_equal(tier_build_prefix(TIER_UNSHARE, &p, &prefix), 0);
        assert_int_equal(tier_build_argv(TIER_UNSHARE, &prefix, &rp, &v), 0);
        assert_true(HAS(&v, "/usr/bin/unshare", "--user", "--map-current-user",
                        "--net", "--", START_SHELL, "-c", START_SCRIPT, START_MARKER,
                        "/tmp/cache/venv/bin/python"));
        strvec_free(&prefix);
        strvec_free(&v);
        assert_int_equal(tier_build_prefix(TIER_UNSHARE_ROOT, &p, &prefix), 0);
        assert_int_equal(tier_build_argv(TIER_UNSHARE_ROOT, &prefix, &rp, &v), 0);
        assert_true(HAS(&v, "/usr/bin/unshare", "-rn", "--", START_SHELL, "-c",
                        START_SCRIPT, START_MARKER, "/tmp/cache/venv/bin/python"));
        strvec_free(&prefix);
        strvec_free(&v);
        assert_int_equal(tier_build_prefix(TIER_RLIMIT, &p, &prefix), 0);
        assert_int_equal(tier_build_argv(TIER_RLIMIT, &prefix, &rp, &v), 0);
        assert_int_equal(v.len, 4);
        assert_string_equal(v.items[0], cand[0]);
        strvec_free(&prefix);
        strvec_free(&v);
}

static void env_is_base_workdir_then_extras(void **state)
{
        const char *const session[] = { "PATH=/usr/bin:/bin", "PYTHONHASHSEED=0",
                                        "HOME=/user-said", "A=1", NULL };
        const char *const extra[] = { "A=2", "RUN=x", NULL };
        struct strvec env = { 0 };

        assert_int_equal(env_build(session, "/w", extra, &env), 0);
        assert_int_equal(env.len, 6);
        assert_true(HAS(&env, "PATH=/usr/bin:/bin"));
        assert_true(HAS(&env, "HOME=/w"));
        assert_true(HAS(&env, "TMPDIR=/w"));
        assert_true(HAS(&env, "A=2"));
        assert_false(HAS(&env, "A=1"));
        assert_false(HAS(&env, "HOME=/user-said"));
        strvec_free(&env);
        char *x = env_expand_venv("P={venv}/bin:{venv}/lib", "/c/v");
        assert_string_equal(x, "P=/c/v/bin:/c/v/lib");
        free(x);
        x = env_expand_venv("P={venv}", NULL);
        assert_string_equal(x, "P=");
        free(x);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(bwrap_root_is_allow_listed),
                cmocka_unit_test(bwrap_private_workdir_is_capped_tmpfs),
                cmocka_unit_test(bwrap_workdir_data_is_copied_in),
                cmocka_unit_test(bwrap_user_workdir_is_bound_rw),
                cmocka_unit_test(bwrap_zygote_has_no_run_init),
                cmocka_unit_test(helper_gets_limits_as_options),
                cmocka_unit_test(a_run_s_own_limits_and_binds_follow_the_session_s),
                cmocka_unit_test(weak_tiers),
                cmocka_unit_test(env_is_base_workdir_then_extras),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
