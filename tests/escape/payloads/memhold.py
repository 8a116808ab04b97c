# memhold.py memfd|shm: tries to hold 768 MB that RLIMIT_AS does not count
# (memfds, or SysV shm segments once detached), 32 MB at a time, and prints
# "held N MB, shmem +M MB, stopped: WHY" (Shmem from /proc/meminfo, the
# host's: it is not namespaced).
import ctypes
import os
import sys

MB = 1 << 20
STEP = 32


def shmem_mb():
    for line in open("/proc/meminfo"):
        if line.startswith("Shmem:"):
            return int(line.split()[1]) // 1024
    return -1


def memfd_step(keep):
    fd = os.memfd_create("hold")
    keep.append(fd)
    chunk = b"x" * MB
    for _ in range(STEP):
        os.write(fd, chunk)


def shm_step(keep):
    libc = ctypes.CDLL(None, use_errno=True)
    libc.shmat.restype = ctypes.c_void_p
    libc.shmat.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_int]
    libc.shmdt.argtypes = [ctypes.c_void_p]
    shmid = libc.shmget(0, STEP * MB, 0o1600)  # IPC_PRIVATE, IPC_CREAT | 0600
    if shmid < 0:
        e = ctypes.get_errno()
        raise OSError(e, os.strerror(e))
    addr = libc.shmat(shmid, None, 0)
    if addr is None or addr == ctypes.c_void_p(-1).value:
        e = ctypes.get_errno()
        raise OSError(e, os.strerror(e))
    ctypes.memset(addr, 1, STEP * MB)
    libc.shmdt(addr)  # detached, the segment keeps its memory


step = memfd_step if sys.argv[1] == "memfd" else shm_step
keep = []
held = 0
why = "held it all"
before = shmem_mb()
try:
    while held < 768:
        step(keep)
        held += STEP
except (OSError, MemoryError) as e:
    why = "%s: %s" % (type(e).__name__, e)
print("held %d MB, shmem +%d MB, stopped: %s" % (held, shmem_mb() - before, why))
sys.stdout.flush()
