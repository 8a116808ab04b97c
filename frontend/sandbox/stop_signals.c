#include "stop_signals.h"

int sbx_catch_signals(const int *sigs, size_t n, void (*handler)(int),
                      sigset_t *waitmask)
{
        struct sigaction sa = { .sa_handler = handler ? handler : SIG_DFL };
        sigset_t block;

        sigemptyset(&sa.sa_mask);
        sigemptyset(&block);
        for (size_t i = 0; i < n; i++) {
                if (sigaction(sigs[i], &sa, NULL) < 0)
                        return -1;
                sigaddset(&block, sigs[i]);
        }
        if (!waitmask)
                return 0;
        if (sigprocmask(SIG_BLOCK, &block, waitmask) < 0)
                return -1;
        for (size_t i = 0; i < n; i++)
                sigdelset(waitmask, sigs[i]);
        return 0;
}
