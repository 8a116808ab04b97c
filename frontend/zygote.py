# sbx's trusted zygote (docs/warm.md): run as `PYTHON -I -B -c SOURCE` with
# fd 0 a SOCK_SEQPACKET control socket. Once: a mount namespace of its own,
# the covers under /proc unmounted. Per sample: the zygote (wall clock,
# status line) -clone-> B (pid 1 of the run's namespaces: their set-up,
# mounts, reaps) -fork-> C (the candidate: limits, no privilege, seccomp,
# then the sample's `-c SOURCE`).
# Fixed code, never sample text; stdlib only; single-threaded.
import sys, _signal
# First: what a fresh `python -I -B -c` has, for C to go back to.
_BOOT_MODULES = frozenset(sys.modules)
_BOOT_SIGNALS = {}
for _s in range(1, _signal.NSIG):
    try:
        _BOOT_SIGNALS[_s] = _signal.getsignal(_s)
    except (OSError, ValueError):
        pass
_BOOT_PATH = list(sys.path)
import os, json, socket, select, ctypes, fcntl, struct, resource, array, errno, atexit, stat, time, mmap, gc, re

_libc = ctypes.CDLL(None, use_errno=True)
_libc.syscall.restype = ctypes.c_long
_libc.prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong]
_libc.mount.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_ulong, ctypes.c_char_p]
_libc.umount2.argtypes = [ctypes.c_char_p, ctypes.c_int]

CLONE_NEWNS, CLONE_NEWUTS, CLONE_NEWIPC = 0x20000, 0x4000000, 0x8000000
CLONE_NEWUSER, CLONE_NEWPID, CLONE_NEWNET = 0x10000000, 0x20000000, 0x40000000
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC = 1, 2, 4, 8
MS_REMOUNT, MS_BIND, MS_REC, MS_PRIVATE = 32, 4096, 16384, 1 << 18
MNT_DETACH, MOUNT_ATTR_RDONLY, AT_RECURSIVE = 2, 1, 0x8000
PR_SET_PDEATHSIG, PR_SET_DUMPABLE, PR_CAPBSET_READ, PR_CAPBSET_DROP = 1, 4, 23, 24
PR_SET_NO_NEW_PRIVS, PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL = 38, 47, 4
PR_CAP_AMBIENT_IS_SET, PR_SET_SECCOMP, SECCOMP_MODE_FILTER = 1, 22, 2
SIOCSIFFLAGS, IFF_UP, IFF_RUNNING = 0x8914, 0x1, 0x40
# The new syscalls share one number on every architecture.
SYS_MOUNT_SETATTR, SYS_CLOSE_RANGE = 442, 436
SYS_OPEN_TREE, SYS_MOVE_MOUNT = 428, 429
OPEN_TREE_CLONE, OPEN_TREE_CLOEXEC, MOVE_MOUNT_F_EMPTY_PATH = 1, 0o2000000, 4
SYS_CAPGET, SYS_CAPSET = {'x86_64': (125, 126), 'aarch64': (90, 91)}.get(os.uname().machine, (125, 126))
SYS_PIDFD_OPEN = 434
SYS_CLONE = {'x86_64': 56, 'aarch64': 220}.get(os.uname().machine, 56)
LINUX_CAPABILITY_VERSION_3 = 0x20080522

SETUP_EXIT = 127            # C died before the sample's code: B says why
MAX_MESSAGE = 1 << 23
MAX_FDS = 253               # SCM_MAX_FD
MAX_FILES = 64              # as the helper's --ro-bind
MAX_ENV = 256
SBX_SHMMNI, SBX_MSGMNI = 8, 8
STACK_BYTES, SIGPENDING = 8 << 20, 256
INODE_BYTES = 2048          # the tmpfs's inodes: one per 2 KiB, as mounts.c
SCRATCH = '.sbx-tmpfs'
PROC_READ_ONLY = ('sys', 'sysrq-trigger', 'irq', 'bus')
LIMIT_KEYS = ('timeout_ms', 'cpu_s', 'memory', 'nproc', 'fsize', 'nofile', 'tmpfs')


# SBX_ZYGOTE_TRACE=FILE in the zygote's environment: per-phase CLOCK_MONOTONIC (and process cpu)
# stamps on a shared page, which the zygote appends to FILE per run (ms since just before
# the clone of B).
PHASES = ('z_clone b_start b_maps b_host_lo b_ipc b_setattr b_proc b_binds c_start c_signals c_setsid_fds '
          'c_userns c_caps c_seccomp c_modules_env c_sample b_reaped z_reaped z_status').split()
_TRACE_FILE = os.environ.get('SBX_ZYGOTE_TRACE')
_TRACE = mmap.mmap(-1, 16 * len(PHASES)) if _TRACE_FILE else None
_TRACE_FD = os.open(_TRACE_FILE, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o600) if _TRACE else -1


def stamp(phase):
    if _TRACE is not None:
        struct.pack_into('QQ', _TRACE, 16 * PHASES.index(phase), time.monotonic_ns(), time.process_time_ns())


def trace_report(rid):
    if _TRACE is not None:
        t = struct.unpack_from('%dQ' % (2 * len(PHASES)), _TRACE)     # wall, and the process's cpu
        os.write(_TRACE_FD, ('%s\n' % json.dumps({p: ((t[2 * i] - t[0]) / 1e6, t[2 * i + 1] / 1e6)
                                                  for i, p in enumerate(PHASES)})).encode())
        _TRACE[:] = bytes(len(_TRACE))


class SetupError(Exception):
    pass


def diag(text):
    try:
        os.write(2, ('sbx zygote: %s\n' % text).encode('utf-8', 'backslashreplace'))
    except OSError:
        pass


def check(rc, what):
    """A libc call's -1 becomes SetupError('what: strerror')."""
    if rc == -1:
        e = ctypes.get_errno()
        raise SetupError('%s: %s' % (what, os.strerror(e)))
    return rc


def prctl(option, a=0, b=0, c=0, d=0, what=None):
    return check(_libc.prctl(option, a, b, c, d), what or 'prctl %d' % option)


def mount(src, target, fstype, flags, data=None, what=None):
    enc = lambda s: None if s is None else s.encode()
    check(_libc.mount(enc(src), enc(target), enc(fstype), flags, enc(data)), what or 'mount %s' % target)


def write_file(path, text):
    fd = os.open(path, os.O_WRONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    try:
        os.write(fd, text.encode())
    finally:
        os.close(fd)


def path_is_clean(p):
    """Absolute, no empty, '.' or '..' component, no trailing slash, no NUL."""
    if not isinstance(p, str) or not p.startswith('/') or len(p) >= 4096 or '\0' in p:
        return False
    return p == '/' or all(c not in ('', '.', '..') for c in p[1:].split('/'))


def path_is_under(path, prefix):
    return prefix == '/' or path == prefix or path.startswith(prefix + '/')


# ---- the run message -------------------------------------------------------

class Run:
    pass


def _int(v, lo, hi, name):
    if type(v) is not int or not lo <= v <= hi:
        raise ValueError('%s: want an integer in [%d, %d]' % (name, lo, hi))
    return v


def parse_run(msg, fds):
    """The run message, every field checked; ValueError says which."""
    r = Run()
    r.id = _int(msg.get('id'), 0, 2 ** 63, 'id')
    argv = msg.get('argv')
    if (not isinstance(argv, list) or len(argv) < 5 or not all(isinstance(a, str) and '\0' not in a for a in argv)
            or argv[1:4] != ['-I', '-B', '-c']):
        raise ValueError('argv: want [PYTHON, "-I", "-B", "-c", SOURCE, ARGS...]')
    r.argv, r.source, r.args = argv, argv[4], argv[5:]
    r.cwd = msg.get('cwd')
    if not path_is_clean(r.cwd) or not r.cwd.startswith('/tmp/') or SCRATCH in r.cwd.split('/'):
        raise ValueError('cwd: want a clean absolute path under /tmp/')
    env = msg.get('env')
    if (not isinstance(env, list) or len(env) > MAX_ENV or
            not all(isinstance(e, str) and '\0' not in e and e.find('=') > 0 for e in env)):
        raise ValueError('env: want at most %d strings NAME=VALUE' % MAX_ENV)
    r.env = [e.split('=', 1) for e in env]
    files = msg.get('files')
    if (not isinstance(files, list) or len(files) > MAX_FILES or
            not all(isinstance(f, str) and f not in ('', '.', '..') and '/' not in f and '\0' not in f
                    and len(f.encode()) < 256 for f in files) or len(set(files)) != len(files)):
        raise ValueError('files: want at most %d distinct plain file names' % MAX_FILES)
    r.files = files
    lim = msg.get('limits')
    if not isinstance(lim, dict) or set(lim) != set(LIMIT_KEYS):
        raise ValueError('limits: want exactly %s' % ', '.join(LIMIT_KEYS))
    big = 2 ** 63 - 1
    r.timeout_ms = _int(lim['timeout_ms'], 1, big, 'timeout_ms')
    r.cpu_s = _int(lim['cpu_s'], 1, 2 ** 31, 'cpu_s')
    r.memory = None if lim['memory'] is None else _int(lim['memory'], 1, big, 'memory')
    r.nproc = _int(lim['nproc'], 1, 2 ** 31, 'nproc')
    r.fsize = _int(lim['fsize'], 0, big, 'fsize')
    r.nofile = _int(lim['nofile'], 3, 2 ** 31, 'nofile')
    r.tmpfs = _int(lim['tmpfs'], 4096, big, 'tmpfs')
    if len(fds) != 3 + len(files):
        raise ValueError('want %d fds (stdout, stderr, status, files), got %d' % (3 + len(files), len(fds)))
    r.stdout_w, r.stderr_w, r.status_w = fds[:3]
    r.file_fds = fds[3:]
    return r


# ---- the status line (helper/util.c outcome_format, supervise.c classify) ---

def json_string(s):
    return json.dumps(s, ensure_ascii=True)[1:-1]


def status_line(o):
    return ('{"status":"%s","exit_code":%d,"signal":%d,"wall_s":%.4f,"cpu_s":%.4f,"max_rss_kb":%d,'
            '"memory_peak":null,"oom_killed":false,"nproc_mode":"%s","message":"%s"}\n' %
            (o['status'], o['exit_code'], o['signal'], o['wall_s'], o['cpu_s'], o['max_rss_kb'],
             o['nproc_mode'], json_string(o['message'][:511])))


def classify(r, timed_out, o, wait_status, setup_msg):
    if timed_out:
        o['status'], o['signal'] = 'timeout', 9
    elif setup_msg is not None or wait_status is None:
        o['status'] = 'setup-error'
        o['message'] = setup_msg if setup_msg is not None else 'sandbox init died'
    elif os.WIFEXITED(wait_status):
        o['status'], o['exit_code'] = 'exited', os.WEXITSTATUS(wait_status)
    else:
        sig = o['signal'] = os.WTERMSIG(wait_status)
        o['status'] = 'signaled'
        if sig == 24 or (sig == 9 and o['cpu_s'] >= r.cpu_s):           # SIGXCPU, SIGKILL
            o['status'] = 'cpu-limit'
        # A guess: an RLIMIT_AS failure leaves no trace but a crash near the limit.
        elif sig in (11, 6, 7) and r.memory is not None and o['max_rss_kb'] * 1024 >= r.memory // 2:
            o['status'] = 'memory-limit'


# ---- namespaces, mounts, privileges ---------------------------------------

def map_self_to(uid_inside, gid_inside, uid_outside, gid_outside):
    """Just after unshare(CLONE_NEWUSER): the one mapping an unprivileged
    process may write for itself. Dumpable meanwhile: else /proc/self is
    root's and the maps cannot be opened."""
    prctl(PR_SET_DUMPABLE, 1)
    write_file('/proc/self/setgroups', 'deny')
    write_file('/proc/self/uid_map', '%d %d 1' % (uid_inside, uid_outside))
    write_file('/proc/self/gid_map', '%d %d 1' % (gid_inside, gid_outside))


def unmount_below_proc():
    """The tier's read-only binds over /proc/sys and the like (bwrap makes
    them) would be locked in a user namespace of ours, and a locked bind
    over a /proc file makes the kernel refuse B's fresh /proc."""
    points = []
    with open('/proc/self/mountinfo', 'rb') as f:
        for line in f:
            mp = line.split()[4].decode().replace('\\040', ' ').replace('\\011', '\t').replace('\\012', '\n')
            if mp.startswith('/proc/'):
                points.append(mp)
    for mp in reversed(points):
        check(_libc.umount2(mp.encode(), MNT_DETACH), 'unmount %s' % mp)


def bring_up_lo():
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        fcntl.ioctl(s.fileno(), SIOCSIFFLAGS, struct.pack('16sH22x', b'lo', IFF_UP | IFF_RUNNING))
    except OSError as e:
        raise SetupError('bring up loopback: %s' % e.strerror)
    finally:
        s.close()


def limit_ipc_namespace(r):
    """As limits_ipc_namespace: SysV shm at most --memory (tmpfs for none),
    in few segments, few message queues. Written as root of B's own user
    namespace, which owns the IPC namespace (else the kernel refuses)."""
    size = r.tmpfs if r.memory is None else r.memory
    page = os.sysconf('SC_PAGESIZE')
    for key, value in (('shmmax', size), ('shmall', size // page), ('shmmni', SBX_SHMMNI), ('msgmni', SBX_MSGMNI)):
        try:
            write_file('/proc/sys/kernel/' + key, str(value))
        except OSError as e:
            raise SetupError('write /proc/sys/kernel/%s in the run\'s IPC namespace: %s' % (key, e.strerror))


def bind(src, target, flags):
    mount(src, target, None, MS_BIND, what='bind %s' % target)
    mount(None, target, None, MS_REMOUNT | MS_BIND | flags, what='remount %s' % target)


def mount_setattr_recursive_ro(path):
    attr = struct.pack('QQQQ', MOUNT_ATTR_RDONLY, 0, 0, 0)
    check(_libc.syscall(ctypes.c_long(SYS_MOUNT_SETATTR), ctypes.c_int(-100), path.encode(),
                        ctypes.c_uint(AT_RECURSIVE), attr, ctypes.c_size_t(len(attr))),
          'make %s read-only' % path)


def binds_below(dirs):
    """The session's binds under the directories the run's tmpfs covers (a
    venv or --ro-bind under /tmp or a home), each as a detached copy of
    its mount tree, to put back at its own path on top (as the cold path
    binds them after its /tmp): (path, is_dir, fd) in mount order."""
    with open('/proc/self/mountinfo', 'rb') as f:
        points = [re.sub(r'\\([0-7]{3})', lambda m: chr(int(m.group(1), 8)), l.split()[4].decode())
                  for l in f]
    kept = []
    for p in points:
        if (any(path_is_under(p, d) and p != d for d in dirs) and
                not any(path_is_under(p, k) for k, _, _ in kept)):
            fd = check(_libc.syscall(ctypes.c_long(SYS_OPEN_TREE), ctypes.c_int(-100), p.encode(),
                                     ctypes.c_uint(OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_RECURSIVE)),
                       'copy the bind %s' % p)
            kept.append((p, os.path.isdir(p), fd))
    return kept


def put_back(kept):
    for path, is_dir, fd in kept:
        os.makedirs(os.path.dirname(path), 0o755, exist_ok=True)
        if is_dir:
            os.makedirs(path, 0o755, exist_ok=True)
        elif not os.path.exists(path):
            os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o444))
        check(_libc.syscall(ctypes.c_long(SYS_MOVE_MOUNT), ctypes.c_int(fd), b'', ctypes.c_int(-100),
                            path.encode(), ctypes.c_uint(MOVE_MOUNT_F_EMPTY_PATH)), 'bind %s again' % path)
        os.close(fd)


def add_proc():
    flags = MS_NOSUID | MS_NODEV | MS_NOEXEC
    if _libc.mount(b'proc', b'/proc', b'proc', flags, None) == -1:
        # The tier's /proc read-only and locked so: a new one must be too.
        mount('proc', '/proc', 'proc', flags | MS_RDONLY, what='mount a fresh /proc')
    for name in PROC_READ_ONLY:
        p = '/proc/' + name
        if os.path.lexists(p):
            bind(p, p, MS_RDONLY | flags)


def build_root(r, uid, gid):
    """B's mounts: everything inherited read-only, a fresh /proc, one tmpfs
    of r.tmpfs bytes whose directories are /tmp, /dev/shm and the homes;
    the workdir in it, its files copied in and bound read-only."""
    # Whatever the zygote's sandbox left writable (its /tmp, home, a host's
    # /var/tmp) is read-only here: nothing a sample writes outlives its run
    # but in the run's own tmpfs.
    mount_setattr_recursive_ro('/')
    stamp('b_setattr')
    add_proc()
    stamp('b_proc')
    homes = []
    for h in (_ZYGOTE_HOME, dict(r.env).get('HOME')):
        if (h and path_is_clean(h) and h != '/' and h not in homes and
                not any(path_is_under(h, d) for d in ('/tmp', '/proc', '/dev', '/sys'))):
            homes.append(h)
    kept = binds_below(['/tmp', '/dev/shm'] + homes)
    size = 'size=%d,nr_inodes=%d,mode=0755' % (r.tmpfs, r.tmpfs // INODE_BYTES + 64)
    mount('tmpfs', '/tmp', 'tmpfs', MS_NOSUID | MS_NODEV, size, what='mount the run\'s tmpfs on /tmp')
    scratch = '/tmp/' + SCRATCH
    os.mkdir(scratch, 0o700)
    for name, mode in (('tmp', 0o1777), ('shm', 0o1777), ('home', 0o700)):
        os.mkdir(scratch + '/' + name, mode)
    if os.path.isdir('/dev/shm') and not os.path.islink('/dev/shm'):
        bind(scratch + '/shm', '/dev/shm', MS_NOSUID | MS_NODEV)
    for h in homes:
        if os.path.isdir(h) and not os.path.islink(h):
            bind(scratch + '/home', h, MS_NOSUID | MS_NODEV)
    bind(scratch + '/tmp', '/tmp', MS_NOSUID | MS_NODEV)
    for h in (_ZYGOTE_HOME, dict(r.env).get('HOME')):
        if h and path_is_clean(h) and h.startswith('/tmp/'):
            os.makedirs(h, 0o700, exist_ok=True)
    put_back(kept)
    os.umask(0o022)
    os.makedirs(r.cwd, 0o755, exist_ok=True)
    os.chmod(r.cwd, 0o700)
    stamp('b_binds')
    for name, src in zip(r.files, r.file_fds):
        copy_in(src, r.cwd + '/' + name)
        bind(r.cwd + '/' + name, r.cwd + '/' + name, MS_RDONLY | MS_NOSUID | MS_NODEV)


def copy_in(src, path):
    if not stat.S_ISREG(os.fstat(src).st_mode):
        raise SetupError('%s: not a regular file' % path)
    out = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
    try:
        offset = 0
        while True:
            n = os.sendfile(out, src, offset, 1 << 30)
            if n == 0:
                break
            offset += n
    except OSError as e:
        raise SetupError('copy %s into the workdir: %s' % (path, e.strerror))
    finally:
        os.close(out)


def caps_clear():
    """Every capability set emptied, then checked: a failed drop must never
    run anything (helper/privs.c privs_clear_caps)."""
    cap = 0
    while _libc.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) == 0:
        cap += 1
    if ctypes.get_errno() != errno.EINVAL or cap == 0:
        raise SetupError('cannot clear the bounding set: %s' % os.strerror(ctypes.get_errno()))
    prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, what='clear the ambient set')
    head = struct.pack('Ii', LINUX_CAPABILITY_VERSION_3, 0)
    check(_libc.syscall(ctypes.c_long(SYS_CAPSET), head, bytes(24)), 'cannot drop capabilities')
    data = ctypes.create_string_buffer(24)
    check(_libc.syscall(ctypes.c_long(SYS_CAPGET), head, data), 'capget')
    if any(data.raw) or any(_libc.prctl(PR_CAPBSET_READ, c, 0, 0, 0) != 0 for c in range(cap)) or \
            any(_libc.prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_IS_SET, c, 0, 0) != 0 for c in range(cap)):
        raise SetupError('capabilities still present after dropping them')


def set_rlimit(res, soft, hard):
    """Never above the hard limit in force: only ever lowered (limits_set)."""
    old_hard = resource.getrlimit(res)[1]
    inf = resource.RLIM_INFINITY
    h = hard if old_hard == inf or (hard != inf and hard < old_hard) else old_hard
    s = soft if h == inf or (soft != inf and soft < h) else h
    resource.setrlimit(res, (s, h))


def apply_rlimits(r):
    inf = resource.RLIM_INFINITY
    set_rlimit(resource.RLIMIT_CPU, r.cpu_s, r.cpu_s + 1)       # SIGXCPU, SIGKILL a second later
    set_rlimit(resource.RLIMIT_AS, inf if r.memory is None else r.memory, inf if r.memory is None else r.memory)
    set_rlimit(resource.RLIMIT_FSIZE, r.fsize, r.fsize)
    set_rlimit(resource.RLIMIT_NOFILE, r.nofile, r.nofile)
    set_rlimit(resource.RLIMIT_CORE, 0, 0)
    set_rlimit(resource.RLIMIT_STACK, STACK_BYTES, STACK_BYTES)
    set_rlimit(resource.RLIMIT_MEMLOCK, 0, 0)
    set_rlimit(resource.RLIMIT_MSGQUEUE, 0, 0)
    set_rlimit(resource.RLIMIT_SIGPENDING, SIGPENDING, SIGPENDING)
    # Lowered to the run's cap in C's own user namespace (it counts there).
    set_rlimit(resource.RLIMIT_NPROC, inf, inf)


def install_seccomp():
    n = len(_BPF) // 8
    buf = ctypes.create_string_buffer(_BPF, len(_BPF))

    class SockFprog(ctypes.Structure):
        _fields_ = [('len', ctypes.c_ushort), ('filter', ctypes.c_void_p)]
    prog = SockFprog(n, ctypes.addressof(buf))
    check(_libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.addressof(prog), 0, 0), 'seccomp filter')


def reset_signals(table):
    for sig in range(1, _signal.NSIG):
        h = table.get(sig)
        h = h if h is not None else _signal.SIG_DFL
        try:
            if _signal.getsignal(sig) is not h:     # Python's view is the kernel's: no syscall for the rest
                _signal.signal(sig, h)
        except (OSError, ValueError, TypeError):
            pass
    _signal.pthread_sigmask(_signal.SIG_SETMASK, [])


def exit_if_orphaned(life_r):
    """Dies with its parent; a hung-up pipe: the parent died before."""
    prctl(PR_SET_PDEATHSIG, 9)
    p = select.poll()
    p.register(life_r, 0)
    if p.poll(0):
        os._exit(SETUP_EXIT)


# ---- the processes ---------------------------------------------------------

def child(fn, *args):
    """A forked child never returns into the zygote's loop."""
    code = SETUP_EXIT
    try:
        code = fn(*args)
    except BaseException as e:
        diag('%s: %s' % (fn.__name__, e))
    finally:
        os._exit(code if isinstance(code, int) else SETUP_EXIT)


# Why a raw clone(2) and not os.fork (docs/warm.md, "Who runs what"): B is
# made straight into the run's namespaces (the flags: the user namespace
# first, which then owns the others), so no intermediate process A. What a
# raw clone skips, and why each is safe here:
# - glibc's fork(): its atfork handlers and the child's lock resets (malloc
#   arenas, stdio list, dl_load_lock), the child's cached tid in its
#   struct pthread (CLONE_CHILD_SETTID), its robust-futex list, the
#   fork generation of pthread_once. The zygote is single-threaded and is
#   inside a ctypes call, so no lock is held when the address space is
#   copied; B's stale cached tid is only ever compared with itself (B has no
#   second thread; C is made by glibc's fork, which sets C's own), raise()
#   and pthread_kill on oneself use gettid(2), getpid() is not cached
#   (glibc >= 2.25); nothing of ours uses robust mutexes or pthread_once
#   across the clone. A vDSO getrandom state is wiped by the kernel on any
#   fork (VM_WIPEONFORK).
# - CPython's PyOS_BeforeFork/AfterFork_Child: the import lock is not held
#   (no import in flight), the GIL is held across the call by this very
#   thread (PyDLL: never released, so B returns from the call owning it, with
#   the same pthread_self()), no other thread state to delete, no
#   os.register_at_fork callbacks run in B (threading's and random's: B makes
#   no thread and draws no random number; C is made with os.fork, which runs
#   them, and C reseeds random itself). The signal trip flags are not
#   cleared: the zygote has no Python-level signal handler (SIGCHLD and
#   SIGINT are SIG_DFL, SIGPIPE ignored), so none can be pending for B to run.
# - The stack: 0, so B goes on on a copy of the zygote's, as after fork.
# - Buffered Python output: the zygote writes only with os.write.
# The zygote stays the only process that returns into serve(): child() ends
# B with os._exit.
_PYLIBC = ctypes.PyDLL(None, use_errno=True)
_PYLIBC.syscall.restype = ctypes.c_long
SIGCHLD = 17
RUN_CLONE_FLAGS = (CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWIPC | CLONE_NEWUTS | CLONE_NEWNET | CLONE_NEWPID |
                   SIGCHLD)


def clone_run():
    """clone(flags, stack 0, parent_tid, child_tid, tls): 0 in B, B's pid in the zygote."""
    return check(_PYLIBC.syscall(ctypes.c_long(SYS_CLONE), ctypes.c_ulong(RUN_CLONE_FLAGS), ctypes.c_ulong(0),
                                 ctypes.c_ulong(0), ctypes.c_ulong(0), ctypes.c_ulong(0)),
                 'clone the run\'s namespaces')


def run_sample(r):
    """In the zygote, one run at a time (sbx-run sends the next only when this
    one's pipes are closed): clones B, enforces the wall clock, reaps B and
    writes the status line; every fd of the run closed on return."""
    start = _monotonic()
    o = {'status': 'setup-error', 'exit_code': 0, 'signal': 0, 'wall_s': 0.0, 'cpu_s': 0.0,
         'max_rss_kb': 0, 'nproc_mode': 'none', 'message': ''}
    info_r = info_w = life_r = life_w = -1
    pid = -1
    try:
        if _SETUP_ERROR is not None:
            raise SetupError(_SETUP_ERROR)
        info_r, info_w = os.pipe2(os.O_CLOEXEC)
        life_r, life_w = os.pipe2(os.O_CLOEXEC)
        stamp('z_clone')
        pid = clone_run()
        if pid == 0:
            os.close(info_r)
            os.close(life_w)
            child(b_main, r, info_w, life_r)
    except SetupError as e:
        o['message'] = str(e)
    except OSError as e:
        o['message'] = 'set up the run: %s' % e
    for fd in (r.stdout_w, r.stderr_w, *r.file_fds, info_w, life_r):
        if fd >= 0:
            os.close(fd)
    timed_out, ws_b, ru = False, None, None
    if pid > 0:
        pidfd = os.pidfd_open(pid)
        p = select.poll()
        p.register(pidfd, select.POLLIN)
        deadline = start + r.timeout_ms / 1000.0
        timed_out = True
        while True:
            left = deadline - _monotonic()
            if left <= 0:
                break
            if p.poll(max(1, int(left * 1000 + 0.999))):
                timed_out = False
                break
        if timed_out:
            _signal.pidfd_send_signal(pidfd, 9)
        _, ws_b, ru = os.wait4(pid, 0)
        os.close(pidfd)
        stamp('z_reaped')
    if life_w >= 0:
        os.close(life_w)
    o['wall_s'] = _monotonic() - start
    if ru is not None:
        o['cpu_s'] = ru.ru_utime + ru.ru_stime
        o['max_rss_kb'] = ru.ru_maxrss
    wait_status, setup_msg = None, None
    data = b''
    while info_r >= 0:
        chunk = os.read(info_r, 65536)
        if not chunk:
            break
        data += chunk
    if info_r >= 0:
        os.close(info_r)
    for line in data.decode('utf-8', 'replace').splitlines():
        kind, _, rest = line.partition(' ')
        if kind == 'E' and setup_msg is None:
            setup_msg = rest
        elif kind == 'U':
            o['nproc_mode'] = 'userns'
        elif kind == 'W':
            wait_status = int(rest)
    if pid < 0:
        setup_msg = o['message']
    classify(r, timed_out, o, wait_status, setup_msg)
    line = status_line(o).encode()
    try:
        os.write(r.status_w, line)
    except OSError as e:
        diag('run %d: writing the status: %s' % (r.id, e))
    os.close(r.status_w)
    stamp('z_status')
    trace_report(r.id)


def b_main(r, info_w, life_r):
    """Pid 1 of the run, cloned into its namespaces: what makes them the
    run's (maps, hostname, lo, IPC limits), the mounts, then C; reaps
    everything, and when C ends kills what is left and tells the zygote C's
    wait status."""
    # Default dispositions: the kernel then drops every signal sent to pid 1
    # from inside its namespace (no handler of ours a sample could trigger).
    stamp('b_start')
    reset_signals({})
    os.close(_CTL.detach())
    os.close(r.status_w)
    try:
        # Dies with the zygote (its parent); a hung-up pipe: it died before.
        exit_if_orphaned(life_r)
        # The run's own user namespace, where B is root (the caller's uid
        # outside): it owns every namespace of the run, so its root may set
        # the IPC namespace's limits, and the zygote's creds do not matter.
        map_self_to(0, 0, _UID, _GID)
        prctl(PR_SET_DUMPABLE, 0)
        stamp('b_maps')
        check(_libc.sethostname(b'sbx', 3), 'sethostname')
        bring_up_lo()
        stamp('b_host_lo')
        limit_ipc_namespace(r)
        stamp('b_ipc')
        os.umask(0)
        build_root(r, _UID, _GID)
        cpid = os.fork()
        if cpid == 0:
            child(c_main, r, info_w)
    except (SetupError, OSError) as e:
        os.write(info_w, ('E %s\n' % e).encode('utf-8', 'replace'))
        return SETUP_EXIT
    for fd in (r.stdout_w, r.stderr_w, *r.file_fds, life_r):
        os.close(fd)
    # Out of the sample's reach, able to do no more than reap.
    try:
        caps_clear()
        prctl(PR_SET_NO_NEW_PRIVS, 1)
        install_seccomp()
    except SetupError as e:
        os.write(info_w, ('E confine init: %s\n' % e).encode())
        kill_all()
    status = None
    while True:
        try:
            pid, ws = os.waitpid(-1, 0)
        except ChildProcessError:
            break
        if pid == cpid:
            stamp('b_reaped')
            status = ws
            kill_all()
    if status is not None:
        os.write(info_w, ('W %d\n' % status).encode())
    return 0


def kill_all():
    try:
        os.kill(-1, 9)
    except ProcessLookupError:
        pass        # nothing left


def c_main(r, info_w):
    """The candidate: everything a cold run's candidate gets, then the sample."""
    stamp('c_start')
    reset_signals(_BOOT_SIGNALS)
    prctl(PR_SET_PDEATHSIG, 9)
    stamp('c_signals')
    try:
        os.setsid()
        null = os.open('/dev/null', os.O_RDONLY)
        os.dup2(null, 0)
        os.dup2(r.stdout_w, 1)
        os.dup2(r.stderr_w, 2)
        # info_w at 3, every other fd closed (the zygote's objects keep no
        # fd a sample's could be mistaken for: they are all detached).
        os.dup2(info_w, 3, inheritable=False)
        check(_libc.syscall(ctypes.c_long(SYS_CLOSE_RANGE), ctypes.c_uint(4), ctypes.c_uint(0xffffffff),
                            ctypes.c_uint(0)), 'close_range')
        info_w = 3
        stamp('c_setsid_fds')
        apply_rlimits(r)
        # RLIMIT_NPROC counts per user namespace: in one of C's own, the cap
        # is this run's alone, as a cold run's candidate (not the zygote's,
        # B's too). C maps the caller's ids back to themselves.
        check(_libc.unshare(CLONE_NEWUSER), 'unshare the candidate\'s user namespace')
        map_self_to(_UID, _GID, 0, 0)
        set_rlimit(resource.RLIMIT_NPROC, r.nproc, r.nproc)
        os.write(info_w, b'U\n')
        stamp('c_userns')
        caps_clear()
        stamp('c_caps')
        os.chdir(r.cwd)
        os.umask(0o022)
        prctl(PR_SET_NO_NEW_PRIVS, 1)
        install_seccomp()
        # What exec would have given: a dumpable process (its own /proc/self).
        prctl(PR_SET_DUMPABLE, 1)
        stamp('c_seccomp')
    except (SetupError, OSError) as e:
        os.write(info_w, ('E %s\n' % e).encode('utf-8', 'replace'))
        return SETUP_EXIT
    os.environ.clear()
    for k, v in r.env:
        os.environ[k] = v
    # Kept alive meanwhile: freeing the zygote's modules would write (copy)
    # every page they are on.
    forgotten = [sys.modules.pop(m) for m in [m for m in sys.modules if m not in _BOOT_MODULES]]
    sys.path[:] = _BOOT_PATH
    sys.path_importer_cache.clear()
    if 'random' in sys.modules:
        sys.modules['random'].seed()
    sys.argv = ['-c'] + r.args
    sys.orig_argv = list(r.argv)
    main = type(sys)('__main__')
    main.__dict__.update(__loader__=_MAIN_LOADER, __spec__=None, __package__=None, __annotations__={},
                         __builtins__=sys.modules['builtins'])
    sys.modules['__main__'] = main
    os.close(info_w)
    stamp('c_modules_env')
    code = run_source(r.source, main.__dict__)
    stamp('c_sample')
    return finish(code)


def run_source(source, namespace):
    """`python -c SOURCE`: the exit code an uncaught exception or SystemExit gives."""
    try:
        exec(compile(source, '<string>', 'exec'), namespace)
        return 0
    except SystemExit as e:
        return exit_code_of(e)
    except BaseException as e:
        try:
            tb = e.__traceback__.tb_next if e.__traceback__ else None    # not run_source's frame
            sys.excepthook(type(e), e.with_traceback(tb), tb)
        except BaseException:
            pass
        return -2 if isinstance(e, KeyboardInterrupt) else 1


def exit_code_of(e):
    code = e.code
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xff
    try:
        sys.stderr.write(str(code) + '\n')
    except BaseException:
        pass
    return 1


def finish(code):
    """What Py_Finalize does first: threads joined, atexit, stdio flushed."""
    t = sys.modules.get('threading')
    try:
        if t is not None:
            t._shutdown()
    except BaseException:
        pass
    try:
        atexit._run_exitfuncs()
    except BaseException:
        pass
    for f in (sys.stdout, sys.stderr):
        try:
            if f is not None:
                f.flush()
        except BaseException:
            if f is sys.stdout and code == 0:
                code = 120
    if code == -2:      # an uncaught KeyboardInterrupt ends by SIGINT, as python does
        _signal.signal(_signal.SIGINT, _signal.SIG_DFL)
        os.kill(os.getpid(), _signal.SIGINT)
        code = 130
    os._exit(code)


# ---- the zygote ------------------------------------------------------------

def recv_message():
    """One message and its fds; None at EOF."""
    while True:
        try:
            data, anc, flags, _ = _CTL.recvmsg(MAX_MESSAGE, socket.CMSG_SPACE(MAX_FDS * 4))
            break
        except InterruptedError:
            continue
    fds = []
    for level, kind, payload in anc:
        if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
            a = array.array('i')
            a.frombytes(payload[:len(payload) - len(payload) % a.itemsize])
            fds.extend(a)
    for fd in fds:
        os.set_inheritable(fd, False)
    if not data and not fds:
        return None
    if flags & (socket.MSG_TRUNC | socket.MSG_CTRUNC):
        close_all(fds)
        raise ValueError('message or its fds truncated')
    return data, fds


def close_all(fds):
    for fd in fds:
        try:
            os.close(fd)
        except OSError:
            pass


def read_bpf(fd):
    chunks = []
    while True:
        b = os.read(fd, 65536)
        if not b:
            break
        chunks.append(b)
    prog = b''.join(chunks)
    if not prog or len(prog) % 8 or len(prog) // 8 > 4096:
        raise ValueError('seccomp program: %d bytes, want a non-empty multiple of 8' % len(prog))
    return prog


def handle(data, fds):
    global _BPF
    try:
        msg = json.loads(data.decode('utf-8'))
        if not isinstance(msg, dict):
            raise ValueError('not a JSON object')
        op = msg.get('op')
        if op == 'init':
            if len(fds) != 1:
                raise ValueError('init: want one fd, got %d' % len(fds))
            _BPF = read_bpf(fds[0])
            return
        if op != 'run':
            raise ValueError('unknown op %r' % (op,))
        if _BPF is None:
            raise ValueError('run before init')
        r = parse_run(msg, fds)
    except Exception as e:          # whatever a message holds, the zygote goes on
        diag('bad message skipped: %s: %s' % (type(e).__name__, e))
        return
    fds.clear()                     # run_sample's to close
    run_sample(r)


def serve():
    while True:
        try:
            got = recv_message()
        except ValueError as e:
            diag('bad message skipped: %s' % e)
            continue
        except OSError as e:
            diag('control socket: %s' % e)
            return
        if got is None:
            return
        data, fds = got
        try:
            handle(data, fds)
        finally:
            close_all(fds)


def own_mount_namespace():
    """Once, in the zygote's user namespace, with its CAP_SYS_ADMIN: a mount
    namespace of its own where the tier's binds over /proc are not locked,
    and unmounted, so that each run's copy (locked) has none."""
    check(_libc.unshare(CLONE_NEWNS), 'unshare the mount namespace')
    mount(None, '/', None, MS_REC | MS_PRIVATE, what='make / private')
    unmount_below_proc()


def main():
    global _CTL, _ZYGOTE_PID, _UID, _GID, _ZYGOTE_HOME, _MAIN_LOADER, _SETUP_ERROR
    prctl(PR_SET_DUMPABLE, 0)
    try:
        own_mount_namespace()
    except (SetupError, OSError) as e:
        # Every run then a setup-error, as when a run's own set-up fails:
        # sbx-run runs the suite cold.
        _SETUP_ERROR = 'zygote set-up: %s' % e
    ctl = os.dup(0)             # close-on-exec, off fd 0
    null = os.open('/dev/null', os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    _CTL = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET, fileno=ctl)
    _ZYGOTE_PID, _UID, _GID = os.getpid(), os.getuid(), os.getgid()
    _ZYGOTE_HOME = os.environ.get('HOME')
    _MAIN_LOADER = getattr(sys.modules['__main__'], '__loader__', None)
    _signal.signal(_signal.SIGINT, _signal.SIG_DFL)
    # No Python-level handler at all (B, a raw clone, must find none pending):
    # the zygote waits for its one child itself.
    _signal.signal(_signal.SIGCHLD, _signal.SIG_DFL)
    _CTL.send(json.dumps({'ready': 1, 'pid': _ZYGOTE_PID}).encode())
    gc.collect()
    gc.freeze()     # out of the collector's reach: a child's collection would write (copy) them all
    serve()


_monotonic = time.monotonic
_BPF = None
_CTL = None
_SETUP_ERROR = None
main()
