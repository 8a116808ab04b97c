/* sbx-run-init (frontend/warm/zygote/init/) and the warm candidate's
 * confinement (frontend/warm/zygote/candidate/), which sbx-run carries as
 * bytes (run_init_elf.S), as sealed memfds: they reach inside every tier's
 * sandbox where no installed path need be. sbx-run-init is each warm run's
 * B (warm_init.c hands it to the zygotes) and, with --exec, a cold bwrap
 * run's pid 1 (sandbox/tier_tool.c readies it for sandbox/tiers/
 * tier_bwrap.c's argv; exec'd through CHILD_FD_INIT). */
#ifndef SBX_RUN_INIT_FD_H
#define SBX_RUN_INIT_FD_H

/* A new sealed, executable memfd of sbx-run-init, or -1 (errno). */
int run_init_fd(void);
/* sbx-run-init's bytes written to fd (a host that refuses memfds gets an
 * unlinked file of sbx-run's instead): 0, or -1 (errno). */
int run_init_write(int fd);
/* The same file open read-only (fd closed): no writer of ours can stop its
 * exec (ETXTBSY), whatever the kernel. -1 (errno) when it cannot be. */
int run_init_read_only(int fd);
/* A new sealed memfd of the candidate's confinement, or -1 (errno). */
int candidate_code_fd(void);

#endif
