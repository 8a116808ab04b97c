/* The trusted runner of an io suite's Python programs and checkers
 * (io_runner.py): `python -I -B -c RUNNER FILE ARG...` runs FILE as
 * `python -I -B FILE ARG...` would, in the shape a warm zygote takes (a
 * fresh candidate a test), and the same argv for every test. A warm
 * session's zygotes compile it once (suite_driver_sources). */
#ifndef SBX_IO_RUNNER_H
#define SBX_IO_RUNNER_H

#define IO_RUNNER_ARGC 5               /* PYTHON -I -B -c RUNNER */
#define IO_RUNNER_MAX_ARGS 16           /* with its options, a file and its arguments */

extern const char *const io_runner_source;

/* argv[0..IO_RUNNER_ARGC): PYTHON -I -B -c RUNNER; the caller adds the
 * runner's options (io_runner.py: --compile, --prelude NAME, --call STYLE
 * FN), the file and its arguments, and the NULL. */
void io_runner_argv(const char **argv, const char *python);

#endif
