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


def memfd_with(name, data):
    fd = os.memfd_create(name, os.MFD_CLOEXEC)
    try:
        if os.write(fd, data) != len(data):
            raise ValueError('%s: short write' % name)
    except BaseException:
        os.close(fd)
        raise
    return fd


def init_program(fd):
    """sbx-run-init, as sbx-run sent it: spawned through this path."""
    st = os.fstat(fd)
    if st.st_mode & 0o170000 != 0o100000 or st.st_size == 0:
        raise ValueError('init: the run init is not a non-empty regular file')
    return '/proc/self/fd/%d' % fd


def handle(data, fds):
    global _BPF, _BPF_PROG, _BPF_FD, _INIT_PATH, _CANDIDATE, _COMPILED
    try:
        msg = json.loads(data.decode('utf-8'))
        if not isinstance(msg, dict):
            raise ValueError('not a JSON object')
        op = msg.get('op')
        if op == 'init':
            if len(fds) != 3 or _BPF is not None:
                raise ValueError('init: want one, with three fds (seccomp program, run init, the candidate\'s '
                                 'confinement), got %d' % len(fds))
            compiled = compile_trusted(msg.get('sources', []))
            bpf = read_bpf(fds[0])
            _INIT_PATH = init_program(fds[1])
            _CANDIDATE = map_candidate(fds[2])
            _BPF_FD = memfd_with('sbx-seccomp', bpf)
            _BPF, _BPF_PROG, _COMPILED = bpf, ctypes.create_string_buffer(bpf, len(bpf)), compiled
            fds.pop(1)                  # kept: B is spawned from it
            return
        if op == 'kill':
            return                  # its run was over when it came
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


def control_during_run(run_id):
    """A message that came while run run_id is in flight (run_sample reads
    the control socket with the run's pidfds): True when it ends the run,
    a kill for it ({"op":"kill","id":N}: sbx-run never waits for the run
    to end) or the socket's end (sbx-run is gone); a stale kill (its run
    over) is dropped; anything else waits for the run's end (_PENDING)."""
    global _CTL_CLOSED
    try:
        got = recv_message()
    except ValueError as e:
        diag('bad message skipped: %s' % e)
        return False
    except OSError as e:
        diag('control socket: %s' % e)
        got = None
    if got is None:
        _CTL_CLOSED = True
        return True
    data, fds = got
    try:
        msg = json.loads(data.decode('utf-8'))
    except ValueError:
        msg = None
    if isinstance(msg, dict) and msg.get('op') == 'kill' and not fds:
        return msg.get('id') == run_id
    _PENDING.append(got)
    return False


def retire_at():
    """The zygote's own CPU seconds past which it ends after a run: half its
    RLIMIT_CPU (the helper's max_cpu, or sbx-run's own), long before SIGXCPU
    would kill it under one; None without a limit."""
    soft = resource.getrlimit(resource.RLIMIT_CPU)[0]
    return None if soft == resource.RLIM_INFINITY else soft / 2


def serve():
    global _RETIRE_AT
    _RETIRE_AT = retire_at()
    while not _CTL_CLOSED:
        try:
            got = _PENDING.pop(0) if _PENDING else recv_message()
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
        if _RETIRING:       # its last status said so: sbx-run starts another
            return


def own_pid_namespace():
    """Once, first: the zygote goes on as pid 1 of a pid namespace that its
    own user namespace owns, so that it may enter it again after forking a
    run's C into the run's (fork_candidate; the kernel lets a process enter
    only a pid namespace whose owner it has CAP_SYS_ADMIN in, its tier's
    own included). The process sbx-run started waits for it and ends as it
    does; it dies with that one. Its pid as that process sees it."""
    check(_libc.unshare(CLONE_NEWPID), 'unshare the pid namespace')
    r, w = os.pipe2(os.O_CLOEXEC)
    pid = os.fork()
    if pid > 0:
        os.write(w, str(pid).encode())
        os.close(w)
        os.closerange(0, 2)         # the control socket is the zygote's alone
        while True:
            try:
                _, status = os.waitpid(pid, 0)
                break
            except InterruptedError:
                continue
        code = os.waitstatus_to_exitcode(status)
        os._exit(code if code >= 0 else 128 - code)
    os.close(w)
    prctl(PR_SET_PDEATHSIG, 9)
    outer = int(read_to_eof(r) or b'0')
    os.close(r)
    return outer


def own_mount_namespace():
    """Once, in the zygote's user namespace, with its CAP_SYS_ADMIN: a mount
    namespace of its own where the tier's binds over /proc are not locked,
    and unmounted, so that each run's copy (locked) has none; a fresh /proc
    of the zygote's own pid namespace on top (the pids it spawns are its)."""
    check(_libc.unshare(CLONE_NEWNS), 'unshare the mount namespace')
    mount(None, '/', None, MS_REC | MS_PRIVATE, what='make / private')
    unmount_below_proc()
    mount('proc', '/proc', 'proc', MS_NOSUID | MS_NODEV | MS_NOEXEC, what='mount the zygote\'s /proc')


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
    global _CTL, _ZYGOTE_PID, _UID, _GID, _ZYGOTE_HOME, _MAIN_LOADER, _SETUP_ERROR, _C_SIGNALS, _MASK_IS_EMPTY
    global _FRESH_VM_PAGES, _ZYGOTE_ENV, _ENVIRON_DATA, _OWN_PID_NS, _ZYGOTE_MODULES
    prctl(PR_SET_DUMPABLE, 0)
    outer_pid = os.getpid()
    try:
        outer_pid = own_pid_namespace()
        _FRESH_VM_PAGES = fresh_vm_pages()
        own_mount_namespace()
    except (SetupError, OSError) as e:
        # Every run then a setup-error, as when a run's own set-up fails:
        # sbx-run runs the suite cold.
        _SETUP_ERROR = 'zygote set-up: %s' % e
    # The tier's capabilities stay the zygote's own: none is ambient, so
    # sbx-run-init, a uid other than 0 in the helper's and bwrap's tiers,
    # starts with none (docs/helper-contract.md, --zygote).
    prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, what='clear the ambient capabilities')
    _OWN_PID_NS = os.open('/proc/self/ns/pid', os.O_RDONLY | os.O_CLOEXEC)
    ctl = os.dup(0)             # close-on-exec, off fd 0
    null = os.open('/dev/null', os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    _CTL = _socket.socket(_socket.AF_UNIX, _socket.SOCK_SEQPACKET, 0, ctl)
    _ZYGOTE_PID, _UID, _GID = os.getpid(), os.getuid(), os.getgid()
    _ZYGOTE_HOME = os.environ.get('HOME')
    _MAIN_LOADER = getattr(sys.modules['__main__'], '__loader__', None)
    _signal.signal(_signal.SIGINT, _signal.SIG_DFL)
    # The zygote waits for its children itself.
    _signal.signal(_signal.SIGCHLD, _signal.SIG_DFL)
    _C_SIGNALS = signals_to_reset(_BOOT_SIGNALS)
    _MASK_IS_EMPTY = not _signal.pthread_sigmask(_signal.SIG_BLOCK, [])
    _ZYGOTE_ENV = zygote_environment()
    _ENVIRON_DATA = environ_data()
    _ZYGOTE_MODULES = forget_own_modules()
    _CTL.send(json.dumps({'ready': 1, 'pid': outer_pid}).encode())
    gc.collect()
    gc.freeze()     # out of the collector's reach: a child's collection would write (copy) them all
    serve()


_monotonic = time.monotonic
_BPF = None
_BPF_PROG = None
_BPF_FD = -1
_INIT_PATH = None
_CANDIDATE = None
_COMPILED = {}
_CTL = None
_SETUP_ERROR = None
_FRESH_VM_PAGES = _BOOT_VM_PAGES
_ENVIRON_DATA = None
_RETIRE_AT = None
_RETIRING = False
_PENDING = []               # messages that came during a run, for after it
_CTL_CLOSED = False         # sbx-run hung up during a run
_BOOT_MODULE_COUNT = -1     # until main forgets its modules: C forgets them itself
main()
