# A stand-in for sbx's zygote, for tests/helper/zygote.t: zygote.t builds a
# helper of its own with this file as the built-in zygote source (make
# ZYGOTE_PY=...), runs it with --zygote, and reads what it prints, one
# "key: value" line each: its credentials, its namespaces, and what each
# attempt to use its capabilities answered ("ok" or the errno name), in the
# sandbox's own namespaces (where they must do nothing) and in namespaces
# of its own (where the zygote needs them). Each attempt runs in a child
# of its own, so that one's namespaces do not change the next.
import ctypes
import errno
import fcntl
import os
import socket
import struct

libc = ctypes.CDLL(None, use_errno=True)
CLONE_NEWNS, CLONE_NEWUTS, CLONE_NEWPID, CLONE_NEWNET = 0x20000, 0x4000000, 0x20000000, 0x40000000
MS_NOSUID, MS_NODEV, MS_NOEXEC, MS_REMOUNT, MS_BIND = 2, 4, 8, 32, 4096
MNT_DETACH = 2
SIOCSIFFLAGS, IFF_UP, IFF_RUNNING = 0x8914, 1, 0x40
ROBIND = os.environ.get("ZPROBE_DIR", "/nonexistent")


def name(e):
    return errno.errorcode.get(e, str(e))


def c(rc):
    return "ok" if rc == 0 else name(ctypes.get_errno())


def py(f):
    try:
        f()
        return "ok"
    except OSError as e:
        return name(e.errno)


def attempt(key, f):
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        try:
            res = f()
        except Exception as e:  # noqa: BLE001 - reported, never hidden
            res = "exception %r" % (e,)
        os.write(w, res.encode())
        os._exit(0)
    os.close(w)
    res = os.read(r, 4096).decode()
    os.waitpid(pid, 0)
    print("%s: %s" % (key, res or "no answer"), flush=True)


def unshared(flags, f):
    def run():
        if libc.unshare(flags) != 0:
            return "unshare " + name(ctypes.get_errno())
        return f()
    return run


def lo_up():
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        fcntl.ioctl(s, SIOCSIFFLAGS, struct.pack("16sh22x", b"lo", IFF_UP | IFF_RUNNING))


def fresh_proc():
    pid = os.fork()
    if pid == 0:
        rc = libc.mount(b"proc", b"/proc", b"proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, None)
        os._exit(0 if rc == 0 else ctypes.get_errno())
    code = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
    return "ok" if code == 0 else name(code)


def write(path):
    with open(path, "a") as f:
        f.write("zygote was here\n")


for line in open("/proc/self/status"):
    k, _, v = line.partition(":")
    if k in ("Uid", "Gid", "CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb", "NoNewPrivs", "Seccomp"):
        print("%s: %s" % (k, " ".join(v.split())), flush=True)
for ns in ("user", "mnt", "net", "pid", "uts"):
    print("ns_%s: %s" % (ns, os.readlink("/proc/self/ns/" + ns)), flush=True)
print("proc_sys_bound: %s" % ("yes" if any(l.split()[4] == "/proc/sys" for l in open("/proc/self/mountinfo")) else "no"))

# In the sandbox's namespaces, which belong to the host's user namespace.
attempt("sandbox_mount", lambda: c(libc.mount(b"none", b"/tmp", b"tmpfs", 0, None)))
attempt("sandbox_lo_up", lambda: py(lo_up))
attempt("sandbox_sethostname", lambda: c(libc.sethostname(b"zygote", 6)))
attempt("sandbox_proc_sys_write", lambda: py(lambda: write("/proc/sys/kernel/hostname")))
attempt("sandbox_sysrq_write", lambda: py(lambda: write("/proc/sysrq-trigger")))
attempt("setns_stdin", lambda: c(libc.setns(0, 0)))
attempt("robind_write_own", lambda: py(lambda: write(ROBIND + "/mine.txt")))
# In namespaces of its own: what the zygote needs, and the host's locks on it.
attempt("own_mount", unshared(CLONE_NEWNS, lambda: c(libc.mount(b"none", b"/tmp", b"tmpfs", 0, None))))
attempt("own_proc", unshared(CLONE_NEWNS | CLONE_NEWPID, fresh_proc))
attempt("own_lo_up", unshared(CLONE_NEWNET, lambda: py(lo_up)))
attempt("own_sethostname", unshared(CLONE_NEWUTS, lambda: c(libc.sethostname(b"zygote", 6))))
attempt("own_remount_rw", unshared(CLONE_NEWNS, lambda: c(libc.mount(None, ROBIND.encode(), None,
                                                                       MS_REMOUNT | MS_BIND, None))))
attempt("own_umount_robind", unshared(CLONE_NEWNS, lambda: c(libc.umount2(ROBIND.encode(), MNT_DETACH))))
attempt("own_write_root_file", unshared(CLONE_NEWNS, lambda: py(lambda: write(ROBIND + "/root.txt"))))
attempt("own_write_own_file", unshared(CLONE_NEWNS, lambda: py(lambda: write(ROBIND + "/mine.txt"))))
