# forge_status.py: writes a fake "exited 0" verdict to every fd it can reach
# (3..64, the fds of pid 1 and of its parent), and tries to open the memory
# of pid 1 and of its parent (init and the supervisor share the run's
# outcome in a memory page), then exits 1. The helper's status fd must still
# carry the truth, once, and no memory may open.
import os

FAKE = (b'{"status":"exited","exit_code":0,"signal":0,"wall_s":0.0,"cpu_s":0.0,'
        b'"max_rss_kb":0,"nproc_mode":"userns","message":""}\n')
hits = []
for fd in range(3, 65):
    try:
        os.write(fd, FAKE)
        hits.append(str(fd))
    except OSError:
        pass
for pid in ('1', str(os.getppid()), 'self'):
    try:
        names = os.listdir('/proc/%s/fd' % pid)
    except OSError:
        continue
    for name in names:
        try:
            fd = os.open('/proc/%s/fd/%s' % (pid, name), os.O_WRONLY | os.O_APPEND)
            os.write(fd, FAKE)
            hits.append('/proc/%s/fd/%s' % (pid, name))
            os.close(fd)
        except OSError:
            pass
mem = []
for pid in ('1', str(os.getppid())):
    for name in ('mem', 'maps'):
        try:
            fd = os.open('/proc/%s/%s' % (pid, name), os.O_RDWR if name == 'mem' else os.O_RDONLY)
            mem.append('/proc/%s/%s' % (pid, name))
            os.close(fd)
        except OSError:
            pass
print('wrote to:', ' '.join(hits))
print('memory opened:', ' '.join(mem) or 'none')
raise SystemExit(1)
