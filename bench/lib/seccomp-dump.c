/* Writes the BPF program sbx-run hands bwrap (common/seccomp_bpf.c) to
 * stdout, for bench/lib/bwrap-options.sh to give bwrap as sbx-run does. */
#include "seccomp_bpf.h"

int main(void)
{
        return sbx_seccomp_write(1) < 0;
}
