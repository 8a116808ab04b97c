/* io_runner.py, embedded: how an io suite runs a Python program or checker
 * (io_runner.h). */
#include <stddef.h>

#include "io_runner.h"
#include "io_runner_text.h"

const char *const io_runner_source = io_runner_py;

void io_runner_argv(const char **argv, const char *python)
{
        argv[0] = python;
        argv[1] = "-I";
        argv[2] = "-B";
        argv[3] = "-c";
        argv[4] = io_runner_source;
}
