# sbx's trusted zygote (docs/warm.md), part 1 of 4: the parts in frontend/warm/zygote/
# are joined in name order into one program (common/common.mk), compiled
# apart by boot/compile-apart.py, which the build appends; run as
# `PYTHON -I -B -c SOURCE` with
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
# And its address space, should a fresh interpreter's not be measurable
# (fresh_vm_pages).
with open('/proc/self/statm', 'rb') as _f:
    _BOOT_VM_PAGES = int(_f.read().split()[0])
# Only what the zygote, B and C use: C forgets each of them per sample (and
# socket.py would bring enum classes and selectors for nothing: _socket does).
import os, json, _socket, select, ctypes, struct, resource, array, errno, atexit, time, gc, re

_libc = ctypes.CDLL(None, use_errno=True)
_PAGE_BYTES = os.sysconf('SC_PAGESIZE')
_libc.syscall.restype = ctypes.c_long
_libc.prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong]
_libc.mount.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_ulong, ctypes.c_char_p]
_libc.umount2.argtypes = [ctypes.c_char_p, ctypes.c_int]
_libc.waitpid.argtypes = [ctypes.c_int, ctypes.POINTER(ctypes.c_int), ctypes.c_int]

CLONE_NEWNS, CLONE_NEWPID = 0x20000, 0x20000000
MS_NOSUID, MS_NODEV, MS_NOEXEC, MS_REC, MS_PRIVATE = 2, 4, 8, 16384, 1 << 18
MNT_DETACH = 2
PR_SET_PDEATHSIG, PR_SET_DUMPABLE, PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL = 1, 4, 47, 4
WNOHANG = 1
SYS_CAPSET = {'x86_64': 126, 'aarch64': 91}.get(os.uname().machine, 126)
LINUX_CAPABILITY_VERSION_3 = 0x20080522

SETUP_EXIT = 127            # C died before the sample's code: B says why
MAX_MESSAGE = 1 << 23
MAX_FDS = 253               # SCM_MAX_FD
MAX_FILES = 64              # as the helper's --ro-bind
MAX_ENV = 256
MAX_SOURCES = 8            # trusted sources in the init message
STACK_BYTES, SIGPENDING = 8 << 20, 256
SCRATCH = '.sbx-tmpfs'      # sbx-run-init's INIT_SCRATCH: no run's cwd may name it
LIMIT_KEYS = ('timeout_ms', 'cpu_s', 'memory', 'nproc', 'fsize', 'nofile', 'tmpfs')


# SBX_ZYGOTE_TRACE=FILE in the zygote's environment: per-phase CLOCK_MONOTONIC stamps, the
# process's cpu and its minor page faults so far (getrusage: copies on write show there), on a
# shared page, which the zygote appends to FILE per run: {phase: [ms since just before the
# spawn of B, the stamping process's cpu ms, its minor faults]}.
PHASES = ('z_spawn z_ready c_start c_signals c_confined c_modules_env c_sample z_c_reaped z_status '
          'z_reaped').split()
_TRACE_FILE = os.environ.get('SBX_ZYGOTE_TRACE')
if _TRACE_FILE:
    import mmap             # the trace's alone
_TRACE = mmap.mmap(-1, 24 * len(PHASES)) if _TRACE_FILE else None
_TRACE_FD = os.open(_TRACE_FILE, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o600) if _TRACE else -1


def stamp(phase):
    if _TRACE is not None:
        struct.pack_into('QQQ', _TRACE, 24 * PHASES.index(phase), time.monotonic_ns(), time.process_time_ns(),
                         resource.getrusage(resource.RUSAGE_SELF).ru_minflt)


def trace_report(c_ru, b_ru):
    """C's and B0's wait4 rusage (B0's: B1 and what it reaped), as "c" and
    "b": [cpu ms, minor faults]."""
    if _TRACE is not None:
        t = struct.unpack_from('%dQ' % (3 * len(PHASES)), _TRACE)
        rec = {p: [(t[3 * i] - t[0]) / 1e6, t[3 * i + 1] / 1e6, t[3 * i + 2]] for i, p in enumerate(PHASES)}
        for key, ru in (('c', c_ru), ('b', b_ru)):
            if ru is not None:
                rec[key] = [(ru.ru_utime + ru.ru_stime) * 1e3, ru.ru_minflt]
        os.write(_TRACE_FD, ('%s\n' % json.dumps(rec)).encode())
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


def _enc(s):
    return None if s is None else s.encode()


def mount(src, target, fstype, flags, data=None, what=None):
    """The message is made only when the mount fails."""
    if _libc.mount(_enc(src), _enc(target), _enc(fstype), flags, _enc(data)) == -1:
        check(-1, what or 'mount %s' % target)


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
    if len(fds) != 4 + len(files):
        raise ValueError('want %d fds (stdout, stderr, status, stdin, files), got %d' % (4 + len(files), len(fds)))
    r.stdout_w, r.stderr_w, r.status_w, r.stdin_r = fds[:4]
    r.file_fds = fds[4:]
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
