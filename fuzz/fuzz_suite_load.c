/* Fuzz target: loading a suite's problems and samples (suite_load_problems,
 * suite_load_samples, suite_make_canonical: frontend/suites/suite_load.c; JSONL
 * and JSON-array forms, ClassEval's test_classes and predict lists) and
 * the program each sample becomes (suite_build_program, suite_build.c).
 * Input: one byte choosing the suite, then the problems file, FUZZ_SEP,
 * the samples file. Property beyond "no crash": every error names a file. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz_input.h"
#include "suite.h"

static const char *const suite_names[] = { "humaneval", "mbpp", "classeval", "humanevalplus" };

/* Errors name the file (our memfd path) or, for canonical, the problems. */
static void check_error(const struct sbx_err *err)
{
        if (!strstr(err->msg, "/proc/self/fd/") && !strstr(err->msg, "suite "))
                abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        struct suite s;
        struct sbx_err err = { 0 };
        const uint8_t *samples;
        size_t samples_len, problems_len;
        char ppath[64], spath[64];
        int pfd = -1, sfd = -1;

        if (size < 1)
                return 0;
        memset(&s, 0, sizeof(s));
        if (suite_def_load(&s.def, suite_names[data[0] % 4], &err) < 0)
                abort();
        problems_len = fuzz_split(data + 1, size - 1, &samples, &samples_len);
        pfd = fuzz_memfd(data + 1, problems_len, ppath, sizeof(ppath));
        if (suite_load_problems(&s, ppath, &err) < 0) {
                check_error(&err);
        } else if (samples_len == 0) {
                if (suite_make_canonical(&s, &err) < 0)
                        check_error(&err);
        } else {
                sfd = fuzz_memfd(samples, samples_len, spath, sizeof(spath));
                /* After a failure the last sample may be half made: only
                 * a loaded suite is used further. */
                bool loaded = suite_load_samples(&s, spath, &err) == 0;
                if (!loaded)
                        check_error(&err);
                for (size_t i = 0; loaded && i < s.n_samples; i++) {
                        if (s.samples[i].task >= s.n_tasks || !s.samples[i].code)
                                abort();
                        free(suite_build_program(&s, &s.samples[i], &err));
                }
        }
        suite_free(&s);
        close(pfd);
        if (sfd >= 0)
                close(sfd);
        return 0;
}
