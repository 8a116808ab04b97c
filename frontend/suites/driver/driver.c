/* The trusted Python driver (fixed code, so it may travel on argv as
 * "python -I -B -c DRIVER"). Suite runs: it writes a begin marker with a nonce of its
 * own to a copy of the real stdout, runs the candidate, and writes an end
 * marker only when the candidate returned (or raised: then its message).
 * Modes: "script PROGRAM" runs it as __main__ (as runpy.run_path would), as plain
 * `python3 PROGRAM` would; "classeval PROGRAM LIMIT_S MODULE CLASS..."
 * imports it as MODULE and runs each unittest class with its own timer
 * (LIMIT_S of CPU, 2 x LIMIT_S + 2 wall), as ClassEval's harness does with
 * func_timeout(5). docs/suites.md describes the markers and their limits.
 * Single runs (--serve's, the HTTP server's, a warm --file): "plain
 * PROGRAM path|isolated" runs PROGRAM as `python PROGRAM` would, without
 * markers, in the shape a zygote runs warm.
 * The driver is frontend/suites/driver/driver.py, embedded at build time (common/embed.sh). */
#include "driver.h"
#include "driver_text.h"

const char *const driver_source = driver_py;

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

void driver_argv_init(struct driver_argv *a, const char *python)
{
        a->argc = 0;
        a->argv[a->argc++] = python;
        a->argv[a->argc++] = "-I";
        a->argv[a->argc++] = "-B";
        a->argv[a->argc++] = "-c";
        a->argv[a->argc++] = driver_source;
        a->argv[a->argc] = NULL;
}

void driver_argv_script(struct driver_argv *a, const char *program_path)
{
        a->argv[a->argc++] = "script";
        a->argv[a->argc++] = program_path;
        a->argv[a->argc] = NULL;
}

void driver_argv_plain(struct driver_argv *a, const char *program_path, bool dir_on_path)
{
        a->argv[a->argc++] = "plain";
        a->argv[a->argc++] = program_path;
        a->argv[a->argc++] = dir_on_path ? "path" : "isolated";
        a->argv[a->argc] = NULL;
}

int driver_argv_classeval(struct driver_argv *a, const char *program_path, int64_t timeout_ms,
                          const char *module, char *const *classes, size_t n_classes,
                          struct sbx_err *err)
{
        if (a->argc + 4 + n_classes > DRIVER_MAX_ARGS)
                return sbx_fail(err, 0, "%zu test classes: at most %d", n_classes,
                                CLASSEVAL_MAX_TEST_CLASSES);
        snprintf(a->limit_s, sizeof(a->limit_s), "%.3f", (double)timeout_ms / 1000);
        snprintf(a->module, sizeof(a->module), "%s", module);
        for (char *p = a->module; *p; p++)
                if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
                      (*p >= '0' && *p <= '9') || *p == '_'))
                        *p = '_';
        if (a->module[0] >= '0' && a->module[0] <= '9')
                a->module[0] = '_';
        a->argv[a->argc++] = "classeval";
        a->argv[a->argc++] = program_path;
        a->argv[a->argc++] = a->limit_s;
        a->argv[a->argc++] = a->module;
        for (size_t i = 0; i < n_classes; i++)
                a->argv[a->argc++] = classes[i];
        a->argv[a->argc] = NULL;
        return 0;
}

#define BEGIN_TAG "@@SBX-BEGIN "
#define END_TAG "\n@@SBX-END "
#define MARK_CLOSE "@@\n"

static bool is_hex(const char *p, size_t n)
{
        for (size_t i = 0; i < n; i++)
                if (!strchr("0123456789abcdef", p[i]) || !p[i])
                        return false;
        return true;
}

/* The last occurrence of needle in [hay, hay + n). */
static const char *last_mem(const char *hay, size_t n, const char *needle)
{
        size_t k = strlen(needle);
        const char *found = NULL, *p = hay;

        while (n >= k) {
                const char *hit = memmem(p, n, needle, k);
                if (!hit)
                        break;
                found = hit;
                n -= (size_t)(hit - p) + 1;
                p = hit + 1;
        }
        return found;
}

static bool begin_nonce(const struct run_output *out, char nonce[DRIVER_NONCE_HEX + 1])
{
        size_t tag = strlen(BEGIN_TAG), need = tag + DRIVER_NONCE_HEX + strlen(MARK_CLOSE);

        if (!out->data || out->len < need || memcmp(out->data, BEGIN_TAG, tag) ||
            !is_hex(out->data + tag, DRIVER_NONCE_HEX) ||
            memcmp(out->data + tag + DRIVER_NONCE_HEX, MARK_CLOSE, strlen(MARK_CLOSE)))
                return false;
        memcpy(nonce, out->data + tag, DRIVER_NONCE_HEX);
        nonce[DRIVER_NONCE_HEX] = '\0';
        return true;
}

void driver_parse(const struct run_output *out, struct driver_report *rep)
{
        char nonce[DRIVER_NONCE_HEX + 1];
        const char *tail = out->tail, *end = out->tail + out->tail_len;

        rep->outcome = DRIVER_NONE;
        rep->payload = NULL;
        if (!begin_nonce(out, nonce))
                return;
        const char *m = last_mem(tail, out->tail_len, END_TAG);
        size_t close = strlen(MARK_CLOSE);
        if (!m || out->tail_len < close || memcmp(end - close, MARK_CLOSE, close))
                return;
        const char *p = m + strlen(END_TAG);
        if ((size_t)(end - p) < DRIVER_NONCE_HEX + 1 ||
            memcmp(p, nonce, DRIVER_NONCE_HEX) || p[DRIVER_NONCE_HEX] != ' ')
                return;
        p += DRIVER_NONCE_HEX + 1;
        const char *sp = memchr(p, ' ', (size_t)(end - p));
        if (!sp)
                return;
        cJSON *payload = cJSON_ParseWithLength(sp + 1, (size_t)(end - close - sp - 1));
        if (!payload)
                return;
        size_t kind_len = (size_t)(sp - p);
        if (kind_len == 2 && !memcmp(p, "ok", 2) && cJSON_IsNull(payload))
                rep->outcome = DRIVER_RETURNED;
        else if (kind_len == 3 && !memcmp(p, "exc", 3) && cJSON_IsObject(payload))
                rep->outcome = DRIVER_RAISED;
        else if (kind_len == 7 && !memcmp(p, "classes", 7) && cJSON_IsObject(payload))
                rep->outcome = DRIVER_CLASSES;
        if (rep->outcome == DRIVER_RAISED || rep->outcome == DRIVER_CLASSES)
                rep->payload = payload;
        else
                cJSON_Delete(payload);
}

void driver_report_free(struct driver_report *rep)
{
        cJSON_Delete(rep->payload);
        rep->payload = NULL;
}
