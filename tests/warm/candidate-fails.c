/* A stand-in for the candidate's confinement (frontend/warm/zygote/candidate/),
 * built the same way, for tests/warm/zygote.t: it fails at one step, as a
 * real confinement fails, without a line of its own, so that the run's
 * setup-error and its message are the zygote's: "set the run's rlimits:
 * Operation not permitted". */
#include <asm/unistd.h>

#include "../../frontend/warm/zygote/candidate/candidate.h"
#include "../../frontend/warm/zygote/candidate/raw_syscall.h"

__attribute__((noreturn, used, visibility("hidden"))) void __stack_chk_fail(void)
{
        for (;;)
                sys3(__NR_exit_group, 127, 0, 0);
}

__attribute__((section(".text.entry"))) long candidate_confine(struct candidate_params *p)
{
        p->failed_step = CANDIDATE_RLIMITS;
        p->failed_errno = 1;    /* EPERM */
        p->report_fd = p->info_fd;
        return -1;
}
