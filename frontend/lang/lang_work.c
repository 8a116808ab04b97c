/* What a build's steps share: a row's index, a compile's directory (its
 * source, its links to the support's files, its private temp dir) and
 * env, a blocking run, the tail of a run's output. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lang_impl.h"
#include "util.h"

size_t lang_row_index(const struct lang_row *row)
{
        size_t n;
        const struct lang_row *rows = lang_rows(&n);

        return (size_t)(row - rows);
}

int lang_write_source(const char *dir, const char *name, const char *text, size_t len,
                      struct sbx_err *err)
{
        auto_free char *path = NULL;

        if (asprintf(&path, "%s/%s", dir, name) < 0)
                return sbx_fail_oom(err, "source");
        auto_fd fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
        if (fd < 0 || sbx_write_all(fd, text, len) < 0)
                return sbx_fail_code(err, SBX_EXIT_SANDBOX, errno, "%s", path);
        return 0;
}

int lang_compile_env(const struct lang_row *row, const struct lang_support *s,
                     const char *tmp, const char *dir, const char *src, struct strvec *env,
                     struct sbx_err *err)
{
        if (lang_env_expand(row, true, tmp, env, err) < 0)
                return -1;
        if (strvec_pushf(env, "HOME=%s", tmp) < 0 || strvec_pushf(env, "TMPDIR=%s", tmp) < 0)
                return sbx_fail_oom(err, "compile env");
        if (s && (strvec_extend(env, strvec_list(&s->compile_env)) < 0 ||
                  strvec_pushf(env, "SBX_SUPPORT=%s", s->dir) < 0 ||
                  strvec_pushf(env, "SBX_WORK=%s", dir) < 0 ||
                  strvec_pushf(env, "SBX_SRC=%s", src ? src : "") < 0))
                return sbx_fail_oom(err, "compile env");
        return 0;
}

void lang_clamp_time(struct lang_session *ls, int64_t *timeout_ms, int64_t *cpu_s)
{
        double max_t = 0, max_cpu = 0;

        *cpu_s = (*timeout_ms + 999) / 1000 + DEFAULT_CPU_SLACK_S;
        if (sandbox_helper_ceilings(ls->sb, &max_t, &max_cpu) != 1)
                return;
        if (max_t > 0 && *timeout_ms > (int64_t)(max_t * 1000))
                *timeout_ms = (int64_t)(max_t * 1000);
        if (max_cpu > 0 && *cpu_s > (int64_t)max_cpu)
                *cpu_s = (int64_t)max_cpu;
}

char *lang_compile_tmp(struct lang_session *ls, const char *dir)
{
        char *tmp = NULL;

        if (sandbox_private_tmp(ls->sb))
                return strdup("/tmp");
        if (asprintf(&tmp, "%s/.tmp", dir) < 0)
                return NULL;
        if (mkdir(tmp, 0700) < 0) {
                free(tmp);
                return NULL;
        }
        return tmp;
}

int lang_sync_run(struct lang_session *ls, const struct run_spec *spec,
                  struct run_result *res, struct sbx_err *err)
{
        memset(res, 0, sizeof(*res));
        return sbx_run_sync(ls->sb, spec, NULL, res, err);
}

char *lang_output_tail(const struct run_result *res, size_t max)
{
        const struct run_output *o = res->err.total ? &res->err : &res->out;
        const char *end = o->tail + o->tail_len, *p = o->tail;

        while (end > p && (end[-1] == '\n' || end[-1] == ' '))
                end--;
        if (end == p)
                return NULL;
        if ((size_t)(end - p) > max) {
                p = end - max;
                const char *nl = memchr(p, '\n', (size_t)(end - p));
                if (nl && nl + 1 < end)
                        p = nl + 1;
        }
        return strndup(p, (size_t)(end - p));
}
