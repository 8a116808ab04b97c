# sbx zygote, part 2 of 4 (joined after 00-base.py into one program, common/common.mk):
# what the zygote works out for a run's root (sbx-run-init makes it,
# frontend/zygote/init/), and the candidate's limits and privileges, as the
# helper sets them.

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


_CAPSET_NONE = (struct.pack('Ii', LINUX_CAPABILITY_VERSION_3, 0), bytes(24))
_CAPS_NONE = {'CapInh': 0, 'CapPrm': 0, 'CapEff': 0, 'CapBnd': 0, 'CapAmb': 0}


def caps_clear():
    """Every capability set emptied, then checked in the kernel's report of
    all five sets (capget would report three of them again): a failed drop
    must never run anything (helper/privs.c privs_clear_caps)."""
    drop, cap = _libc.prctl, 0
    while drop(PR_CAPBSET_DROP, cap, 0, 0, 0) == 0:
        cap += 1
    if ctypes.get_errno() != errno.EINVAL or cap == 0:
        raise SetupError('cannot clear the bounding set: %s' % os.strerror(ctypes.get_errno()))
    prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, what='clear the ambient set')
    check(_libc.syscall(ctypes.c_long(SYS_CAPSET), *_CAPSET_NONE), 'cannot drop capabilities')
    if caps_in_status() != _CAPS_NONE:
        raise SetupError('capabilities still present after dropping them')


def caps_in_status():
    """The five sets as the kernel reports them, in one read (a process's
    /proc/self is the run's fresh /proc here), not a prctl per capability
    and set."""
    try:
        fd = os.open('/proc/self/status', os.O_RDONLY | os.O_CLOEXEC)
        try:
            text = os.read(fd, 16384)       # one read: the kernel makes the file in one go
        finally:
            os.close(fd)
    except OSError as e:
        raise SetupError('read /proc/self/status to check the capabilities: %s' % e.strerror)
    return {k.decode(): int(v, 16) for k, v in _CAP_LINE.findall(text)}


_CAP_LINE = re.compile(rb'^(Cap[A-Z][a-z][a-z]):\s*([0-9a-f]+)$', re.M)     # compiled once, in the zygote


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
    memory = inf if r.memory is None else r.memory + r.vm_extra
    set_rlimit(resource.RLIMIT_AS, memory, memory)
    set_rlimit(resource.RLIMIT_FSIZE, r.fsize, r.fsize)
    set_rlimit(resource.RLIMIT_NOFILE, r.nofile, r.nofile)
    set_rlimit(resource.RLIMIT_CORE, 0, 0)
    set_rlimit(resource.RLIMIT_STACK, STACK_BYTES, STACK_BYTES)
    set_rlimit(resource.RLIMIT_MEMLOCK, 0, 0)
    set_rlimit(resource.RLIMIT_MSGQUEUE, 0, 0)
    set_rlimit(resource.RLIMIT_SIGPENDING, SIGPENDING, SIGPENDING)
    # Lowered to the run's cap in C's own user namespace (it counts there).
    set_rlimit(resource.RLIMIT_NPROC, inf, inf)


class SockFprog(ctypes.Structure):
    _fields_ = [('len', ctypes.c_ushort), ('filter', ctypes.c_void_p)]


def seccomp_program(bpf):
    """The filter as prctl takes it, built once at init (B and C only pass
    its address): (the buffer, kept alive with it, and the sock_fprog)."""
    buf = ctypes.create_string_buffer(bpf, len(bpf))
    return buf, SockFprog(len(bpf) // 8, ctypes.addressof(buf))


def install_seccomp():
    check(_libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.addressof(_BPF_PROG[1]), 0, 0),
          'seccomp filter')


def signals_to_reset(table):
    """In the zygote, once its own dispositions are set (it changes none
    after): the signals whose disposition C, forked from it, must change to
    reach table's (a fresh interpreter's); the rest already match."""
    return [s for s, h in table.items() if h is not None and _get_signal(s) is not h]


def _get_signal(sig):
    """None (not set from Python) counts as a disposition to reset; one
    Python cannot read, as SIG_DFL (reset_signals would skip it)."""
    try:
        return _signal.getsignal(sig)
    except (OSError, ValueError):
        return _signal.SIG_DFL


def reset_signals(table, sigs):
    for sig in sigs:
        h = table.get(sig)
        h = h if h is not None else _signal.SIG_DFL
        try:
            if _signal.getsignal(sig) is not h:     # Python's view is the kernel's: no syscall for the rest
                _signal.signal(sig, h)
        except (OSError, ValueError, TypeError):
            pass
    _signal.pthread_sigmask(_signal.SIG_SETMASK, [])
