/* Fuzz target: the helper's admin configuration parser (config_parse,
 * helper/config.c). The file is root-owned, but a parser bug in a setuid
 * program is still a bug worth finding before an admin's typo does.
 * Input: the file's text. Property beyond "no crash": a refusal names the
 * file. */
#include <stdlib.h>
#include <string.h>

#include "fuzz_input.h"
#include "helper.h"

#define FUZZ_PATH "/etc/sbx/fuzz.conf"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        char *text = fuzz_strndup(data, size);
        struct config cfg;
        char err[SBX_ERRLEN] = "";

        memset(&cfg, 0, sizeof(cfg));
        config_set_builtin(&cfg);
        if (config_parse(&cfg, FUZZ_PATH, text, err, sizeof(err)) < 0 &&
            !strstr(err, FUZZ_PATH))
                abort();
        if (cfg.n_prefixes > SBX_MAX_PREFIXES)
                abort();
        free(text);
        return 0;
}
