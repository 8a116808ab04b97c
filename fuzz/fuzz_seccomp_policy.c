/* Fuzz target: the seccomp policy parser and compiler
 * (sbx_seccomp_compile, common/seccomp_policy.c). Input: policy text.
 * Property beyond "no crash": a refused policy always says why. */
#include <stdlib.h>

#include "fuzz_input.h"
#include "seccomp_policy.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        char *text = fuzz_strndup(data, size);
        scmp_filter_ctx ctx = NULL;
        char errbuf[512] = "";
        int enosys_above;

        if (sbx_seccomp_compile(text, &ctx, &enosys_above, errbuf, sizeof(errbuf)) == 0)
                seccomp_release(ctx);
        else if (errbuf[0] == '\0')
                abort();        /* refused without a message */
        free(text);
        return 0;
}
