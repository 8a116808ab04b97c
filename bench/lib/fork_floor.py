# The floor of any warm mode (issue 6) on this machine: one warm interpreter
# per worker that forks once per program and runs it in-process, with no
# namespace, limit or isolation at all. A warm sandbox can only add to this.
# Usage: fork_floor.py JOBS PROGRAM...   Prints the wall seconds.
import os
import sys
import time


def worker(paths, wfd):
    failed = 0
    for path in paths:
        with open(path) as f:
            code = compile(f.read(), path, "exec")
        pid = os.fork()
        if pid == 0:
            os.dup2(os.open(os.devnull, os.O_WRONLY), 1)
            try:
                exec(code, {"__name__": "__main__"})
            except BaseException:
                os._exit(1)
            os._exit(0)
        failed += os.waitpid(pid, 0)[1] != 0
    os.write(wfd, b"%d\n" % failed)
    os._exit(0)


def main():
    jobs, paths = int(sys.argv[1]), sys.argv[2:]
    rfd, wfd = os.pipe()
    start = time.monotonic()
    for i in range(jobs):
        if os.fork() == 0:
            worker(paths[i::jobs], wfd)
    for _ in range(jobs):
        os.wait()
    wall = time.monotonic() - start
    os.close(wfd)
    failed = sum(int(x) for x in os.read(rfd, 4096).split())
    print("%.2f %d" % (wall, failed))


main()
