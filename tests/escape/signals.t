#!/bin/bash
# Reaching the caller's other processes: kill(-1, SIGKILL) from inside must
# not touch a process of the same user outside; ptrace is covered by
# seccomp.t; TIOCSTI (typing into the caller's terminal) must fail, also
# with high bits set in the ioctl number (CVE-2019-10063).
. "$(dirname "$0")/../lib/lib.sh"
require_test_root
new_workspace
marker=sbx-victim-$$-$RANDOM

as_user bash -c 'exec -a "$0" sleep 300' "$marker" </dev/null >/dev/null 2>&1 &
for _ in $(seq 50); do victim=$(user_pids "$marker"); [ -n "$victim" ] && break; sleep 0.1; done
at_exit '[ -z "${victim:-}" ] || kill $victim 2>/dev/null'
check "sanity: the victim sleep runs as $SBX_TEST_USER (pid ${victim:-none})" test -n "$victim"

HRUN_HOSTILE=30 hrun --workdir "$W" --timeout 10 -- /usr/bin/python3 -I "$(payload killall.py)"
diag "inside: $(cat "$T/out") status $(jfield status)"
check "kill(-1, SIGKILL) inside leaves the user's host process alive" kill -0 $victim

# TIOCSTI needs a terminal on fd 0: a pty made here, its slave given to the
# test user. Whatever the candidate manages to inject shows up as input.
[ -x "${SBX_TRY_SYSCALL:-}" ] || { not_ok "SBX_TRY_SYSCALL not built: TIOCSTI untested"; done_testing; }
install -o "$SBX_TEST_USER" -m 0755 "$SBX_TRY_SYSCALL" "$W/try-syscall"
for probe in tiocsti tiocsti-highbits; do
        "$HOST_PY" - "$SBX_TEST_USER" "$T" "$SBX_HELPER" "$W" "$probe" <<'PY' >"$T/pty" 2>&1
import os, pwd, select, subprocess, sys
user, tdir, helper, wdir, probe = sys.argv[1:]
pw = pwd.getpwnam(user)
master, slave = os.openpty()
os.fchown(slave, pw.pw_uid, -1)
cmd = ['setpriv', '--reuid', user, '--regid', user, '--init-groups', '--',
       helper, '--workdir', wdir, '--timeout', '10', '--', wdir + '/try-syscall', probe]
r = subprocess.run(cmd, stdin=slave, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                   env={'PATH': '/usr/bin:/bin'}, cwd='/', timeout=30)
# Injected bytes land in the slave's input queue.
os.set_blocking(slave, False)
try:
    injected = os.read(slave, 64)
except BlockingIOError:
    injected = b''
print('rc', r.returncode)
print('out', r.stdout.decode().strip())
print('injected', repr(injected))
PY
        diag "$probe: $(tr '\n' ' ' < "$T/pty")"
        rcp=$(awk '$1 == "rc" { print $2 }' "$T/pty")
        # EPERM (1) from the filter or the kernel; EIO (5) where the kernel
        # has TIOCSTI switched off (dev.tty.legacy_tiocsti = 0).
        if [ "$rcp" = 1 ] || [ "$rcp" = 5 ]; then ok "$probe fails (rc $rcp)"; else not_ok "$probe fails"; fi
        check "$probe injected nothing into the terminal" grep -q "^injected b''" "$T/pty"
done
done_testing
