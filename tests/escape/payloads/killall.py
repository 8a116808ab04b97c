# killall.py: kill(-1, SIGKILL) signals every process this uid may signal;
# inside the sandbox that must be the sandbox's own processes only.
import os, signal
try:
    os.kill(-1, signal.SIGKILL)
    print('kill(-1) returned')
except OSError as e:
    print('kill(-1) failed', e)
