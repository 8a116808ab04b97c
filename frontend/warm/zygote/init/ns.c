/* B0, just after unshare: the run's user namespace maps its root to the
 * zygote's ids (the one mapping a process may write for itself), then, as
 * that root, what makes the other namespaces the run's: hostname, a
 * loopback that is up, the IPC namespace's limits (the kernel lets only
 * the root of the user namespace owning it write them). */
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "cleanup.h"
#include "ipc_limits.h"
#include "run_init.h"

static void write_file(const char *path, const char *text)
{
        auto_fd fd = open(path, O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
        size_t len = strlen(text);

        if (fd < 0)
                init_die(errno, "open %s", path);
        if (write(fd, text, len) != (ssize_t)len)
                init_die(errno, "write %s", path);
}

static void map_root(uid_t uid, gid_t gid)
{
        char line[64];

        write_file("/proc/self/setgroups", "deny");
        snprintf(line, sizeof(line), "0 %u 1", (unsigned int)uid);
        write_file("/proc/self/uid_map", line);
        snprintf(line, sizeof(line), "0 %u 1", (unsigned int)gid);
        write_file("/proc/self/gid_map", line);
}

static void bring_up_lo(void)
{
        struct ifreq ifr = { .ifr_flags = IFF_UP | IFF_RUNNING };
        auto_fd s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

        memcpy(ifr.ifr_name, "lo", 3);
        if (s < 0 || ioctl(s, SIOCSIFFLAGS, &ifr) < 0)
                init_die(errno, "bring up loopback");
}

/* SysV shm at most SHM_BYTES (--memory, or the tmpfs for none), few
 * segments, queues and semaphores: the helper's limits (common/ipc_limits.c). */
static void limit_ipc(long long shm_bytes)
{
        const char *what = "";

        if (sbx_ipc_limits(shm_bytes, &what) < 0)
                init_die(errno, "write %s", what);
}

void init_enter_namespaces(const struct init_request *rq)
{
        map_root(rq->uid, rq->gid);
        if (sethostname("sbx", 3) < 0)
                init_die(errno, "sethostname");
        bring_up_lo();
        limit_ipc(rq->shm_bytes);
}
