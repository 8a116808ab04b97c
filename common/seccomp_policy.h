/* The seccomp policy compiler: policy/seccomp.policy, embedded at build
 * time, compiled with libseccomp. Build time only (seccomp_gen.c makes the
 * BPF program both programs carry, seccomp_bpf.h) and the tests.
 * Library code: errors go to errbuf, nothing here exits. */
#ifndef SBX_SECCOMP_POLICY_H
#define SBX_SECCOMP_POLICY_H

#include <stddef.h>
#include <seccomp.h>

#include <linux/filter.h>

/* Compiles policy text into a new filter (default allow, non-native
 * architectures killed); *enosys_above is the syscall number of its
 * "enosys above" line, or -1. Returns 0, or -1 with "line N: why" in
 * errbuf. */
int sbx_seccomp_compile(const char *text, scmp_filter_ctx *out, int *enosys_above,
                        char *errbuf, size_t errlen);

/* The BPF program for policy text: the "enosys above" check, then the
 * filter libseccomp makes. Writes at most max instructions to insns, their
 * count to *len. Returns 0, or -1 with why in errbuf. */
int sbx_seccomp_export(const char *text, struct sock_filter *insns, size_t max, size_t *len,
                       char *errbuf, size_t errlen);

/* The same for the policy embedded in the binary. */
int sbx_seccomp_build(struct sock_filter *insns, size_t max, size_t *len,
                      char *errbuf, size_t errlen);

#endif
