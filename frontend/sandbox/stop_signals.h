/* One installer for the signals that stop sbx-run (^C, kill, a lost
 * terminal): the single-run modes, the suite runner and --serve. */
#ifndef SBX_STOP_SIGNALS_H
#define SBX_STOP_SIGNALS_H

#include <signal.h>
#include <stddef.h>

/* Sets handler (NULL: the default action) for each of sigs[0..n). With
 * waitmask, they are blocked from now on and *waitmask is the mask to wait
 * with (ppoll): the old mask without them, so a signal that comes between
 * a check and the wait is not lost. Returns 0, or -1 with errno. */
int sbx_catch_signals(const int *sigs, size_t n, void (*handler)(int),
                      sigset_t *waitmask);

#endif
