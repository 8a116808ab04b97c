# sbx zygote, part 2 of 4 (joined after 00-base.py into one program, common/common.mk):
# what the zygote works out for a run's root (sbx-run-init makes it,
# frontend/warm/zygote/init/), and the candidate's limits and privileges, as the
# helper sets them.

# ---- namespaces, mounts, privileges ---------------------------------------

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


_BIND_POINTS = {}


def bind_points_below(dirs):
    """The session's binds under the directories the run's tmpfs covers (a
    venv or --ro-bind under /tmp or a home), outermost only, in mount
    order. Read in the zygote, once per set of dirs: its mount table is its
    own (rprivate, nothing propagates in) and fixed once it serves, and
    each B's starts as a copy of it."""
    key = tuple(dirs)
    if key not in _BIND_POINTS:
        with open('/proc/self/mountinfo', 'rb') as f:
            points = [re.sub(r'\\([0-7]{3})', lambda m: chr(int(m.group(1), 8)), l.split()[4].decode())
                      for l in f]
        kept = []
        for p in points:
            if (any(path_is_under(p, d) and p != d for d in dirs) and
                    not any(path_is_under(p, k) for k in kept)):
                kept.append(p)
        _BIND_POINTS[key] = kept
    return _BIND_POINTS[key]


def run_homes(r):
    """The homes the run's tmpfs covers: the zygote's HOME and the run's,
    where clean and not under /tmp, /proc, /dev or /sys."""
    homes = []
    for h in (_ZYGOTE_HOME, r.home):
        if (h and path_is_clean(h) and h != '/' and h not in homes and
                not any(path_is_under(h, d) for d in ('/tmp', '/proc', '/dev', '/sys'))):
            homes.append(h)
    return homes


def plan_root(r):
    """In the zygote, before B: what of B's and C's set-up does not depend
    on them (the homes, the binds below them, the environment's changes,
    the run's HOME), so that neither works it out."""
    r.home = dict(r.env).get('HOME')
    r.homes = run_homes(r)
    r.tmp_homes = [h for h in dict.fromkeys((_ZYGOTE_HOME, r.home))
                   if h and path_is_clean(h) and h.startswith('/tmp/')]
    r.env_changes = env_changes(r.env)
    r.bind_points = bind_points_below(['/tmp', '/dev/shm'] + r.homes)
    with open('/proc/self/statm', 'rb') as f:
        r.vm_extra = max(0, int(f.read().split()[0]) - _FRESH_VM_PAGES) * _PAGE_BYTES


# What C drops first, before it calls the candidate's confinement: every
# capability the zygote held (the code it calls next is sbx-run's, mapped
# from bytes sbx-run sent: it must never run with the zygote's powers).
# The call's arguments made once, here.
_CAPSET_NONE = (ctypes.c_long(SYS_CAPSET), struct.pack('Ii', LINUX_CAPABILITY_VERSION_3, 0), bytes(24))


# The zygote's hard limits, read once each: nothing in the zygote changes
# them (only C sets its own).
_HARD_LIMITS = {}


def bounded_rlimit(res, soft, hard):
    """(soft, hard) as setrlimit would be asked in C, never above the hard
    limit in force (the zygote's, which C inherits): only ever lowered
    (limits_set)."""
    old_hard = _HARD_LIMITS.get(res)
    if old_hard is None:
        old_hard = _HARD_LIMITS[res] = resource.getrlimit(res)[1]
    inf = resource.RLIM_INFINITY
    h = hard if old_hard == inf or (hard != inf and hard < old_hard) else old_hard
    s = soft if h == inf or (soft != inf and soft < h) else h
    return res, s, h


def run_rlimits(r):
    """The cold path's rlimits for the run, bounded in the zygote."""
    inf = resource.RLIM_INFINITY
    memory = inf if r.memory is None else r.memory + r.vm_extra
    return [bounded_rlimit(*lim) for lim in (
        (resource.RLIMIT_CPU, r.cpu_s, r.cpu_s + 1),        # SIGXCPU, SIGKILL a second later
        (resource.RLIMIT_AS, memory, memory),
        (resource.RLIMIT_FSIZE, r.fsize, r.fsize),
        (resource.RLIMIT_NOFILE, r.nofile, r.nofile),
        (resource.RLIMIT_CORE, 0, 0),
        (resource.RLIMIT_STACK, STACK_BYTES, STACK_BYTES),
        (resource.RLIMIT_MEMLOCK, 0, 0),
        (resource.RLIMIT_MSGQUEUE, 0, 0),
        (resource.RLIMIT_SIGPENDING, SIGPENDING, SIGPENDING),
        # Lowered to the run's cap in C's own user namespace (it counts there).
        (resource.RLIMIT_NPROC, inf, inf))]


# struct candidate_params (frontend/warm/zygote/candidate/candidate.h): keep in step.
CANDIDATE_MAX_RLIMITS = 12
CANDIDATE_FORMAT = '=7q4Qq%dq3q' % (3 * CANDIDATE_MAX_RLIMITS)     # RLIM_INFINITY is -1 here
CANDIDATE_FAILED_AT = struct.calcsize(CANDIDATE_FORMAT) - 24
CANDIDATE_STEPS = (None, "join the run's namespaces", 'PR_SET_PDEATHSIG', 'setsid', "the run's stdio",
                   'close_range', "set the run's rlimits", "unshare the candidate's user namespace",
                   "map the candidate's ids", 'RLIMIT_NPROC', 'cannot drop capabilities',
                   'capabilities still present after dropping them', 'chdir to the workdir', 'no_new_privs',
                   'seccomp filter', 'PR_SET_DUMPABLE')


def candidate_params(r, p):
    """In the zygote, before C's fork: the candidate's confinement's
    parameters, a buffer C passes as is."""
    r.cwd_buf = ctypes.create_string_buffer(r.cwd.encode())
    lims = run_rlimits(r)
    nproc = bounded_rlimit(resource.RLIMIT_NPROC, r.nproc, r.nproc)[1]
    flat = [v for lim in lims for v in lim] + [0] * (3 * (CANDIDATE_MAX_RLIMITS - len(lims)))
    return ctypes.create_string_buffer(struct.pack(
        CANDIDATE_FORMAT, p.b0_fd, r.stdin_r, r.stdout_w, r.stderr_w, p.info_w, _UID, _GID, nproc,
        ctypes.addressof(r.cwd_buf), ctypes.addressof(_BPF_PROG), len(_BPF) // 8, len(lims), *flat, 0, 0, -1))


def candidate_failure(params):
    """The confinement's failed step as a SetupError, and the fd its E line goes to."""
    step, err, report_fd = struct.unpack_from('3q', params, CANDIDATE_FAILED_AT)
    what = CANDIDATE_STEPS[step] if 0 < step < len(CANDIDATE_STEPS) else 'step %d' % step
    return SetupError(what if err <= 0 else '%s: %s' % (what, os.strerror(err))), report_fd


def map_candidate(fd):
    """The confinement's bytes mapped read-only and executable, never run
    here: C calls them (c_main). The zygote keeps the mapping."""
    size = os.fstat(fd).st_size
    if not 0 < size <= 1 << 20:
        raise ValueError('init: the candidate\'s confinement is %d bytes' % size)
    mmap_ = _libc.mmap
    mmap_.restype, mmap_.argtypes = ctypes.c_void_p, [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int,
                                                      ctypes.c_int, ctypes.c_long]
    addr = mmap_(None, size, 1 | 4, 2, fd, 0)       # PROT_READ | PROT_EXEC, MAP_PRIVATE
    if addr is None or addr == ctypes.c_void_p(-1).value:
        raise ValueError('init: map the candidate\'s confinement: %s' % os.strerror(ctypes.get_errno()))
    return ctypes.CFUNCTYPE(ctypes.c_long, ctypes.c_void_p, use_errno=True)(addr)


def signals_to_reset(table):
    """In the zygote, once its own dispositions are set (it changes none
    after): (signal, handler) for each signal whose disposition C, forked
    from it, must change to reach table's (a fresh interpreter's); the rest
    already match."""
    return tuple((s, h) for s, h in table.items() if h is not None and _get_signal(s) is not h)


def _get_signal(sig):
    """None (not set from Python) counts as a disposition to reset; one
    Python cannot read, as SIG_DFL (reset_signals would skip it)."""
    try:
        return _signal.getsignal(sig)
    except (OSError, ValueError):
        return _signal.SIG_DFL


def reset_signals(changes, mask_is_empty):
    """changes: (signal, handler) pairs made once in the zygote
    (signals_to_reset); the mask emptied unless the zygote's already is
    (C's is a copy): the fewer objects C touches, the fewer pages it copies."""
    for sig, h in changes:
        try:
            _signal.signal(sig, h)
        except (OSError, ValueError, TypeError):
            pass
    if not mask_is_empty:
        _signal.pthread_sigmask(_signal.SIG_SETMASK, [])
