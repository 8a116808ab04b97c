/* The checker's argv and its message (checker.h). */
#include <stdio.h>
#include <string.h>

#include "checker.h"
#include "io_runner.h"

static bool is_python(const char *path)
{
        size_t n = strlen(path);

        return n > 3 && strcmp(path + n - 3, ".py") == 0;
}

const char *io_checker_name(const char *checker_path)
{
        return is_python(checker_path) ? "checker.py" : "checker";
}

int io_checker_argv(const char *checker_path, const char *python, const char *dir,
                    bool warm, struct strvec *argv, struct sbx_err *err)
{
        const char *run[IO_RUNNER_ARGC + 2];
        int rc = 0;

        if (is_python(checker_path) && !warm) {
                rc = strvec_push(argv, python) < 0 || strvec_push(argv, "-I") < 0 ||
                     strvec_push(argv, "-B") < 0 || strvec_push(argv, "checker.py") < 0 ? -1 : 0;
        } else if (is_python(checker_path)) {
                io_runner_argv(run, python);
                run[IO_RUNNER_ARGC] = "checker.py";
                run[IO_RUNNER_ARGC + 1] = NULL;
                rc = strvec_extend(argv, run);
        } else {
                rc = strvec_pushf(argv, "%s/checker", dir);
        }
        if (rc < 0 || strvec_push(argv, IO_CHECKER_INPUT) < 0 ||
            strvec_push(argv, IO_CHECKER_OUTPUT) < 0 || strvec_push(argv, IO_CHECKER_ANSWER) < 0) {
                strvec_free(argv);
                return sbx_fail_oom(err, "checker argv");
        }
        return 0;
}

/* The first line with something in it, without its end. */
static bool first_line(const char *t, size_t n, char *msg, size_t size)
{
        size_t i = 0;

        while (i < n) {
                size_t start = i;
                while (i < n && t[i] != '\n')
                        i++;
                size_t len = i - start;
                while (len > 0 && (t[start + len - 1] == '\r' || t[start + len - 1] == ' '))
                        len--;
                if (len > 0) {
                        if (len > IO_CHECKER_MSG_BYTES)
                                len = IO_CHECKER_MSG_BYTES;
                        snprintf(msg, size, "%.*s", (int)len, t + start);
                        return true;
                }
                i++;
        }
        return false;
}

void io_checker_message(const char *err_text, size_t err_len, const char *out_text,
                        size_t out_len, char *msg, size_t size)
{
        if (size == 0)
                return;
        msg[0] = '\0';
        if (!(err_text && first_line(err_text, err_len, msg, size)) && out_text)
                first_line(out_text, out_len, msg, size);
}
