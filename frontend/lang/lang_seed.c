/* A support's seed (lang_impl.h): built once per user in the sandbox, as
 * a compile is (a fresh directory of sbx's own, the row's compile env,
 * the compile limits but a longer time), kept in the compile cache under a
 * key of everything it depends on, and copied into the session's support
 * directory. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lang_impl.h"
#include "util.h"

#define SEED_TIME_MS 120000     /* building crates or a module's packages */

/* {tool}, {compile_tool} and {support} filled. */
static int seed_argv(const struct lang_seed *seed, const char *tool, const char *compile_tool,
                     const char *support, struct strvec *out)
{
        static const char *const marks[] = { "{tool}", "{compile_tool}", "{support}" };
        const char *values[] = { tool, compile_tool, support };

        for (const char *const *a = seed->argv; *a; a++) {
                const char *at = NULL;
                size_t m;
                for (m = 0; m < 3 && !(at = strstr(*a, marks[m])); m++)
                        ;
                int rc = at ? strvec_pushf(out, "%.*s%s%s", (int)(at - *a), *a, values[m],
                                           at + strlen(marks[m]))
                            : strvec_push(out, *a);
                if (rc < 0)
                        return -1;
        }
        return 0;
}

/* The names in dir, sorted, into the key (Debian's crate sources). */
static void key_dir_names(struct lang_cache_key *key, const char *dir)
{
        struct strvec names = { 0 };
        DIR *d = opendir(dir);
        struct dirent *e;

        while (d && (e = readdir(d)))
                if (e->d_name[0] != '.')
                        strvec_push(&names, e->d_name);
        if (d)
                closedir(d);
        if (names.len)
                qsort(names.items, names.len, sizeof(char *), sbx_cmp_str);
        lang_cache_key_add_list(key, "key_dir", strvec_list(&names));
        strvec_free(&names);
}

/* Moves the files of from matching pattern into to: regular files of
 * ours, not linked elsewhere. Their count. */
static int move_matching(const char *from, const char *to, const char *pattern)
{
        DIR *d = opendir(from);
        struct dirent *e;
        int n = 0;

        while (d && (e = readdir(d))) {
                char src[4096], dst[4096];
                struct stat st;
                if (!lang_artifact_match(pattern, e->d_name) ||
                    fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
                    !S_ISREG(st.st_mode) || st.st_uid != getuid() || st.st_nlink != 1)
                        continue;
                snprintf(src, sizeof(src), "%s/%s", from, e->d_name);
                snprintf(dst, sizeof(dst), "%s/%s", to, e->d_name);
                if (rename(src, dst) == 0)
                        n++;
        }
        if (d)
                closedir(d);
        return n;
}

/* The seed's run: its directory, argv and env; its own longer time, within
 * what the helper allows. */
static int seed_build(struct lang_session *ls, const struct lang_row *row,
                      struct lang_support *s, const char *tool, const char *dir,
                      struct run_result *res, struct sbx_err *err)
{
        const struct lang_seed *seed = s->row->seed;
        size_t i = lang_row_index(row);
        struct strvec argv = { 0 }, env = { 0 };
        auto_free char *tmp = NULL;
        int64_t t = SEED_TIME_MS, cpu;
        int rc = -1;

        if (seed->source && lang_write_source(dir, seed->source_name, seed->source,
                                       strlen(seed->source), err) < 0)
                return -1;
        if (!(tmp = lang_compile_tmp(ls, dir)))
                return sbx_fail_code(err, SBX_EXIT_SANDBOX, errno, "%s/.tmp", dir);
        if (seed_argv(seed, tool, ls->tool[i].path, s->dir, &argv) < 0 ||
            lang_compile_env(row, s, tmp, dir, seed->source_name, &env, err) < 0) {
                sbx_fail_oom(err, "seed");
                goto out;
        }
        lang_clamp_time(ls, &t, &cpu);
        const char *binds[] = { s->dir, NULL };
        struct run_spec spec = {
                .argv = argv.items, .workdir = dir, .env_extra = strvec_list(&env),
                .timeout_ms = t, .cpu_limit_s = cpu,
                .memory_bytes = row->compile_limits.memory_bytes,
                .fsize_bytes = row->compile_limits.fsize_bytes,
                .max_output_bytes = row->compile_limits.output_bytes,
                .ro_binds = binds,
        };
        rc = lang_sync_run(ls, &spec, res, err);
out:
        strvec_free(&argv);
        strvec_free(&env);
        return rc;
}

/* Built now: into the cache (when there is one) and the support dir. */
static int seed_make(struct lang_session *ls, const struct lang_row *row,
                     struct lang_support *s, const char *tool, const char *key,
                     struct sbx_err *err)
{
        const struct lang_seed *seed = s->row->seed;
        auto_free char *dir = sandbox_mkdtemp(ls->sb, err);
        struct run_result res = { 0 };
        struct sbx_err serr = { 0 };
        int rc = -1;

        if (!dir || seed_build(ls, row, s, tool, dir, &res, err) < 0)
                goto out;
        if (res.status != RUN_OK) {
                auto_free char *tail = lang_output_tail(&res, 600);
                sbx_fail_code(err, SBX_EXIT_SANDBOX, 0, "building its seed failed (%s%s%s)",
                              run_status_name(res.status), tail ? "): " : "", tail ? tail : ")");
                goto out;
        }
        struct lang_cache_meta meta = { .status = LANG_CACHE_COMPILED };
        if (ls->cache_on)       /* only an optimization: built again next time */
                (void)lang_cache_store(&ls->cache, key, dir, seed->artifact, &meta, &serr);
        if (move_matching(dir, s->dir, seed->artifact) < 1) {
                sbx_fail_code(err, SBX_EXIT_SANDBOX, 0, "its seed left no %s", seed->artifact);
                goto out;
        }
        rc = 0;
out:
        run_result_free(&res);
        if (dir)
                sbx_rm_tree(dir);
        return rc;
}

/* The key: the support's so far, the seed's recipe, the toolchains'
 * versions, the row's compile env. */
static void seed_key(const struct lang_session *ls, const struct lang_row *row,
                     const struct lang_seed *seed, const char *const *support_env,
                     const struct lang_tool *tool,
                     const struct lang_cache_key *support_key, char out[SHA256_HEX_LEN + 1])
{
        struct lang_cache_key k = *support_key;
        const struct lang_tool *cc = &ls->tool[lang_row_index(row)];

        lang_cache_key_add_str(&k, "seed source", seed->source);
        lang_cache_key_add_list(&k, "seed argv", seed->argv);
        lang_cache_key_add_str(&k, "seed artifact", seed->artifact);
        lang_cache_key_add_str(&k, "tool", tool->real);
        lang_cache_key_add_str(&k, "tool version", tool->version);
        lang_cache_key_add_str(&k, "compiler", cc->real);
        lang_cache_key_add_str(&k, "compiler version", cc->version);
        lang_cache_key_add_list(&k, "compile env", row->compile_env);
        lang_cache_key_add_list(&k, "support env", support_env);
        if (seed->key_dir)
                key_dir_names(&k, seed->key_dir);
        lang_cache_key_hex(&k, out);
}

int lang_seed_ready(struct lang_session *ls, const struct lang_row *row,
                    struct lang_support *s, struct lang_cache_key *key, struct sbx_err *err)
{
        const struct lang_seed *seed = s->row->seed;
        struct lang_tool own = { 0 };
        const struct lang_tool *tool = &ls->tool[lang_row_index(row)];
        struct lang_cache_meta meta;
        char hex[SHA256_HEX_LEN + 1];
        int rc = -1;

        if (seed->tool) {
                struct lang_row as_row = *row;
                as_row.version_argv = seed->version_argv;
                if (lang_tool_resolve_memo(&as_row, seed->tool, ls->opts.tool_path, ls->memo_dir,
                                           true, &own, err) < 0)
                        return -1;
                tool = &own;
        }
        seed_key(ls, row, seed, s->row->compile_env, tool, key, hex);
        lang_cache_key_add_str(key, "seed", hex);
        if (ls->cache_on && lang_cache_fetch(&ls->cache, hex, s->dir, &meta) == 1) {
                rc = meta.status == LANG_CACHE_COMPILED ? 0 : -1;
                lang_cache_meta_free(&meta);
        }
        if (rc < 0 && seed_make(ls, row, s, tool->path, hex, err) < 0)
                goto out;
        rc = 0;
out:
        lang_tool_free(&own);
        return rc;
}
