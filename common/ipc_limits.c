/* The run's IPC namespace made small (ipc_limits.h). */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cleanup.h"
#include "ipc_limits.h"

#define IPC_KNOBS 5

static int write_knob(const char *path, const char *text)
{
        auto_fd fd = open(path, O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
        ssize_t len = (ssize_t)strlen(text);

        return fd < 0 || write(fd, text, (size_t)len) != len ? -1 : 0;
}

int sbx_ipc_limits(long long shm_bytes, const char **what)
{
        static const char *const knobs[IPC_KNOBS] = {
                "/proc/sys/kernel/shmmax", "/proc/sys/kernel/shmall", "/proc/sys/kernel/shmmni",
                "/proc/sys/kernel/msgmni", "/proc/sys/kernel/sem",
        };
        long page = sysconf(_SC_PAGESIZE);
        char values[IPC_KNOBS][32];

        snprintf(values[0], sizeof(values[0]), "%lld", shm_bytes);
        snprintf(values[1], sizeof(values[1]), "%lld", shm_bytes / (page > 0 ? page : 4096));
        snprintf(values[2], sizeof(values[2]), "%d", SBX_SHMMNI);
        snprintf(values[3], sizeof(values[3]), "%d", SBX_MSGMNI);
        snprintf(values[4], sizeof(values[4]), "%s", SBX_SEM);
        for (int i = 0; i < IPC_KNOBS; i++) {
                if (write_knob(knobs[i], values[i]) < 0) {
                        *what = knobs[i];
                        return -1;
                }
        }
        return 0;
}
