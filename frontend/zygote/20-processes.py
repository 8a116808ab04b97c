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


# clone(flags, stack 0, parent_tid, child_tid, tls), made once.
_CLONE_ARGS = (ctypes.c_long(SYS_CLONE), ctypes.c_ulong(RUN_CLONE_FLAGS)) + tuple(ctypes.c_ulong(0) for _ in range(4))


def clone_run():
    """0 in B, B's pid in the zygote."""
    return check(_PYLIBC.syscall(*_CLONE_ARGS), "clone the run's namespaces")


def run_sample(r):
    """In the zygote, one run at a time (sbx-run sends the next only when this
    one's pipes are closed): clones B, enforces the wall clock, writes the
    status line when B says C has ended, then reaps B (its exit and the
    namespaces' teardown off sbx-run's path); every fd of the run closed
    on return."""
    start = _monotonic()
    o = {'status': 'setup-error', 'exit_code': 0, 'signal': 0, 'wall_s': 0.0, 'cpu_s': 0.0,
         'max_rss_kb': 0, 'nproc_mode': 'none', 'message': ''}
    pid, info_r, life_w = start_b(r, o)
    data, timed_out, pidfd, ru = b'', False, -1, None
    if pid > 0:
        pidfd = os.pidfd_open(pid)
        data, timed_out = wait_for_c(pidfd, info_r, start + r.timeout_ms / 1000.0)
        if timed_out or not b_said_ended(data):
            ru = reap_b(pid, pidfd)     # its rusage is the run's
            o['cpu_s'], o['max_rss_kb'] = ru.ru_utime + ru.ru_stime, ru.ru_maxrss
    o['wall_s'] = _monotonic() - start
    data += read_to_eof(info_r) if ru is not None or pid < 0 else b''
    wait_status, setup_msg, usage = read_b_lines(data, o)
    if ru is None and usage is not None:
        o['cpu_s'], o['max_rss_kb'] = usage
    if pid < 0:
        setup_msg = o['message']
    classify(r, timed_out, o, wait_status, setup_msg)
    try:
        os.write(r.status_w, status_line(o).encode())
    except OSError as e:
        diag('run %d: writing the status: %s' % (r.id, e))
    os.close(r.status_w)
    stamp('z_status')
    if pid > 0 and ru is None:
        ru = reap_b(pid, pidfd)
    for fd in (life_w, info_r):
        if fd >= 0:
            os.close(fd)
    trace_report(ru)


def start_b(r, o):
    """Clones B: (its pid or -1 with o's message set, info_r, life_w); the
    fds of the run that are B's alone closed here."""
    info_r = info_w = life_r = life_w = -1
    pid = -1
    try:
        if _SETUP_ERROR is not None:
            raise SetupError(_SETUP_ERROR)
        plan_root(r)
        info_r, info_w = os.pipe2(os.O_CLOEXEC)
        life_r, life_w = os.pipe2(os.O_CLOEXEC)
        # What the zygote made since the last run, out of the collector's
        # reach too: a collection in B or C would write (copy) each page.
        gc.freeze()
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
    return pid, info_r, life_w


def report_setup_error(info_w, e, prefix=''):
    """An E line: the run is a setup-error (sbx-run runs it cold), whatever
    went wrong before the sample's code; an unexpected exception is named,
    as it is a bug of the zygote's, not the sample's verdict."""
    what = str(e) if isinstance(e, (SetupError, OSError)) else '%s: %s' % (type(e).__name__, e)
    os.write(info_w, ('E %s%s\n' % (prefix, what)).encode('utf-8', 'replace'))


def b_said_ended(data):
    """B's W line, its last, is in: C and every process of the run are reaped."""
    return any(line.startswith(b'W ') for line in data.split(b'\n')[:-1])


def wait_for_c(pidfd, info_r, deadline):
    """Until B's W line, B's exit, or the wall clock (then B is killed, and
    with it the run's pid namespace): (what B wrote, timed out)."""
    p = select.poll()
    p.register(pidfd, select.POLLIN)
    p.register(info_r, select.POLLIN)
    data = b''
    while True:
        left = deadline - _monotonic()
        if left <= 0:
            _signal.pidfd_send_signal(pidfd, 9)
            return data, True
        for fd, _ in p.poll(max(1, int(left * 1000 + 0.999))):
            if fd == pidfd:
                return data, False
            chunk = os.read(info_r, 65536)
            if not chunk:
                p.unregister(info_r)    # B is exiting: its pidfd says when
            data += chunk
            if b_said_ended(data):
                return data, False


def reap_b(pid, pidfd):
    _, _, ru = os.wait4(pid, 0)
    os.close(pidfd)
    stamp('z_reaped')
    return ru


def read_to_eof(fd):
    data = b''
    while fd >= 0:
        chunk = os.read(fd, 65536)
        if not chunk:
            break
        data += chunk
    return data


def read_b_lines(data, o):
    """B's lines: E (a set-up error), U (nproc counted in C's user
    namespace), W (C's wait status, the run's cpu seconds and peak RSS, as
    B's wait4 rusage would give them): (wait status, set-up message,
    (cpu, rss) or None)."""
    wait_status, setup_msg, usage = None, None, None
    for line in data.decode('utf-8', 'replace').splitlines():
        kind, _, rest = line.partition(' ')
        if kind == 'E' and setup_msg is None:
            setup_msg = rest
        elif kind == 'U':
            o['nproc_mode'] = 'userns'
        elif kind == 'W':
            ws, cpu, rss = rest.split()
            wait_status, usage = int(ws), (float(cpu), int(rss))
    return wait_status, setup_msg, usage


def b_main(r, info_w, life_r):
    """Pid 1 of the run, cloned into its namespaces: what makes them the
    run's (maps, hostname, lo, IPC limits), the mounts, then C; reaps
    everything, and when C ends kills what is left and tells the zygote C's
    wait status."""
    # Default dispositions: the kernel then drops every signal sent to pid 1
    # from inside its namespace (no handler of ours a sample could trigger).
    stamp('b_start')
    reset_signals({}, _B_SIGNALS)
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
        set_hostname()
        bring_up_lo()
        stamp('b_host_lo')
        limit_ipc_namespace(r)
        stamp('b_ipc')
        os.umask(0)
        build_root(r, _UID, _GID)
        cpid = os.fork()
        if cpid == 0:
            child(c_main, r, info_w)
    except Exception as e:  # noqa: BLE001 (any failure here is the set-up's)
        report_setup_error(info_w, e)
        return SETUP_EXIT
    for fd in (r.stdout_w, r.stderr_w, *r.file_fds, life_r):
        os.close(fd)
    # Out of the sample's reach, able to do no more than reap.
    try:
        caps_clear()
        prctl(PR_SET_NO_NEW_PRIVS, 1)
        install_seccomp()
    except Exception as e:  # noqa: BLE001
        report_setup_error(info_w, e, 'confine init: ')
        kill_all()
    status = reap_all(cpid)
    if status is not None:
        # What wait4 on B will say, less B's own exit: the zygote writes the
        # status line from it without waiting for B and the namespaces to go.
        me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime
        os.write(info_w, ('W %d %.6f %d\n' % (status, cpu, max(me.ru_maxrss, kids.ru_maxrss))).encode())
    return 0


def reap_all(cpid):
    """B's end: reaps every process of the run, the rest killed once C has
    ended: C's wait status, or None. libc's waitpid: the last one's ECHILD
    raises no OSError (see kill_all)."""
    status, ref = None, ctypes.byref(_WAIT_STATUS)
    while True:
        pid = _libc.waitpid(-1, ref, 0)
        if pid < 0:
            if ctypes.get_errno() != errno.EINTR:
                return status       # ECHILD: none left
        elif pid == cpid:
            stamp('b_reaped')
            status = _WAIT_STATUS.value
            kill_all()


_WAIT_STATUS = ctypes.c_int()


def kill_all():
    """Every process of the run but B. libc's kill, not os.kill: when none
    is left (the usual end) that raises, and an OSError's message costs B
    the C library's gettext and error tables (written pages) per run."""
    if _libc.kill(-1, 9) == -1 and ctypes.get_errno() != errno.ESRCH:
        raise SetupError('kill the run: %s' % os.strerror(ctypes.get_errno()))


def c_main(r, info_w):
    """The candidate: everything a cold run's candidate gets, then the sample."""
    stamp('c_start')
    reset_signals(_BOOT_SIGNALS, _C_SIGNALS)
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
    except Exception as e:  # noqa: BLE001 (no sample code has run yet)
        report_setup_error(info_w, e)
        return SETUP_EXIT
    set_environment(r.env, r.env_changes)
    # Kept alive meanwhile: freeing the zygote's modules would write (copy)
    # every page they are on.
    forgotten = [sys.modules.pop(m) for m in modules_to_forget()]
    sys.path[:] = _BOOT_PATH
    # A new empty cache, the zygote's kept alive as its modules are: clearing
    # it would free its finders and their directory listings, writing
    # (copying) every page they are on (~100 faults a sample).
    forgotten_finders = sys.path_importer_cache
    sys.path_importer_cache = {}
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


def set_environment(env, changes):
    """C's environment becomes env (pairs), in os.environ and in the C
    environ a child gets, in env's order; changes: env_changes(env)."""
    if changes is None:
        # The same as os.environ.clear(), which pops one item at a time
        # through MutableMapping (a few times slower here).
        for k in list(os.environ):
            del os.environ[k]
        changes = env
    for k, v in changes:
        os.environ[k] = v


def env_changes(env):
    """In the zygote: the pairs that turn its own environment into env when
    env names the same variables in the same order (a warm run's differs
    in HOME and TMPDIR), so that C sets those alone instead of emptying and
    refilling both environments (~75 Python-level calls, and the zygote's
    strings freed: written); None otherwise."""
    if (_ZYGOTE_ENV is None or len(env) != len(_ZYGOTE_ENV) or
            any(e[0] != z[0] for e, z in zip(env, _ZYGOTE_ENV))):
        return None
    return [(k, v) for (k, v), (_, zv) in zip(env, _ZYGOTE_ENV) if v != zv]


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


def modules_to_forget():
    """The modules the zygote imported (names made once, in the zygote:
    C does not walk every module name, writing each)."""
    if len(sys.modules) != _FORGET[0]:
        return [m for m in sys.modules if m not in _BOOT_MODULES]
    return _FORGET[1]


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
