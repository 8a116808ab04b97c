/* sbx-run's side of a zygote's start (docs/warm.md, "Messages"): what it
 * is handed once, and the message sending warm.c shares. */
#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cleanup.h"
#include "run_init_fd.h"
#include "seccomp_bpf.h"
#include "util.h"
#include "warm_init.h"

#define ZYGOTE_READY_MS 15000           /* interpreter start-up on a loaded host */

int warm_send_msg(int fd, const char *text, const int *fds, size_t nfds)
{
        union { struct cmsghdr head; char buf[CMSG_SPACE(sizeof(int) * WARM_MSG_MAX_FDS)]; } ctl;
        struct iovec iov = { .iov_base = (char *)text, .iov_len = strlen(text) };
        struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };

        if (nfds > WARM_MSG_MAX_FDS)
                return errno = E2BIG, -1;
        if (nfds) {
                memset(&ctl, 0, sizeof(ctl));
                msg.msg_control = ctl.buf;
                msg.msg_controllen = CMSG_SPACE(sizeof(int) * nfds);
                ctl.head.cmsg_level = SOL_SOCKET;
                ctl.head.cmsg_type = SCM_RIGHTS;
                ctl.head.cmsg_len = CMSG_LEN(sizeof(int) * nfds);
                memcpy(CMSG_DATA(&ctl.head), fds, sizeof(int) * nfds);
        }
        return sendmsg(fd, &msg, MSG_NOSIGNAL) == (ssize_t)iov.iov_len ? 0 : -1;
}

int warm_send_msg_nowait(int fd, const char *text)
{
        size_t len = strlen(text);

        return send(fd, text, len, MSG_NOSIGNAL | MSG_DONTWAIT) == (ssize_t)len ? 0 : -1;
}

/* {"op":"init","sources":[...]}: sbx's own drivers, which the zygote
 * compiles once instead of each sample compiling its -c SOURCE again. */
static char *init_json(const char *const *sources)
{
        cJSON *j = cJSON_CreateObject();
        char *text = NULL;
        int n = 0;

        while (sources && sources[n])
                n++;
        /* cJSON makes no array of a NULL list: none is an empty one */
        if (j && cJSON_AddStringToObject(j, "op", "init") &&
            cJSON_AddItemToObject(j, "sources", n ? cJSON_CreateStringArray(sources, n)
                                                  : cJSON_CreateArray()))
                text = cJSON_PrintUnformatted(j);
        cJSON_Delete(j);
        return text;
}

/* The cold path's filter, through a pipe the zygote reads to EOF, the run
 * init and the candidate's confinement. */
int warm_send_init(int ctl, const char *const *sources)
{
        auto_free char *text = init_json(sources);
        auto_fd init = run_init_fd();
        auto_fd candidate = candidate_code_fd();
        int bpf[2], rc;

        if (!text || init < 0 || candidate < 0 || pipe2(bpf, O_CLOEXEC) < 0)
                return -1;
        rc = sbx_seccomp_write(bpf[1]);
        close(bpf[1]);
        if (rc == 0)
                rc = warm_send_msg(ctl, text, (int[]){ bpf[0], init, candidate }, 3);
        close(bpf[0]);
        return rc;
}

/* The sender's pid, which the kernel attaches (SO_PASSCRED) in our pid
 * namespace, and opens as a pidfd at once: the zygote is waiting for its
 * init message, alive. */
static int sender_pidfd(struct msghdr *msg)
{
        struct ucred cred;

        for (struct cmsghdr *c = CMSG_FIRSTHDR(msg); c; c = CMSG_NXTHDR(msg, c)) {
                if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_CREDENTIALS ||
                    c->cmsg_len != CMSG_LEN(sizeof(cred)))
                        continue;
                memcpy(&cred, CMSG_DATA(c), sizeof(cred));
                if (cred.pid > 0)
                        return (int)syscall(SYS_pidfd_open, cred.pid, 0);
        }
        return -1;
}

bool warm_wait_ready(int ctl, int *zygote)
{
        struct pollfd pfd = { .fd = ctl, .events = POLLIN };
        union { struct cmsghdr head; char buf[CMSG_SPACE(sizeof(struct ucred))]; } cbuf;
        char buf[256];
        struct iovec iov = { .iov_base = buf, .iov_len = sizeof(buf) - 1 };
        struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf.buf,
                              .msg_controllen = sizeof(cbuf.buf) };
        ssize_t n;

        *zygote = -1;
        if (poll(&pfd, 1, ZYGOTE_READY_MS) != 1)
                return false;
        n = recvmsg(ctl, &msg, MSG_CMSG_CLOEXEC);
        if (n <= 0)
                return false;
        buf[n] = '\0';
        cJSON *j = cJSON_Parse(buf);
        bool ready = json_get_num(j, "ready", 0) == 1;
        cJSON_Delete(j);
        if (ready)
                *zygote = sender_pidfd(&msg);
        return ready;
}
