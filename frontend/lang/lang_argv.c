/* A row's templates made concrete: the compile and run argv with their
 * placeholders filled, the environment, a JVM's heap under the memory
 * limit, the version line of a toolchain's answer. Pure. */
#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lang.h"

#define MIB ((int64_t)1 << 20)

int lang_check_memory(const struct lang_row *row, int64_t memory_bytes, struct sbx_err *err)
{
        if (memory_bytes >= 0 && memory_bytes < row->min_memory_bytes)
                return sbx_fail(err, 0, "%s needs --memory %" PRId64 "M or more (its runtime "
                                "reserves that much address space; %" PRId64 "M given)",
                                row->name, row->min_memory_bytes / MIB, memory_bytes / MIB);
        return 0;
}

int64_t lang_heap_bytes(const struct lang_row *row, int64_t memory_bytes, struct sbx_err *err)
{
        if (!row->heap_reserve_bytes)
                return 0;
        if (memory_bytes < 0)
                memory_bytes = row->run_limits.memory_bytes;
        if (lang_check_memory(row, memory_bytes, err) < 0)
                return -1;
        int64_t heap = memory_bytes - row->heap_reserve_bytes;
        return heap < row->heap_min_bytes ? row->heap_min_bytes : heap;
}

static int push_list(struct strvec *out, const char *const *items, struct sbx_err *err)
{
        if (items && strvec_extend(out, items) < 0)
                return sbx_fail_oom(err, "argv");
        return 0;
}

/* The value of one {name} in *value: 0, or -1 with err for an unknown
 * name, a missing value or a memory limit below the row's floor. */
static int scalar(const char *name, size_t len, const struct lang_row *row,
                  const struct lang_argv_vars *v, char *num, size_t numlen,
                  const char **value, struct sbx_err *err)
{
#define IS(s) (len == sizeof(s) - 1 && !memcmp(name, s, len))
        *value = NULL;
        if (IS("tool"))
                *value = v->tool;
        else if (IS("run_tool"))
                *value = v->run_tool;
        else if (IS("src"))
                *value = v->src ? v->src : row->source_name;
        else if (IS("class")) {
                const char *src = v->src ? v->src : row->source_name;
                const char *dot = strrchr(src, '.');
                snprintf(num, numlen, "%.*s", (int)(dot ? dot - src : (long)strlen(src)), src);
                *value = num;
        } else if (IS("out"))
                *value = v->out;
        else if (IS("dir"))
                *value = v->dir;
        else if (IS("timeout_s")) {
                snprintf(num, numlen, "%" PRId64, (v->timeout_ms + 999) / 1000);
                *value = num;
        } else if (IS("heap_mb")) {
                int64_t heap = lang_heap_bytes(row, v->memory_bytes, err);
                if (heap < 0)
                        return -1;
                snprintf(num, numlen, "%" PRId64, heap / MIB);
                *value = heap ? num : NULL;
        } else
                return sbx_fail(err, 0, "language %s: unknown placeholder {%.*s}",
                                row->name, (int)len, name);
#undef IS
        if (!*value)
                return sbx_fail(err, 0, "language %s: no value for {%.*s}", row->name,
                                (int)len, name);
        return 0;
}

/* One template item with its {name}s replaced. */
static int expand_item(const char *item, const struct lang_row *row,
                       const struct lang_argv_vars *v, struct strvec *out, struct sbx_err *err)
{
        char buf[4096], num[256];
        size_t at = 0;

        for (const char *p = item; *p;) {
                const char *value = p, *end = *p == '{' ? strchr(p, '}') : NULL;
                size_t vlen = 1, n = 1;
                if (end) {
                        if (scalar(p + 1, (size_t)(end - p - 1), row, v, num, sizeof(num),
                                   &value, err) < 0)
                                return -1;
                        vlen = strlen(value);
                        n = (size_t)(end - p + 1);
                }
                if (at + vlen >= sizeof(buf))
                        return sbx_fail(err, E2BIG, "language %s: argument too long", row->name);
                memcpy(buf + at, value, vlen);
                at += vlen;
                p += n;
        }
        buf[at] = '\0';
        return strvec_push(out, buf) < 0 ? sbx_fail_oom(err, "argv") : 0;
}

int lang_argv_expand(const struct lang_row *row, bool compile,
                     const struct lang_argv_vars *vars, struct strvec *out,
                     struct sbx_err *err)
{
        const char *const *tmpl = compile ? row->compile_argv : row->run_argv;

        if (!tmpl)
                return sbx_fail(err, 0, "language %s is not compiled", row->name);
        return lang_argv_expand_list(row, tmpl, vars, out, err);
}

int lang_argv_expand_list(const struct lang_row *row, const char *const *tmpl,
                          const struct lang_argv_vars *vars, struct strvec *out,
                          struct sbx_err *err)
{
        for (; *tmpl; tmpl++) {
                int rc;
                if (!strcmp(*tmpl, "{flags}"))
                        rc = push_list(out, vars->flags ? vars->flags : row->default_flags, err);
                else if (!strcmp(*tmpl, "{libs}"))
                        rc = push_list(out, vars->libs, err);
                else if (!strcmp(*tmpl, "{extra}"))
                        rc = push_list(out, vars->extra, err);
                else
                        rc = expand_item(*tmpl, row, vars, out, err);
                if (rc < 0)
                        return -1;
        }
        return 0;
}

int lang_env_expand(const struct lang_row *row, bool compile, const char *home,
                    struct strvec *out, struct sbx_err *err)
{
        const char *const *env = compile ? row->compile_env : row->run_env;
        const char *mark = "{home}";

        for (; env && *env; env++) {
                const char *at = strstr(*env, mark);
                int rc = at ? strvec_pushf(out, "%.*s%s%s", (int)(at - *env), *env, home,
                                           at + strlen(mark))
                            : strvec_push(out, *env);
                if (rc < 0)
                        return sbx_fail_oom(err, "environment");
        }
        return 0;
}

char *lang_version_parse(const char *output, size_t len)
{
        size_t i = 0;

        while (i < len) {
                size_t start = i, end;
                while (i < len && output[i] != '\n')
                        i++;
                end = i++;
                while (start < end && (output[start] == ' ' || output[start] == '\t'))
                        start++;
                while (end > start && (output[end - 1] == ' ' || output[end - 1] == '\t' ||
                                       output[end - 1] == '\r'))
                        end--;
                if (end == start)
                        continue;
                if (end - start > LANG_VERSION_MAX)
                        end = start + LANG_VERSION_MAX;
                char *line = strndup(output + start, end - start);
                for (char *c = line; c && *c; c++)
                        if ((unsigned char)*c < 0x20 || *c == 0x7f)
                                *c = '?';
                return line;
        }
        return NULL;
}

bool lang_source_name_ok(const struct lang_row *row, const char *name)
{
        const char *ending = strrchr(row->source_name, '.');
        size_t n = strlen(name), e = ending ? strlen(ending) : 0;

        if (!ending || n <= e || n > 200 || strcmp(name + n - e, ending) ||
            !(isalpha((unsigned char)name[0]) || name[0] == '_'))
                return false;
        for (size_t i = 1; i < n - e; i++)
                if (!isalnum((unsigned char)name[i]) && name[i] != '_')
                        return false;
        return true;
}

bool lang_artifact_match(const char *pattern, const char *name)
{
        /* no path, no hidden file, no "." or "..": a name in one directory */
        if (!name[0] || name[0] == '.' || strchr(name, '/'))
                return false;
        return fnmatch(pattern, name, FNM_PERIOD) == 0;
}
