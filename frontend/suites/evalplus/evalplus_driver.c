/* The evalplus driver, frontend/suites/evalplus/evalplus_driver.py, embedded at build time
 * (common/embed.sh): fixed code, so it travels on argv as `python -c`. */
#include "evalplus.h"
#include "evalplus_driver_text.h"

const char *const evalplus_driver_source = evalplus_driver_py;
