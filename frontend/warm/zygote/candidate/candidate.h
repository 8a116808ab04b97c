/* The candidate's confinement in native code (docs/warm.md, "C"): one call
 * from the warm candidate C, after C has dropped every capability the
 * zygote held, does what a cold candidate gets before the sample's first
 * instruction. Freestanding (no libc, raw system calls, no relocations):
 * the zygote maps these bytes, which sbx-run sends it, without running
 * them; only C calls them. The layout is the zygote's struct.pack format
 * CANDIDATE_FORMAT (frontend/warm/zygote/10-confine.py): keep the two in step. */
#ifndef SBX_CANDIDATE_H
#define SBX_CANDIDATE_H

#include <stdint.h>

#define CANDIDATE_MAX_RLIMITS 12

struct candidate_rlimit {
        int64_t resource;
        uint64_t soft, hard;            /* final: the zygote has bounded them by its own */
};

struct candidate_params {
        int64_t b0_pidfd;               /* the run's namespaces, through B0 */
        int64_t stdin_fd, stdout_fd, stderr_fd, info_fd;
        int64_t uid, gid;               /* the caller's, mapped to themselves in C's user namespace */
        uint64_t nproc;
        uint64_t cwd;                   /* char *, NUL-terminated */
        uint64_t bpf;                   /* struct sock_filter *, bpf_len of them */
        uint64_t bpf_len;
        int64_t nrlimits;
        struct candidate_rlimit rlimits[CANDIDATE_MAX_RLIMITS];
        /* out, on failure: the step (CANDIDATE_STEP_*), errno, the fd the
         * zygote's E line goes to now */
        int64_t failed_step, failed_errno, report_fd;
};

enum candidate_step {
        CANDIDATE_JOIN = 1, CANDIDATE_PDEATHSIG, CANDIDATE_SETSID, CANDIDATE_STDIO, CANDIDATE_CLOSE_FDS,
        CANDIDATE_RLIMITS, CANDIDATE_USERNS, CANDIDATE_MAPS, CANDIDATE_NPROC, CANDIDATE_CAPS,
        CANDIDATE_CAPS_CHECK, CANDIDATE_CHDIR, CANDIDATE_NO_NEW_PRIVS, CANDIDATE_SECCOMP, CANDIDATE_DUMPABLE,
};

long candidate_confine(struct candidate_params *p);

#endif
