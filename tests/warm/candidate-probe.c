/* A stand-in for the candidate's confinement (frontend/zygote/candidate/),
 * built the same way, for tests/warm/zygote.t: it reports the
 * capabilities it is called with, as the first E line of the run, and
 * fails, so that the run's message says what code sbx-run hands the
 * zygote could use: "E probe CapPrm=... CapEff=...". */
#include <asm/unistd.h>
#include <fcntl.h>

#include "../../frontend/zygote/candidate/candidate.h"

static long sys3(long n, long a, long b, long c)
{
#if defined(__x86_64__)
        long ret;

        __asm__ volatile("syscall" : "=a"(ret) : "a"(n), "D"(a), "S"(b), "d"(c) : "rcx", "r11", "memory");
        return ret;
#elif defined(__aarch64__)
        register long x8 __asm__("x8") = n;
        register long x0 __asm__("x0") = a;
        register long x1 __asm__("x1") = b;
        register long x2 __asm__("x2") = c;

        __asm__ volatile("svc 0" : "+r"(x0) : "r"(x8), "r"(x1), "r"(x2) : "memory");
        return x0;
#else
#error "x86_64 and aarch64 only, as the candidate's confinement"
#endif
}

__attribute__((noreturn, used, visibility("hidden"))) void __stack_chk_fail(void)
{
        for (;;)
                sys3(__NR_exit_group, 127, 0, 0);
}

static int starts(const char *s, const char *prefix)
{
        while (*prefix)
                if (*s++ != *prefix++)
                        return 0;
        return 1;
}

__attribute__((section(".text.entry"))) long candidate_confine(struct candidate_params *p)
{
        char status[8192], line[96] = "E probe";
        long fd = sys3(__NR_openat, -100, (long)"/proc/self/status", O_RDONLY), n = 0, len = 7;

        if (fd >= 0)
                n = sys3(__NR_read, fd, (long)status, sizeof(status) - 1);
        for (long i = 0; i < n && len < 80; i++)
                if ((i == 0 || status[i - 1] == '\n') && (starts(status + i, "CapPrm:\t") || starts(status + i, "CapEff:\t"))) {
                        line[len++] = ' ';
                        for (int k = 0; k < 6; k++)
                                line[len++] = status[i + k];
                        line[len++] = '=';
                        for (int k = 8; k < 24 && i + k < n; k++)
                                line[len++] = status[i + k];
                }
        line[len++] = '\n';
        sys3(__NR_write, p->info_fd, (long)line, len);
        p->failed_step = CANDIDATE_JOIN;
        p->failed_errno = 0;
        p->report_fd = p->info_fd;
        return -1;
}
