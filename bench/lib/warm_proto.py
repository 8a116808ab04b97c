# A prototype of issue 18's warm path, to measure what its per-sample
# isolation costs on this machine (no sbx code; run as an unprivileged user,
# no setuid): JOBS worker processes, each of which makes its own user and
# mount namespace once (unshare(USER|NS), uid/gid maps, / made rprivate),
# then per sample:
#   fork -> unshare(NS), unshare(IPC), unshare(UTS), unshare(PID),
#   unshare(NET) (each separately, so the costly one shows) -> fork (pid 1
#   of the new pid namespace) -> private size-capped tmpfs on /tmp
#   [-> fresh /proc, with --proc] -> the sample compiled beforehand by the
#   worker, run in-process (stdout to /dev/null, alarm(3)) -> exit; the
#   first child reaps pid 1 and exits with its status, the worker reaps it.
# With --net=worker the network namespace is made once per worker instead of
# per sample (to show what the per-sample one costs).
# Verdict: exit 0 = passed. Times are CLOCK_MONOTONIC stamps the children
# write into a shared page, so each phase is timed where it happens.
# Usage: warm_proto.py [--net=sample|worker] [--proc] [--json] JOBS PROGRAM...
# Prints the per-phase medians and means (ms) over all samples (the means
# add up to the whole sample's), the wall and passed;
# with --json one JSON object instead.
import ctypes
import json
import mmap
import os
import signal
import statistics
import struct
import sys
import time

CLONE_NEWNS = 0x00020000
CLONE_NEWUTS = 0x04000000
CLONE_NEWIPC = 0x08000000
CLONE_NEWUSER = 0x10000000
CLONE_NEWPID = 0x20000000
CLONE_NEWNET = 0x40000000
MS_NOSUID, MS_NODEV, MS_NOEXEC = 2, 4, 8
MS_REC, MS_PRIVATE = 0x4000, 1 << 18

libc = ctypes.CDLL(None, use_errno=True)
libc.mount.argtypes = [ctypes.c_char_p] * 3 + [ctypes.c_ulong, ctypes.c_char_p]
now = time.monotonic_ns


def check(rc, what):
    if rc != 0:
        e = ctypes.get_errno()
        raise OSError(e, "%s: %s" % (what, os.strerror(e)))


def unshare(flags, what):
    check(libc.unshare(flags), "unshare(%s)" % what)


def mount(src, target, fstype, flags, data):
    enc = lambda s: s.encode() if s is not None else None
    check(libc.mount(enc(src), enc(target), enc(fstype), flags, enc(data)),
          "mount %s" % target)


# Stamps per sample, in order, as slots of the shared page.
STAMPS = ["s0",             # worker, just before fork
          "a0",             # first child, first thing
          "a_ns", "a_ipc", "a_uts", "a_pid", "a_net",   # after each unshare
          "a_fork",         # first child, just before forking pid 1
          "b0",             # pid 1, first thing
          "b_tmp",          # after the tmpfs mount on /tmp
          "b_proc",         # after the /proc mount (= b_tmp without --proc)
          "b_run",          # after the sample ran, just before _exit
          "a_reap",         # first child, pid 1 reaped
          "s_reap"]         # worker, first child reaped
IDX = {n: i for i, n in enumerate(STAMPS)}
PHASES = [("fork", "s0", "a0"),
          ("unshare NS", "a0", "a_ns"),
          ("unshare IPC", "a_ns", "a_ipc"),
          ("unshare UTS", "a_ipc", "a_uts"),
          ("unshare PID", "a_uts", "a_pid"),
          ("unshare NET", "a_pid", "a_net"),
          ("fork pid 1", "a_fork", "b0"),
          ("tmpfs /tmp", "b0", "b_tmp"),
          ("mount /proc", "b_tmp", "b_proc"),
          ("run", "b_proc", "b_run"),
          ("pid 1 exit+reap", "b_run", "a_reap"),
          ("child exit+reap", "a_reap", "s_reap"),
          ("whole sample", "s0", "s_reap")]


def worker(paths, net_per_sample, with_proc, wfd):
    uid, gid = os.getuid(), os.getgid()
    t = now()
    unshare(CLONE_NEWUSER | CLONE_NEWNS, "USER|NS")
    for f, s in (("setgroups", "deny"), ("uid_map", "0 %d 1" % uid),
                 ("gid_map", "0 %d 1" % gid)):
        with open("/proc/self/" + f, "w") as fh:
            fh.write(s)
    mount(None, "/", None, MS_REC | MS_PRIVATE, None)
    if not net_per_sample:
        unshare(CLONE_NEWNET, "NET")
    setup_ms = (now() - t) / 1e6
    devnull = os.open(os.devnull, os.O_WRONLY)
    nst = len(STAMPS)
    page = mmap.mmap(-1, 8 * nst)
    put = lambda name: struct.pack_into("q", page, 8 * IDX[name], now())
    rows, passed, compile_ms = [], 0, 0.0
    for path in paths:
        t = now()
        with open(path) as f:
            code = compile(f.read(), path, "exec")
        compile_ms += (now() - t) / 1e6
        page[:] = bytes(8 * nst)
        put("s0")
        pid = os.fork()
        if pid == 0:
            try:
                put("a0")
                unshare(CLONE_NEWNS, "NS"); put("a_ns")
                unshare(CLONE_NEWIPC, "IPC"); put("a_ipc")
                unshare(CLONE_NEWUTS, "UTS"); put("a_uts")
                unshare(CLONE_NEWPID, "PID"); put("a_pid")
                if net_per_sample:
                    unshare(CLONE_NEWNET, "NET")
                put("a_net")
                put("a_fork")
                init = os.fork()
                if init == 0:
                    put("b0")
                    mount("tmpfs", "/tmp", "tmpfs", MS_NOSUID | MS_NODEV,
                          "size=64m,mode=1777"); put("b_tmp")
                    if with_proc:
                        mount("proc", "/proc", "proc",
                              MS_NOSUID | MS_NODEV | MS_NOEXEC, None)
                    put("b_proc")
                    os.dup2(devnull, 1)
                    signal.alarm(3)
                    try:
                        exec(code, {"__name__": "__main__"})
                        rc = 0
                    except BaseException:
                        rc = 1
                    put("b_run")
                    os._exit(rc)
                st = os.waitpid(init, 0)[1]
                put("a_reap")
                os._exit(os.waitstatus_to_exitcode(st) if os.WIFEXITED(st) else 1)
            except BaseException as e:
                os.write(2, ("warm_proto: %s\n" % e).encode())
                os._exit(2)
        st = os.waitpid(pid, 0)[1]
        put("s_reap")
        passed += st == 0
        rows.append(struct.unpack_from("%dq" % nst, page))
    data = json.dumps({"rows": rows, "passed": passed, "setup_ms": setup_ms,
                       "compile_ms": compile_ms}).encode()
    os.write(wfd, struct.pack("I", len(data)) + data)
    os._exit(0)


def read_all(fd, n):
    b = b""
    while len(b) < n:
        c = os.read(fd, n - len(b))
        if not c:
            raise EOFError("a worker died")
        b += c
    return b


def main():
    args = sys.argv[1:]
    net_per_sample, with_proc, as_json = True, False, False
    while args and args[0].startswith("--"):
        a = args.pop(0)
        if a in ("--net=sample", "--net=worker"):
            net_per_sample = a == "--net=sample"
        elif a == "--proc":
            with_proc = True
        elif a == "--json":
            as_json = True
        else:
            sys.exit("warm_proto: unknown option " + a)
    jobs, paths = int(args[0]), args[1:]
    pipes = []
    start = time.monotonic()
    for i in range(jobs):
        r, w = os.pipe()
        if os.fork() == 0:
            os.close(r)
            worker(paths[i::jobs], net_per_sample, with_proc, w)
        os.close(w)
        pipes.append(r)
    results = []
    for r in pipes:
        n = struct.unpack("I", read_all(r, 4))[0]
        results.append(json.loads(read_all(r, n)))
    for _ in range(jobs):
        os.wait()
    wall = time.monotonic() - start
    rows = [row for res in results for row in res["rows"]]
    phases, means = {}, {}
    for name, a, b in PHASES:
        if name == "unshare NET" and not net_per_sample:
            continue
        if name == "mount /proc" and not with_proc:
            continue
        ms = [(row[IDX[b]] - row[IDX[a]]) / 1e6 for row in rows]
        phases[name] = statistics.median(ms)
        means[name] = statistics.fmean(ms)
    out = {"variant": "net per %s%s" % ("sample" if net_per_sample else "worker",
                                        ", fresh /proc" if with_proc else ""),
           "wall": wall, "passed": sum(r["passed"] for r in results),
           "total": len(paths), "phases_ms": phases, "means_ms": means,
           "worker_setup_ms": [r["setup_ms"] for r in results],
           "compile_ms": sum(r["compile_ms"] for r in results)}
    if as_json:
        print(json.dumps(out))
        return
    print("warm_proto (%s), %d workers, over %d samples (ms):"
          % (out["variant"], jobs, len(rows)))
    print("  %-16s %8s %8s" % ("phase", "median", "mean"))
    for name, ms in phases.items():
        print("  %-16s %8.3f %8.3f" % (name, ms, means[name]))
    print("  worker setup (USER|NS%s, once): %s ms"
          % ("" if net_per_sample else "|NET",
             ", ".join("%.2f" % x for x in out["worker_setup_ms"])))
    print("wall %.2f s, passed %d/%d" % (wall, out["passed"], len(paths)))


main()
