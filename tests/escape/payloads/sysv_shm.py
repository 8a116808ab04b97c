# sysv_shm.py TOTAL_BYTES SEGMENT_BYTES: holds SysV shared memory (charged to
# no process) one segment at a time: shmget, shmat, memset, shmdt, keeping
# the segment. Prints "HELD <bytes> <errno name or OK>".
import ctypes, errno, sys

total, seg = int(sys.argv[1]), int(sys.argv[2])
libc = ctypes.CDLL(None, use_errno=True)
libc.shmat.restype = ctypes.c_void_p
libc.shmat.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_int]
libc.shmdt.argtypes = [ctypes.c_void_p]
IPC_PRIVATE, IPC_CREAT = 0, 0o1000
held, why = 0, 'OK'
while held < total:
    shmid = libc.shmget(IPC_PRIVATE, ctypes.c_size_t(seg), IPC_CREAT | 0o600)
    if shmid < 0:
        why = errno.errorcode[ctypes.get_errno()]
        break
    addr = libc.shmat(shmid, None, 0)
    if addr is None or addr == ctypes.c_void_p(-1).value:
        why = 'shmat:' + errno.errorcode[ctypes.get_errno()]
        break
    ctypes.memset(addr, 0x5a, seg)
    libc.shmdt(ctypes.c_void_p(addr))
    held += seg
print('HELD', held, why, flush=True)
