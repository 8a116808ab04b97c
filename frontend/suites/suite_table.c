/* The built-in suites, one row each (struct suite_row, suite_ops.h). A new
 * built-in suite is a row here, and a file for its kind when none of the
 * kinds below builds and scores its programs. */
#include <stdio.h>
#include <string.h>

#include "evalplus.h"
#include "io_runner.h"
#include "suite_ops.h"

/* Shipped problem files: HumanEval+ in the OriginFmt form, whose plus tests
 * are asserts (no ground truth to compute first); MBPP+ in evalplus's
 * native form (--suite mbppplus reads that and MbppPlus-OriginFmt, whose
 * timeout is the row's). */
/* HumanEval-X's six languages, one row each (--suite humaneval-x-cpp): its
 * file for the language, built and run by lang/'s row (a Go test file as
 * `go test -c` builds it, Rust's as `cargo test` does) with its support
 * files (suites/humaneval-x: the Go module, js-md5, Cargo.toml). */
#define HUMANEVALX(LANG, ROW) { .name = "humaneval-x-" LANG, \
        .ops = &suite_humanevalx_ops, .timeout_ms = HUMANEVALX_TIMEOUT_MS, \
        .shipped_problems = "humaneval-x/humaneval_" LANG ".jsonl.gz", \
        .language = ROW, .support_set = "humaneval-x" }

static const struct suite_row rows[] = {
        { .name = "humaneval", .ops = &suite_humaneval_ops,
          .timeout_ms = HUMANEVAL_TIMEOUT_MS,
          .shipped_problems = "humaneval/HumanEval.jsonl.gz" },
        { .name = "humanevalplus", .ops = &suite_humaneval_ops,
          .timeout_ms = HUMANEVALPLUS_TIMEOUT_MS,
          .shipped_problems = "humanevalplus/HumanEvalPlus-OriginFmt.jsonl.gz" },
        { .name = "mbpp", .ops = &suite_mbpp_ops,
          .timeout_ms = MBPP_TIMEOUT_MS,
          .shipped_problems = "mbpp/mbpp.jsonl" },
        { .name = "mbppplus", .ops = &suite_mbpp_ops,
          .timeout_ms = MBPPPLUS_TIMEOUT_MS,
          .shipped_problems = "mbppplus/MbppPlus.jsonl.gz", .evalplus_only = true },
        { .name = "classeval", .ops = &suite_classeval_ops,
          .timeout_ms = CLASSEVAL_CLASS_TIMEOUT_MS,
          .not_shipped = "ClassEval's data is CC BY-NC 4.0",
          .get_problems = "get ClassEval_data.json from "
                          "https://github.com/FudanSELab/ClassEval (data/)" },
        HUMANEVALX("python", "python"),
        HUMANEVALX("cpp", "cpp"),
        HUMANEVALX("java", "java"),
        HUMANEVALX("js", "js"),
        HUMANEVALX("go", "go-test"),
        HUMANEVALX("rust", "rust-test"),
        /* Input/output problems (suites/io/): each problem's own limit per
         * test where it has one, else the row's, its harness's (docs/suites.md). */
        { .name = "codecontests", .ops = &suite_io_ops,
          .timeout_ms = SANDBOXFUSION_TEST_TIMEOUT_MS,
          .shipped_problems = "codecontests/code_eval_code_contests.jsonl" },
        { .name = "livecodebench", .ops = &suite_io_ops,
          .timeout_ms = LIVECODEBENCH_TEST_TIMEOUT_MS,
          .not_shipped = "LiveCodeBench's dataset card names no licence sbx may ship it under",
          .get_problems = "get its test*.jsonl from huggingface.co/datasets/livecodebench/"
                          "code_generation_lite" },
        { .name = "apps", .ops = &suite_io_ops, .timeout_ms = APPS_TEST_TIMEOUT_MS,
          .not_shipped = "APPS's 10,000 problems are not in sbx's repository",
          .get_problems = "get test.jsonl from huggingface.co/datasets/codeparrot/apps" },
        { .name = "taco", .ops = &suite_io_ops, .timeout_ms = APPS_TEST_TIMEOUT_MS,
          .not_shipped = "TACO's problems are not in sbx's repository",
          .get_problems = "get its data from huggingface.co/datasets/BAAI/TACO" },
        { .name = "io", .ops = &suite_io_ops, .timeout_ms = IO_TEST_TIMEOUT_MS,
          .get_problems = "pass an input/output problem file: sbx's own form or any of "
                          "codecontests, apps, taco, livecodebench (docs/suites.md)" },
};

#define N_ROWS (sizeof(rows) / sizeof(rows[0]))

const struct suite_row *suite_row_find(const char *name)
{
        for (size_t i = 0; i < N_ROWS; i++)
                if (!strcmp(rows[i].name, name))
                        return &rows[i];
        return NULL;
}

void suite_row_names(char *buf, size_t len)
{
        size_t at = 0;

        buf[0] = '\0';
        for (size_t i = 0; i < N_ROWS && at < len; i++) {
                int n = snprintf(buf + at, len - at, "%s%s", i ? ", " : "", rows[i].name);
                at += n > 0 ? (size_t)n : 0;
        }
}

const char *const *suite_driver_sources(void)
{
        static const char *sources[4];

        sources[0] = driver_source;
        sources[1] = evalplus_driver_source;
        sources[2] = io_runner_source;
        return sources;
}
