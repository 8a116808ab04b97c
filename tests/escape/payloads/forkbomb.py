# forkbomb.py COUNT_FILE: forks sleeping children until fork fails (or 2000),
# writes how many it got, then keeps trying, as a bomb would.
import os, sys, time

n = 0
while n < 2000:
    try:
        if os.fork() == 0:
            time.sleep(600)
            os._exit(0)
        n += 1
    except OSError:
        break
with open(sys.argv[1], 'w') as f:
    f.write('%d\n' % n)
while True:
    try:
        if os.fork() == 0:
            time.sleep(600)
            os._exit(0)
    except OSError:
        time.sleep(0.01)
