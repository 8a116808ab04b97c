/* A session of builds: the sandbox's, the user's compile cache, each
 * language's toolchains found once (their version lines kept by the
 * tool's inode and times), its support readied once. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lang_impl.h"
#include "util.h"
#include "venv.h"               /* venv_cache_root: sbx's one cache directory */

int lang_opts_init(struct lang_opts *o, struct sbx_err *err)
{
        const char *path = getenv("SBX_TOOL_PATH");

        *o = (struct lang_opts){ 0 };
        o->cache_max_bytes = lang_cache_max_bytes(getenv("SBX_COMPILE_CACHE_MAX"), err);
        if (o->cache_max_bytes < 0)
                return -1;
        if (path && path[0]) {
                if (path[0] != '/' || strstr(path, "::") || strstr(path, ":.") ||
                    path[strlen(path) - 1] == ':')
                        return sbx_fail(err, 0, "SBX_TOOL_PATH=%.200s: not a list of absolute "
                                        "directories (DIR:DIR...)", path);
                o->tool_path = path;
        }
        return 0;
}

/* The cache and the tools' memo under it; a cache that cannot be opened
 * (a directory open to others) is an error, not skipped: the user asked
 * for one. */
static int open_cache(struct lang_session *ls, struct sbx_err *err)
{
        auto_free char *root = ls->opts.cache_root ? strdup(ls->opts.cache_root)
                                                   : venv_cache_root();

        if (!ls->opts.cache_max_bytes)
                return 0;
        if (!root)
                return sbx_fail_oom(err, "compile cache");
        if (lang_cache_open(root, ls->opts.cache_max_bytes, &ls->cache, err) < 0)
                return -1;
        ls->cache_on = true;
        if (asprintf(&ls->memo_dir, "%s/../tools", ls->cache.dir) < 0)
                ls->memo_dir = NULL;
        else if (mkdir(ls->memo_dir, 0700) < 0 && errno != EEXIST) {
                free(ls->memo_dir);
                ls->memo_dir = NULL;    /* versions are read each time */
        }
        return 0;
}

int lang_session_open(struct lang_session **out, struct sandbox *sb,
                      const struct lang_opts *o, struct sbx_err *err)
{
        struct lang_session *ls = calloc(1, sizeof(*ls));
        size_t n;

        if (!ls)
                return sbx_fail_oom(err, "lang session");
        lang_rows(&n);
        if (n > LANG_MAX_ROWS) {
                free(ls);
                return sbx_fail_code(err, SBX_EXIT_SANDBOX, 0, "lang: %zu rows, LANG_MAX_ROWS is %d",
                                     n, LANG_MAX_ROWS);
        }
        ls->sb = sb;
        ls->opts = *o;
        if (open_cache(ls, err) < 0) {
                lang_session_close(ls);
                return -1;
        }
        *out = ls;
        return 0;
}

void lang_session_close(struct lang_session *ls)
{
        if (!ls)
                return;
        for (size_t i = 0; i < LANG_MAX_ROWS; i++) {
                lang_tool_free(&ls->tool[i]);
                lang_tool_free(&ls->run_tool[i]);
                lang_support_free(ls->support[i]);
        }
        if (ls->cache_on)
                lang_cache_close(&ls->cache);
        free(ls->memo_dir);
        free(ls);
}

int lang_check(const struct lang_row *row, const char *tool_path, int64_t memory_bytes,
               struct sbx_err *err)
{
        struct lang_tool t;

        if (lang_check_memory(row, memory_bytes, err) < 0)
                return -1;
        const char *tools[] = { row->compile_tool, row->run_tool };
        for (size_t i = 0; i < 2; i++) {
                if (!tools[i])
                        continue;
                if (lang_tool_find(row, tools[i], tool_path, &t, err) < 0)
                        return -1;
                lang_tool_free(&t);
        }
        return 0;
}

static int ready_tools(struct lang_session *ls, const struct lang_row *row, size_t i,
                       struct sbx_err *err)
{
        if (row->compile_tool &&
            lang_tool_resolve_memo(row, row->compile_tool, ls->opts.tool_path, ls->memo_dir,
                                   true, &ls->tool[i], err) < 0)
                return -1;
        if (row->run_tool &&
            lang_tool_find(row, row->run_tool, ls->opts.tool_path, &ls->run_tool[i], err) < 0)
                return -1;
        return 0;
}

int lang_session_prepare(struct lang_session *ls, const struct lang_row *row,
                         struct sbx_err *err)
{
        size_t i = lang_row_index(row);
        const struct lang_support_row *srow;

        if (ls->ready[i])
                return 0;
        if (ready_tools(ls, row, i, err) < 0)
                return -1;
        srow = ls->opts.support_set ? lang_support_find(ls->opts.support_set, row->name) : NULL;
        if (srow && lang_support_prepare(ls, row, srow, &ls->support[i], err) < 0)
                return sbx_err_wrap(err, "language %s, %s's support: ", row->name, srow->set);
        ls->ready[i] = true;
        return 0;
}

