/* --file in another language than Python (--language, or the file's
 * ending): the program is built in the sandbox (from the compile cache
 * when it was built before), then run; a compile error is reported as
 * such (the compiler's message, exit 1). Python keeps run_cli.c's path. */
#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "lang.h"
#include "lang_run.h"
#include "limit.h"
#include "output.h"
#include "results.h"
#include "trace.h"

#define PROGRAM_MAX_BYTES (64LL << 20)

/* The row for --file: --language's, else the file's ending's. NULL: Python
 * (its row, no ending sbx knows: run_cli.c's path as before); NULL with
 * err set: an unknown --language. */
const struct lang_row *cli_file_language(const struct cli_opts *opts, struct sbx_err *err)
{
        const struct lang_row *row = NULL;
        char names[256];

        if (opts->language) {
                row = lang_find(opts->language);
                if (!row) {
                        lang_names(names, sizeof(names));
                        sbx_fail(err, 0, "--language %s: unknown (one of %s)", opts->language, names);
                        return NULL;
                }
        } else {
                row = lang_for_file(opts->file);
        }
        return row && strcmp(row->name, "python") ? row : NULL;
}

static char *read_program(const char *path, size_t *len, struct sbx_err *err)
{
        auto_fd fd = open(path, O_RDONLY | O_CLOEXEC);
        size_t cap = 65536, n = 0;
        char *buf = malloc(cap + 1);
        ssize_t got;

        if (fd < 0 || !buf) {
                free(buf);
                sbx_fail(err, fd < 0 ? errno : ENOMEM, "--file %s", path);
                return NULL;
        }
        while ((got = read(fd, buf + n, cap - n)) != 0) {
                if (got < 0 && errno == EINTR)
                        continue;
                if (got < 0 || (long long)(n += (size_t)got) > PROGRAM_MAX_BYTES) {
                        free(buf);
                        sbx_fail(err, got < 0 ? errno : 0, "--file %s%s", path,
                                 got < 0 ? "" : ": larger than 64 MiB");
                        return NULL;
                }
                char *bigger = n == cap ? realloc(buf, (cap *= 2) + 1) : buf;
                if (!bigger) {
                        free(buf);
                        sbx_fail_oom(err, "--file %s", path);
                        return NULL;
                }
                buf = bigger;
        }
        buf[n] = '\0';
        *len = n;
        return buf;
}

static void print_json(const struct lang_row *row, const struct lang_build_info *b,
                       const struct run_result *res, const char *summary)
{
        cJSON *o = run_result_to_json(res, summary);
        char *text;

        if (!o)
                return;
        cJSON_AddStringToObject(o, "language", row->name);
        cJSON_AddItemToObject(o, "compile", lang_build_json(b));
        if ((text = cJSON_PrintUnformatted(o)))
                printf("%s\n", text);
        free(text);
        cJSON_Delete(o);
}

static void print_text(const struct lang_row *row, const struct lang_build_info *b,
                       const struct run_result *res, const char *summary, bool quiet)
{
        bool compile_error = b->status == LANG_BUILD_COMPILE_ERROR;

        if (!compile_error && res->out.len)
                fwrite(res->out.data, 1, res->out.len, stdout);
        fflush(stdout);
        if (compile_error && b->message)
                fprintf(stderr, "%s\n", b->message);
        else if (res->err.len)
                fwrite(res->err.data, 1, res->err.len, stderr);
        if (quiet)
                return;
        auto_free char *safe = output_terminal_escape(summary, strlen(summary), false);
        if (compile_error)
                fprintf(stderr, "sbx-run: compile_error: %s [%s, tier %s, compile %.3f s]\n",
                        b->detail, row->name, tier_name(res->tier), b->duration_s);
        else
                fprintf(stderr, "sbx-run: %s [%s, %s, tier %s, compile %.3f s, run %.3f s]\n",
                        safe ? safe : "?", row->name, lang_build_name(b->status),
                        tier_name(res->tier), b->duration_s, res->duration_s);
}

static int build_and_report(struct cli_opts *opts, const struct lang_row *row,
                            struct lang_session *ls, const char *text, size_t len)
{
        auto_free char *copy = strdup(opts->file);
        struct lang_program p = {
                .row = row, .source = text, .source_len = len,
                .source_name = copy ? basename(copy) : NULL,
                .timeout_ms = opts->timeout_ms, .cpu_limit_s = opts->cpu_limit_s,
                .compile_timeout_ms = opts->compile_timeout_ms,
                .stdin_path = opts->stdin_path,
        };
        struct lang_build_info b;
        struct run_result res;
        struct sbx_err err = { 0 };

        if (cli_catch_stop_signals(true) < 0 ||
            lang_build_and_run(ls, &p, cli_stop_flag(), &b, &res, &err) < 0) {
                fprintf(stderr, "sbx-run: %s\n", err.msg[0] ? err.msg : "signal handlers");
                return err.exit_code ? err.exit_code : SBX_EXIT_SANDBOX;
        }
        if (*cli_stop_flag()) {
                run_result_free(&res);
                lang_build_info_free(&b);
                return 128 + *cli_stop_flag();
        }
        auto_free char *summary = run_result_summary(&res);
        if (opts->json)
                print_json(row, &b, &res, summary ? summary : "");
        else
                print_text(row, &b, &res, summary ? summary : "", opts->sb.quiet);
        int rc = b.status == LANG_BUILD_SANDBOX_ERROR || res.status == RUN_ERROR ? SBX_EXIT_SANDBOX
               : b.status == LANG_BUILD_COMPILE_ERROR || res.status != RUN_OK ? SBX_EXIT_FAILED
               : SBX_EXIT_OK;
        run_result_free(&res);
        lang_build_info_free(&b);
        return rc;
}

int run_cli_lang(struct cli_opts *opts, const struct lang_row *row)
{
        struct sbx_err err = { 0 };
        struct lang_opts lo;
        struct sandbox *sb = NULL;
        struct lang_session *ls = NULL;
        auto_free char *text = NULL;
        size_t len = 0;
        int rc = SBX_EXIT_USAGE;

        if (opts->repeat || opts->print_argv) {
                fprintf(stderr, "sbx-run: --repeat and --print-argv run Python only "
                        "(%s is built first)\n", row->name);
                return SBX_EXIT_USAGE;
        }
        /* the toolchain and the memory floor before anything is set up */
        if (lang_opts_init(&lo, &err) < 0 ||
            lang_check(row, lo.tool_path, opts->sb.memory_bytes ? opts->sb.memory_bytes
                                                                  : limit_default(LIMIT_MEMORY),
                       &err) < 0 ||
            !(text = read_program(opts->file, &len, &err)))
                goto fail;
        /* a compile and a run: the tier is probed first, not proved by a run */
        opts->sb.probe_by_first_run = false;
        if (sandbox_open(&sb, &opts->sb, &err) < 0 || lang_session_open(&ls, sb, &lo, &err) < 0)
                goto fail;
        sbx_trace("lang session");
        rc = build_and_report(opts, row, ls, text, len);
        lang_session_close(ls);
        sandbox_close(sb);
        return cli_reraise_stop(rc);
fail:
        fprintf(stderr, "sbx-run: %s\n", err.msg);
        lang_session_close(ls);
        sandbox_close(sb);
        return err.exit_code ? err.exit_code : SBX_EXIT_USAGE;
}
