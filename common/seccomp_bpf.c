/* The built-in seccomp program (see seccomp_bpf.h). */
#include <errno.h>
#include <stdint.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/seccomp.h>

#include "seccomp_bpf.h"
#include "seccomp_bpf_insns.h"  /* generated: sbx_seccomp_insns[] */

const struct sock_fprog *sbx_seccomp_program(void)
{
        /* The kernel and bwrap only read the instructions. */
        static const struct sock_fprog program = {
                .len = sizeof(sbx_seccomp_insns) / sizeof(sbx_seccomp_insns[0]),
                .filter = (struct sock_filter *)sbx_seccomp_insns,
        };

        return &program;
}

int sbx_seccomp_install(void)
{
        /* No flags, as libseccomp's seccomp_load() would install it. */
        return syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, sbx_seccomp_program()) == 0 ? 0 : -1;
}

int sbx_seccomp_write(int fd)
{
        const uint8_t *p = (const uint8_t *)sbx_seccomp_insns;
        size_t left = sizeof(sbx_seccomp_insns);
        ssize_t n;

        while (left > 0) {
                n = write(fd, p, left);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n <= 0)
                        return n == 0 ? (errno = EIO, -1) : -1;
                p += n;
                left -= (size_t)n;
        }
        return 0;
}
