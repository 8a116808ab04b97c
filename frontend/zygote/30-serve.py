# sbx zygote, part 4 of 4 (joined last, common/common.mk): the control socket
# loop and the zygote's start.

# ---- the zygote ------------------------------------------------------------

def recv_message():
    """One message and its fds; None at EOF."""
    while True:
        try:
            data, anc, flags, _ = _CTL.recvmsg(MAX_MESSAGE, _socket.CMSG_SPACE(MAX_FDS * 4))
            break
        except InterruptedError:
            continue
    fds = []
    for level, kind, payload in anc:
        if level == _socket.SOL_SOCKET and kind == _socket.SCM_RIGHTS:
            a = array.array('i')
            a.frombytes(payload[:len(payload) - len(payload) % a.itemsize])
            fds.extend(a)
    for fd in fds:
        os.set_inheritable(fd, False)
    if not data and not fds:
        return None
    if flags & (_socket.MSG_TRUNC | _socket.MSG_CTRUNC):
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


def compile_trusted(sources):
    """The init message's `sources` (sbx's own drivers, sent by sbx-run):
    compiled once here, so that C runs the code object for a run whose
    SOURCE is one of them instead of compiling it again, as
    `python -c` would have, with the same name."""
    if (not isinstance(sources, list) or len(sources) > MAX_SOURCES or
            not all(isinstance(t, str) and '\0' not in t for t in sources)):
        raise ValueError('init: sources: want at most %d strings' % MAX_SOURCES)
    compiled = {}
    for text in sources:
        try:
            compiled[text] = compile(text, '<string>', 'exec')
        except (SyntaxError, ValueError) as e:
            diag('init: a source does not compile, left to each run: %s' % e)
    return compiled


def handle(data, fds):
    global _BPF, _BPF_PROG, _COMPILED
    try:
        msg = json.loads(data.decode('utf-8'))
        if not isinstance(msg, dict):
            raise ValueError('not a JSON object')
        op = msg.get('op')
        if op == 'init':
            if len(fds) != 1:
                raise ValueError('init: want one fd, got %d' % len(fds))
            compiled = compile_trusted(msg.get('sources', []))
            _BPF = read_bpf(fds[0])
            _BPF_PROG, _COMPILED = seccomp_program(_BPF), compiled
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


_STATM_PROBE = "import os; os.write(1, open('/proc/self/statm', 'rb').read())"


def fresh_vm_pages():
    """A fresh `python -I -B -c`'s address space at its first line, in
    pages, measured once: C starts inside the zygote's, a few MB larger (its
    imports, its source compiled), and its RLIMIT_AS allows the difference on
    top of --memory (plan_root), so that a sample has a cold run's headroom."""
    r, w = os.pipe2(os.O_CLOEXEC)
    try:
        pid = os.posix_spawn(sys.executable, [sys.executable, '-I', '-B', '-c', _STATM_PROBE], dict(os.environ),
                             file_actions=[(os.POSIX_SPAWN_OPEN, 0, '/dev/null', os.O_RDONLY, 0),
                                           (os.POSIX_SPAWN_DUP2, w, 1)])
        os.close(w)
        w = -1
        out = read_to_eof(r)
        _, ws = os.waitpid(pid, 0)
        if ws != 0:
            raise ValueError('exit status %d' % ws)
        return int(out.split()[0])
    except (OSError, ValueError, IndexError) as e:
        diag('a fresh interpreter\'s size, for RLIMIT_AS: %s (the zygote\'s own at its start instead)' % e)
        return _BOOT_VM_PAGES
    finally:
        for fd in (r, w):
            if fd >= 0:
                os.close(fd)


def main():
    global _CTL, _ZYGOTE_PID, _UID, _GID, _ZYGOTE_HOME, _MAIN_LOADER, _SETUP_ERROR, _B_SIGNALS, _C_SIGNALS
    global _FRESH_VM_PAGES, _ZYGOTE_ENV, _FORGET
    prctl(PR_SET_DUMPABLE, 0)
    _FRESH_VM_PAGES = fresh_vm_pages()
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
    _CTL = _socket.socket(_socket.AF_UNIX, _socket.SOCK_SEQPACKET, 0, ctl)
    _ZYGOTE_PID, _UID, _GID = os.getpid(), os.getuid(), os.getgid()
    _ZYGOTE_HOME = os.environ.get('HOME')
    _MAIN_LOADER = getattr(sys.modules['__main__'], '__loader__', None)
    _signal.signal(_signal.SIGINT, _signal.SIG_DFL)
    # No Python-level handler at all (B, a raw clone, must find none pending):
    # the zygote waits for its one child itself.
    _signal.signal(_signal.SIGCHLD, _signal.SIG_DFL)
    _B_SIGNALS, _C_SIGNALS = signals_to_reset({}), signals_to_reset(_BOOT_SIGNALS)
    _ZYGOTE_ENV = zygote_environment()
    _FORGET = (len(sys.modules), tuple(m for m in sys.modules if m not in _BOOT_MODULES))
    _CTL.send(json.dumps({'ready': 1, 'pid': _ZYGOTE_PID}).encode())
    gc.collect()
    gc.freeze()     # out of the collector's reach: a child's collection would write (copy) them all
    serve()


_monotonic = time.monotonic
_BPF = None
_BPF_PROG = None
_COMPILED = {}
_CTL = None
_SETUP_ERROR = None
_FRESH_VM_PAGES = _BOOT_VM_PAGES
main()
