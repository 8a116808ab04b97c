/* Run results: status names, llama-eval's `Sandbox` one-line summary, freeing. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run_result.h"

#define SUMMARY_MAX_CHARS 400

void run_result_set_detail(struct run_result *res, const char *prefix, const char *text)
{
        size_t len = strcspn(text, "\n");

        snprintf(res->detail, sizeof(res->detail), "%s%.*s", prefix, (int)len, text);
}

/* The last non-empty stderr line: why a tier's own setup failed. */
const char *run_result_stderr_reason(const struct run_result *res)
{
        const char *s = res->err.tail;
        const char *end = s + res->err.tail_len;

        while (end > s && (end[-1] == '\n' || end[-1] == ' '))
                end--;
        const char *start = end;
        while (start > s && start[-1] != '\n')
                start--;
        return start < end ? start : "no message";
}

void run_result_tool_failed(struct run_result *res, const char *what, int sig)
{
        char prefix[64];

        res->status = RUN_ERROR;
        if (sig) {
                snprintf(res->detail, sizeof(res->detail), "%s: killed by %s", what,
                         strsignal(sig));
                return;
        }
        snprintf(prefix, sizeof(prefix), "%s: ", what);
        run_result_set_detail(res, prefix, run_result_stderr_reason(res));
}

const char *run_status_name(enum run_status s)
{
        switch (s) {
        case RUN_OK: return "ok";
        case RUN_FAILED: return "failed";
        case RUN_TIMEOUT: return "timeout";
        case RUN_ERROR: return "error";
        }
        return "error";
}

void run_result_free(struct run_result *res)
{
        free(res->out.data);
        free(res->err.data);
        res->out.data = res->err.data = NULL;
}

/* The last non-empty line of buf[0..len), whitespace-trimmed; NULL if none.
 * The tail is used rather than the capped head: the error is at the end. */
static char *last_line(const char *buf, size_t len)
{
        size_t end = len;

        while (end > 0) {
                while (end > 0 && (buf[end - 1] == '\n' || buf[end - 1] == '\r' ||
                                   buf[end - 1] == ' ' || buf[end - 1] == '\t'))
                        end--;
                size_t start = end;
                while (start > 0 && buf[start - 1] != '\n')
                        start--;
                while (start < end && (buf[start] == ' ' || buf[start] == '\t'))
                        start++;
                if (start < end) {
                        size_t n = end - start;
                        if (n > SUMMARY_MAX_CHARS)
                                n = SUMMARY_MAX_CHARS;
                        return strndup(buf + start, n);
                }
                end = start;
        }
        return NULL;
}

char *run_result_summary(const struct run_result *res)
{
        char *line;
        char buf[64];

        if (res->status == RUN_OK)
                return strdup("ok");
        if (res->status == RUN_TIMEOUT)
                return strdup("timeout");
        if (res->status == RUN_ERROR && res->detail[0]) {
                char *s = NULL;
                if (asprintf(&s, "error: %.*s", SUMMARY_MAX_CHARS - 7,
                             res->detail) < 0)
                        return NULL;
                return s;
        }
        line = last_line(res->err.tail, res->err.tail_len);
        if (!line)
                line = last_line(res->out.tail, res->out.tail_len);
        if (line)
                return line;
        snprintf(buf, sizeof(buf), "failed (rc=%d)", res->returncode);
        return strdup(buf);
}
