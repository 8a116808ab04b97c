/* write-bpf: writes sbx's built-in seccomp program (struct sock_filter
 * array, as bwrap --seccomp and the zygote's init message take it) to
 * stdout, for tests/warm/zygote_client.py. */
#include <stdio.h>
#include <string.h>
#include <errno.h>

#include "seccomp_bpf.h"

int main(void)
{
        if (sbx_seccomp_write(1) < 0) {
                fprintf(stderr, "write-bpf: %s\n", strerror(errno));
                return 1;
        }
        return 0;
}
