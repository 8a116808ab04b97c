/* The seccomp policy as the kernel takes it: policy/seccomp.policy,
 * compiled by libseccomp when sbx is built (common/seccomp_gen.c), so
 * neither program compiles a policy, or loads libseccomp, at run time.
 * Library code: nothing here exits. */
#ifndef SBX_SECCOMP_BPF_H
#define SBX_SECCOMP_BPF_H

#include <linux/filter.h>

/* The program; its instructions are read-only data. */
const struct sock_fprog *sbx_seccomp_program(void);

/* Installs it on the calling thread, which must have set no_new_privs.
 * 0, or -1 with errno set. */
int sbx_seccomp_install(void);

/* Writes it to fd whole (for bwrap --seccomp). 0, or -1 with errno set. */
int sbx_seccomp_write(int fd);

#endif
