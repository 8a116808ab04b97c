# daemon.py MARKER MODE: the classic escape from a timeout: double fork,
# setsid, ignore SIGTERM/SIGHUP, sleep on. MODE "exit": the candidate
# exits at once; "wait": it sleeps past the timeout too.
import os, signal, sys, time

marker, mode = sys.argv[1], sys.argv[2]
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        for s in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
            signal.signal(s, signal.SIG_IGN)
        os.execv('/bin/sleep', [marker, '300'])  # argv[0]: the test's marker
    os._exit(0)
os.wait()
if mode == 'wait':
    time.sleep(300)
