/* What sbx-run says to a new zygote (docs/warm.md, "Messages"): its
 * ready message awaited, then the init message with the seccomp program,
 * sbx-run-init and the candidate's confinement; and the sending of any
 * message with its fds. Private to warm/ (warm.c and warm_run.c). */
#ifndef SBX_WARM_INIT_H
#define SBX_WARM_INIT_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define WARM_MSG_MAX_FDS 16

/* One SOCK_SEQPACKET message and its fds (SCM_RIGHTS): 0, or -1 (errno). */
int warm_send_msg(int fd, const char *text, const int *fds, size_t nfds);
/* A message without fds that never waits for room in the socket (a
 * kill): 0, or -1 (errno; EAGAIN when the zygote has not read enough). */
int warm_send_msg_nowait(int fd, const char *text);
/* The init message, with the trusted sources (NULL-terminated, or NULL)
 * the zygote compiles once: 0, or -1. */
int warm_send_init(int ctl, const char *const *sources);
/* The zygote's {"ready":1} within ZYGOTE_READY_MS; a pidfd of the zygote
 * itself in *zygote (-1 where the kernel gave none): the tier's process
 * sbx-run started may be a setuid helper, which no signal of ours reaches,
 * and the zygote is the caller's own process. ctl must have SO_PASSCRED. */
bool warm_wait_ready(int ctl, int *zygote);

#endif
