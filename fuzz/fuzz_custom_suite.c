/* Fuzz target: custom suite files (suite_custom_load: frontend/suites/suite_def.c).
 * Input: the suite file's JSON. Property beyond "no crash": every error
 * names the suite file, and a loaded suite has a template. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz_input.h"
#include "suite.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        struct suite_def def;
        struct sbx_err err = { 0 };
        char path[64];
        int fd = fuzz_memfd(data, size, path, sizeof(path));

        memset(&def, 0, sizeof(def));
        if (suite_custom_load(&def, path, &err) < 0) {
                if (!strstr(err.msg, path))
                        abort();
        } else if (!def.template) {
                abort();
        }
        suite_def_free(&def);
        close(fd);
        return 0;
}
