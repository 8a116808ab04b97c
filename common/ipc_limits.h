/* The run's IPC namespace made small: one confinement core, linked into
 * the helper (its init, for a cold run) and sbx-run-init (B0, for a warm
 * one). SysV shared memory, message queues and semaphores are kernel
 * memory charged to no process and bounded by no rlimit, and a new IPC
 * namespace allows some 64 GB of semaphores alone; the seccomp policy
 * refuses them too, this bounds them should a filter ever let them by. */
#ifndef SBX_IPC_LIMITS_H
#define SBX_IPC_LIMITS_H

#define SBX_SHMMNI 8            /* SysV shm segments of a run */
#define SBX_MSGMNI 8            /* SysV message queues of a run (16 KiB each) */
/* kernel.sem: at most 32 semaphores a set, 256 in all (64 bytes each), 32
 * operations a semop, 8 sets */
#define SBX_SEM "32 256 32 8"

/* Writes the limits of the caller's IPC namespace through /proc/sys (it acts
 * on the writer's namespace; only the root of the user namespace that owns
 * it may write): all shared memory together at most shm_bytes. 0, or -1
 * with errno and the file that failed in *what. */
int sbx_ipc_limits(long long shm_bytes, const char **what);

#endif
