/* A language's toolchain on this host: found on the tool search path, its
 * real path (and, outside the system directories, the install root the
 * sandbox must bind), and its version line, read by running it
 * unsandboxed: a system binary with fixed arguments and a clean
 * environment, as interp.c queries an interpreter. */
#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "interp.h"             /* path_is_system */
#include "lang.h"
#include "proc.h"

#define VERSION_OUTPUT_MAX 65536

void lang_tool_free(struct lang_tool *tool)
{
        free(tool->path);
        free(tool->real);
        free(tool->root);
        free(tool->version);
        memset(tool, 0, sizeof(*tool));
}

/* Two levels above bin/NAME: /opt/jdk-17/bin/java -> /opt/jdk-17. */
static char *install_root(const char *real)
{
        auto_free char *copy = strdup(real);

        if (!copy)
                return NULL;
        return strdup(dirname(dirname(copy)));
}

/* The environment of the version query: none of the caller's (a
 * JAVA_TOOL_OPTIONS would put its own line first), the row's compile (or
 * run) environment with a home that is not there. */
static int version_env(const struct lang_row *row, struct strvec *env, struct sbx_err *err)
{
        if (strvec_push(env, "PATH=" LANG_DEFAULT_TOOL_PATH) < 0 ||
            strvec_push(env, "LC_ALL=C") < 0)
                return sbx_fail_oom(err, "environment");
        return lang_env_expand(row, row->compile_tool != NULL, "/nonexistent", env, err);
}

static int read_version(const struct lang_row *row, struct lang_tool *tool,
                        struct sbx_err *err)
{
        struct lang_argv_vars vars = { .tool = tool->path, .run_tool = tool->path,
                                       .memory_bytes = -1 };
        struct strvec argv = { 0 }, env = { 0 };
        struct run_output out = { 0 };
        int status = -1;

        if (lang_argv_expand_list(row, row->version_argv, &vars, &argv, err) == 0 &&
            version_env(row, &env, err) == 0)
                status = proc_capture(argv.items, env.items, &out, VERSION_OUTPUT_MAX, err);
        strvec_free(&argv);
        strvec_free(&env);
        if (status < 0) {
                free(out.data);
                return sbx_err_wrap(err, "language %s: ", row->name);
        }
        if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
                tool->version = lang_version_parse(out.data, out.len);
        free(out.data);
        if (!tool->version)
                return sbx_fail_code(err, SBX_EXIT_SANDBOX, 0,
                                     "language %s: %s tells no version (%s exited %d)",
                                     row->name, tool->path, row->version_argv[1],
                                     WIFEXITED(status) ? WEXITSTATUS(status) : -1);
        return 0;
}

int lang_tool_resolve(const struct lang_row *row, const char *name,
                      const char *search_path, struct lang_tool *tool,
                      struct sbx_err *err)
{
        memset(tool, 0, sizeof(*tool));
        if (!search_path)
                search_path = LANG_DEFAULT_TOOL_PATH;
        tool->path = proc_find_exe(name, search_path);
        if (!tool->path)
                return sbx_fail_code(err, SBX_EXIT_SANDBOX, 0,
                                     "language %s: no %s on %s (install its toolchain: "
                                     "docs/languages.md)", row->name, name, search_path);
        tool->real = realpath(tool->path, NULL);
        if (!tool->real) {
                sbx_fail_code(err, SBX_EXIT_SANDBOX, errno, "language %s: %s",
                              row->name, tool->path);
                lang_tool_free(tool);
                return -1;
        }
        if (row->bind_tool_root && !path_is_system(tool->real) &&
            !(tool->root = install_root(tool->real))) {
                lang_tool_free(tool);
                return sbx_fail_oom(err, "language %s", row->name);
        }
        if (row->version_argv && read_version(row, tool, err) < 0) {
                lang_tool_free(tool);
                return -1;
        }
        return 0;
}
