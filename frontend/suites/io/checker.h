/* A checker program's side of testlib's convention: it runs as
 * `checker input output answer` (in its own sandbox: a checker is code
 * too), its exit code is the verdict (io_verdict_of_checker) and its
 * first line of stderr (testlib writes "wrong answer 2nd words differ
 * ...") the reason. The three files sit in the checker's private workdir
 * under fixed names, so no path of the host reaches its argv.
 *
 * Layer: suites/io. Pure code: the run engine runs the argv. */
#ifndef SBX_IO_CHECKER_H
#define SBX_IO_CHECKER_H

#include <stdbool.h>
#include <stddef.h>

#include "err.h"
#include "util.h"

#define IO_CHECKER_INPUT        "input.txt"
#define IO_CHECKER_OUTPUT       "output.txt"
#define IO_CHECKER_ANSWER       "answer.txt"
#define IO_CHECKER_MSG_BYTES    200

/* The checker's file name in its workdir: "checker.py" for a Python
 * checker (by its .py name), else "checker". */
const char *io_checker_name(const char *checker_path);
/* argv: a Python checker through the io runner (io_runner.h: PYTHON -I
 * -B -c RUNNER checker.py, a warm run's shape) or, not warm, as PYTHON -I
 * -B checker.py; another as DIR/checker (its workdir's path in the
 * sandbox); then the input, output and answer names. */
#define IO_CHECKER_WARM_BYTES   (16LL << 20)    /* its files: more go cold */
int io_checker_argv(const char *checker_path, const char *python, const char *dir,
                    bool warm, struct strvec *argv, struct sbx_err *err);
/* The first non-empty line of stderr (else stdout), cut to
 * IO_CHECKER_MSG_BYTES, into msg. */
void io_checker_message(const char *err_text, size_t err_len, const char *out_text,
                        size_t out_len, char *msg, size_t size);

#endif
