# sbx zygote, part 3 of 4 (joined after 10-confine.py, common/common.mk): the
# processes of a run: the zygote's side, B (its init) and C (the candidate).

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


# B is sbx-run-init (frontend/warm/zygote/init/), a static program of sbx's own
# that sbx-run hands the zygote in the init message: spawned (vfork and
# exec: no copy of the zygote's page tables, no copy-on-write of its heap),
# it makes the run's namespaces and root as B0 and forks B1, the run's pid
# 1. C is forked by the zygote itself into B1's pid namespace (the
# zygote's pid_for_children, set and reset around the fork) and joins B0's
# other namespaces with setns: docs/warm.md, "Who runs what".
_libc.setns.argtypes = [ctypes.c_int, ctypes.c_int]


class RunProcs:
    """The processes and fds of one run, in the zygote."""

    def __init__(self):
        self.b0 = self.b0_fd = self.c = self.c_fd = -1
        self.info_r = self.info_w = self.end_r = self.end_w = -1
        self.data = b''
        self.c_status = self.c_ru = self.b0_ru = None
        self.timed_out = False
        self.killed = False     # sbx-run's kill message (or its hang-up) ended it


def run_sample(r):
    """In the zygote, one run at a time (sbx-run sends the next only when this
    one's pipes are closed): spawns B, forks C once B says the run is ready,
    enforces the wall clock, reaps C, hangs up on B1 (which then kills and
    reaps the rest and says what they cost), writes the status line, then
    reaps B0 (the namespaces' teardown off sbx-run's path); every fd of the
    run closed on return; the zygote retires after it past _RETIRE_AT. Until
    the status line, a kill message for the run (sbx-run's, never waited
    for) ends it as the wall clock would (wait_lines)."""
    global _RETIRING
    start = _monotonic()
    deadline = start + r.timeout_ms / 1000.0
    o = {'status': 'setup-error', 'exit_code': 0, 'signal': 0, 'wall_s': 0.0, 'cpu_s': 0.0,
         'max_rss_kb': 0, 'nproc_mode': 'none', 'message': ''}
    p = RunProcs()
    p.run_id = r.id
    timed_out = False       # at the wall clock before C ended (end_run may find it so after)
    reap_strays()
    try:
        if _SETUP_ERROR is not None:
            raise SetupError(_SETUP_ERROR)
        plan_root(r)
        spawn_init(r, p)
        timed_out = wait_lines(p, p.b0_fd, deadline, (b'R', b'E'))
        if not timed_out and has_line(p.data, (b'R',)):
            fork_candidate(r, p)
            timed_out = wait_lines(p, p.c_fd, deadline, ())
    except SetupError as e:
        o['message'] = str(e)
    except OSError as e:
        o['message'] = 'set up the run: %s' % e
    close_fds(r.stdout_w, r.stderr_w, r.stdin_r, *r.file_fds, p.info_w, p.end_r)
    end_run(p, deadline, timed_out)
    o['wall_s'] = _monotonic() - start
    setup_msg = read_lines(p, o)
    if setup_msg is None and o['message']:
        setup_msg = o['message']
    classify(r, p.timed_out, o, p.c_status, setup_msg)
    if p.killed and o['status'] == 'timeout':
        o['status'], o['message'] = 'signaled', 'killed: sbx-run asked'
    line = status_line(o)
    _RETIRING = _RETIRE_AT is not None and sum(os.times()[:2]) >= _RETIRE_AT
    if _RETIRING:
        line = line[:-2] + ',"zygote_retires":true}\n'
    try:
        os.write(r.status_w, line.encode())
    except OSError as e:
        diag('run %d: writing the status: %s' % (r.id, e))
    os.close(r.status_w)
    stamp('z_status')
    if p.b0 > 0 and p.b0_ru is None:
        p.b0_ru = reap_b0(p)
    close_fds(p.info_r, p.b0_fd, p.c_fd)
    trace_report(p.c_ru, p.b0_ru)


def reap_strays():
    """A B1 whose B0 was killed (end_run) ends as the zygote's child: the
    zygote is pid 1 of its own pid namespace (own_pid_namespace)."""
    while _libc.waitpid(-1, None, WNOHANG) > 0:
        pass


def close_fds(*fds):
    for fd in fds:
        if fd >= 0:
            os.close(fd)


def init_argv(r, info_w, end_r):
    """sbx-run-init's request (frontend/warm/zygote/init/request.c)."""
    argv = ['sbx-run-init', str(info_w), str(_ZYGOTE_PID), str(end_r), str(_BPF_FD), str(_UID), str(_GID),
            str(r.tmpfs if r.memory is None else r.memory), str(r.tmpfs), r.cwd]
    for opt, values in (('-h', r.homes), ('-t', r.tmp_homes), ('-b', r.bind_points)):
        for v in values:
            argv += [opt, v]
    for name, fd in zip(r.files, r.file_fds):
        argv += ['-f', str(fd), name]
    return argv


def spawn_init(r, p):
    """B0, with the fds of its request (posix_spawn's dup2 of an fd onto
    itself clears its close-on-exec) and an empty environment."""
    p.info_r, p.info_w = os.pipe2(os.O_CLOEXEC)
    p.end_r, p.end_w = os.pipe2(os.O_CLOEXEC)
    keep = (p.info_w, p.end_r, _BPF_FD, *r.file_fds)
    # What the zygote made since the last run, out of the collector's
    # reach too: a collection in C would write (copy) each page.
    gc.freeze()
    stamp('z_spawn')
    p.b0 = os.posix_spawn(_INIT_PATH, init_argv(r, p.info_w, p.end_r), {},
                          file_actions=[(os.POSIX_SPAWN_DUP2, fd, fd) for fd in keep])
    p.b0_fd = os.pidfd_open(p.b0)
    close_fds(p.end_r, *r.file_fds)
    p.end_r, r.file_fds = -1, []


def fork_candidate(r, p):
    """C, forked into the run's pid namespace: B0's pid_for_children, which
    the zygote takes for this one fork (a process of its own pid namespace
    may open it) and gives back."""
    stamp('z_ready')
    ns = os.open('/proc/%d/ns/pid_for_children' % p.b0, os.O_RDONLY | os.O_CLOEXEC)
    try:
        check(_libc.setns(ns, CLONE_NEWPID), 'enter the run\'s pid namespace')
    finally:
        os.close(ns)
    params = candidate_params(r, p)
    try:
        p.c = os.fork()
        if p.c == 0:
            child(c_main, r, p, params)
    finally:
        if _libc.setns(_OWN_PID_NS, CLONE_NEWPID) == -1:
            # Every later fork would go into a dead namespace: sbx-run starts another zygote.
            diag('leave the run\'s pid namespace: %s' % os.strerror(ctypes.get_errno()))
            os._exit(1)
    p.c_fd = os.pidfd_open(p.c)
    os.close(p.info_w)
    p.info_w = -1


def has_line(data, kinds):
    """A complete line of one of kinds (R, W, E) from B."""
    return any(line[:1] in kinds for line in data.split(b'\n')[:-1])


def wait_lines(p, pidfd, deadline, kinds):
    """Until a line of one of kinds, the process behind pidfd ending, or
    the wall clock or a kill message for the run (p.killed): True for the
    last two. Every line gathered in p.data."""
    poller = select.poll()
    poller.register(pidfd, select.POLLIN)
    poller.register(p.info_r, select.POLLIN)
    poller.register(_CTL.fileno(), select.POLLIN)
    while True:
        left = deadline - _monotonic()
        if left <= 0 or p.killed:
            return True
        for fd, _ in poller.poll(max(1, int(left * 1000 + 0.999))):
            if fd == _CTL.fileno():
                p.killed = control_during_run(p.run_id)
                if _CTL_CLOSED:
                    poller.unregister(fd)
                continue
            if fd == pidfd:
                return False
            chunk = os.read(p.info_r, 65536)
            if not chunk:
                poller.unregister(p.info_r)     # every writer gone: the pidfd says when
            p.data += chunk
            if kinds and has_line(p.data, kinds):
                return False


END_GRACE_S = 1.0       # for B1 to kill and reap what C left, past the wall clock


def end_run(p, deadline, timed_out):
    """C reaped first (B1 cannot end while a process of its pid namespace
    is unreaped), then B1 told by the hang-up of end_w: it kills and reaps
    the rest and writes its W line. Past the wall clock C is killed (B0, if
    there is no C yet: B1 dies with it); a B1 that says nothing within the
    grace is killed with B0, and every rusage then comes from wait4."""
    p.timed_out = timed_out
    if timed_out:
        kill(p.c_fd if p.c > 0 else p.b0_fd)
    if p.c > 0:
        p.c_status, p.c_ru = wait4(p.c)
        stamp('z_c_reaped')
    close_fds(p.end_w)
    p.end_w = -1
    if p.b0 < 0:
        return
    if p.c > 0 and wait_lines(p, p.b0_fd, max(deadline, _monotonic()) + END_GRACE_S, (b'W',)):
        p.timed_out = True
        kill(p.b0_fd)
    if not has_line(p.data, (b'W',)):
        p.b0_ru = reap_b0(p)
        p.data += read_to_eof(p.info_r)


class Rusage(ctypes.Structure):
    """struct rusage, from wait4 through libc: os.wait4 imports the resource
    module on every call (its result's type), which would put it back in
    the sys.modules that C inherits (forget_own_modules)."""
    _fields_ = [('utime_s', ctypes.c_long), ('utime_us', ctypes.c_long), ('stime_s', ctypes.c_long),
                ('stime_us', ctypes.c_long), ('ru_maxrss', ctypes.c_long), ('ixrss', ctypes.c_long),
                ('idrss', ctypes.c_long), ('isrss', ctypes.c_long), ('ru_minflt', ctypes.c_long)] + \
        [('unused%d' % i, ctypes.c_long) for i in range(9)]

    @property
    def ru_utime(self):
        return self.utime_s + self.utime_us / 1e6

    @property
    def ru_stime(self):
        return self.stime_s + self.stime_us / 1e6


_libc.wait4.argtypes = [ctypes.c_int, ctypes.POINTER(ctypes.c_int), ctypes.c_int, ctypes.POINTER(Rusage)]


def wait4(pid):
    """os.wait4(pid, 0)'s status and rusage."""
    status, ru = ctypes.c_int(), Rusage()
    while _libc.wait4(pid, ctypes.byref(status), 0, ctypes.byref(ru)) == -1:
        e = ctypes.get_errno()
        if e != errno.EINTR:
            raise OSError(e, os.strerror(e))
    return status.value, ru


def kill(pidfd):
    try:
        if pidfd >= 0:
            _signal.pidfd_send_signal(pidfd, 9)
    except ProcessLookupError:
        pass


B0_END_S = 2.0          # for B0 to end once B1 has said W (or was killed), before it is killed


def reap_b0(p):
    """B0's rusage once it has ended, every other child of the zygote reaped
    meanwhile, never a wait without end: a child of the zygote's that a
    sample made (a CLONE_PARENT fork, were the filter to let one through)
    is in the run's pid namespace but the zygote's to reap, and until it
    is, B1's exit (its namespace's end) and with it B0's wait for B1 never
    end. Past B0_END_S B0 is killed (B1 then ends as the zygote's child,
    reap_strays); should even that not end it, None (diagnosed): the
    zygote serves on."""
    deadline, killed = _monotonic() + B0_END_S, False
    poller = select.poll()
    poller.register(p.b0_fd, select.POLLIN)
    while True:
        ru = reap_children(p.b0)
        if ru is not None:
            stamp('z_reaped')
            return ru
        left = deadline - _monotonic()
        if left <= 0 and killed:
            diag('B0 (pid %d) did not end when killed: left behind' % p.b0)
            return None
        if left <= 0:
            kill(p.b0_fd)
            deadline, killed = _monotonic() + B0_END_S, True
            continue
        poller.poll(min(50, max(1, int(left * 1000))))   # strays are reaped at least this often


def reap_children(pid):
    """Every child that has ended reaped (WNOHANG); pid's rusage if it was one
    of them, else None."""
    status, ru, got = ctypes.c_int(), Rusage(), None
    while True:
        w = _libc.wait4(-1, ctypes.byref(status), WNOHANG, ctypes.byref(ru))
        if w == pid:
            got, ru = ru, Rusage()
        elif w <= 0 and (w == 0 or ctypes.get_errno() != errno.EINTR):
            return got


def read_to_eof(fd):
    data = b''
    while fd >= 0:
        chunk = os.read(fd, 65536)
        if not chunk:
            break
        data += chunk
    return data


def read_lines(p, o):
    """The lines of B and C: E (a set-up error), U (nproc counted in C's user
    namespace), W (what the processes B1 reaped cost: cpu seconds, peak
    RSS). The run's cpu and peak RSS: C's wait4 and the W line's, or, for a
    run without its W line, B0's wait4 (B1 and all it reaped). The set-up
    message, or None."""
    setup_msg, orphans = None, None
    for line in p.data.decode('utf-8', 'replace').splitlines():
        kind, _, rest = line.partition(' ')
        if kind == 'E' and setup_msg is None:
            setup_msg = rest
        elif kind == 'U':
            o['nproc_mode'] = 'userns'
        elif kind == 'W':
            cpu, rss = rest.split()
            orphans = (float(cpu), int(rss))
    if orphans is None and p.b0_ru is not None:
        orphans = (p.b0_ru.ru_utime + p.b0_ru.ru_stime, p.b0_ru.ru_maxrss)
    cpu, rss = orphans if orphans is not None else (0.0, 0)
    if p.c_ru is not None:
        cpu, rss = cpu + p.c_ru.ru_utime + p.c_ru.ru_stime, max(rss, p.c_ru.ru_maxrss)
    o['cpu_s'], o['max_rss_kb'] = cpu, rss
    return setup_msg


def c_main(r, p, params):
    """The candidate: in the run's namespaces, everything a cold run's
    candidate gets (the candidate's confinement, frontend/warm/zygote/candidate/,
    in one call), then the sample."""
    stamp('c_start')
    info_w = p.info_w
    try:
        # First: nothing of the zygote's powers past this line. The code
        # called below is sbx-run's bytes (SECURITY.md, --zygote).
        check(_libc.syscall(*_CAPSET_NONE), 'drop the zygote\'s capabilities')
        reset_signals(_C_SIGNALS, _MASK_IS_EMPTY)
        stamp('c_signals')
        if _CANDIDATE(params) != 0:
            e, info_w = candidate_failure(params)
            raise e
        info_w = 3
        stamp('c_confined')
    except Exception as e:  # noqa: BLE001 (no sample code has run yet)
        report_setup_error(info_w, e)
        return SETUP_EXIT
    set_environment(r.env, r.env_changes)
    # The zygote forgot its modules once (main); only what it imported since
    # is forgotten here. Comparing reads only: nothing is copied.
    if len(sys.modules) != _BOOT_MODULE_COUNT or sys.path_importer_cache or sys.path != _BOOT_PATH:
        forgotten = forget_own_modules()    # noqa: F841 (kept alive)
    if 'random' in sys.modules:
        sys.modules['random'].seed()
    fresh_stdin()
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


def fresh_stdin():
    """sys.stdin as `python -c` makes it at its start (CPython's
    create_stdio) for fd 0 as it is now, the run's stdin: the zygote's was
    made on its control socket (not seekable, a socket's buffer size)."""
    old = sys.stdin
    if old is None:
        return
    io = sys.modules['io']
    buf = io.open(0, 'rb', -1, None, None, None, False)
    buf.raw.name = '<stdin>'
    stream = io.TextIOWrapper(buf, old.encoding, old.errors, '\n', os.isatty(0), False)
    stream.mode = 'r'
    sys.stdin = sys.__stdin__ = stream


def report_setup_error(info_w, e):
    """An E line: the run is a setup-error (sbx-run runs it cold), whatever
    went wrong before the sample's code; an unexpected exception is named,
    as it is a bug of the zygote's, not the sample's verdict."""
    what = str(e) if isinstance(e, (SetupError, OSError)) else '%s: %s' % (type(e).__name__, e)
    try:
        os.write(info_w, ('E %s\n' % what).encode('utf-8', 'replace'))
    except OSError:
        pass


def set_environment(env, changes):
    """C's environment becomes env (pairs), in os.environ and in the C
    environ a child gets, in env's order; changes: env_changes(env)."""
    if changes is None:
        # The same as os.environ.clear(), which pops one item at a time
        # through MutableMapping (a few times slower here).
        for k in list(os.environ):
            del os.environ[k]
        for k, v in env:
            os.environ[k] = v
        return
    for k, v in changes:        # what os.environ[k] = v does, without its four Python-level calls
        os.putenv(k, v)
        _ENVIRON_DATA[k] = v


def env_changes(env):
    """In the zygote: the pairs, encoded as os.environ keeps them, that turn
    its own environment into env when env names the same variables in the
    same order (a warm run's differs in HOME and TMPDIR), so that C sets
    those alone instead of emptying and refilling both environments (~75
    Python-level calls, and the zygote's strings freed: written); None
    otherwise."""
    if (_ZYGOTE_ENV is None or _ENVIRON_DATA is None or len(env) != len(_ZYGOTE_ENV) or
            any(e[0] != z[0] for e, z in zip(env, _ZYGOTE_ENV))):
        return None
    return [(os.environ.encodekey(k), os.environ.encodevalue(v))
            for (k, v), (_, zv) in zip(env, _ZYGOTE_ENV) if v != zv]


def environ_data():
    """Once: os.environ's dict of encoded names and values, where it is one
    as in CPython 3.11 (C sets a run's few changes there itself), else None."""
    data = getattr(os.environ, '_data', None)
    if (not isinstance(data, dict) or not callable(getattr(os.environ, 'encodekey', None)) or
            not callable(getattr(os.environ, 'encodevalue', None)) or
            any(data.get(os.environ.encodekey(k)) != os.environ.encodevalue(v) for k, v in os.environ.items())):
        return None
    return data


def zygote_environment():
    """Once: the zygote's environment as pairs, or None when the C environ
    is not exactly os.environ's names in order (a duplicate name, an entry
    without '='): then C always rebuilds both."""
    envp = ctypes.POINTER(ctypes.c_char_p).in_dll(_libc, 'environ')
    names, i = [], 0
    while envp[i] is not None:
        names.append(envp[i].partition(b'=')[0])
        i += 1
    return list(os.environ.items()) if names == [os.fsencode(k) for k in os.environ] else None


def forget_own_modules():
    """Out of sys.modules, what the zygote imported; sys.path as a fresh
    interpreter's; a new empty importer cache. Once in the zygote, before it
    serves (main), so that each C, a copy, starts as a fresh interpreter and
    changes none of it (~50 faults a sample otherwise); again in a C whose
    zygote imported anything since. What was forgotten stays alive, in the
    list returned: freeing the modules, their finders and directory
    listings would write (copy) every page they are on."""
    global _BOOT_MODULE_COUNT
    kept = [sys.modules.pop(m) for m in [m for m in sys.modules if m not in _BOOT_MODULES]]
    kept.append(sys.path_importer_cache)
    sys.path_importer_cache = {}
    sys.path[:] = _BOOT_PATH
    _BOOT_MODULE_COUNT = len(sys.modules)
    return kept


def run_source(source, namespace):
    """`python -c SOURCE`: the exit code an uncaught exception or SystemExit gives."""
    try:
        code = _COMPILED.get(source)
        exec(code if code is not None else compile(source, '<string>', 'exec'), namespace)
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
