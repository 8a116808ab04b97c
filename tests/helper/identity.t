#!/bin/bash
# The candidate runs as the caller, unprivileged: caller uid/gid, the
# caller's supplementary groups kept (unchangeable), no capabilities in any set, no_new_privs, seccomp
# filter on, its own session without a controlling terminal.
. "$(dirname "$0")/../lib/lib.sh"
require_test_root
new_workspace
uid=$(id -u "$SBX_TEST_USER"); gid=$(id -g "$SBX_TEST_USER")

put "$W/id.py" <<'PY'
import os
print('ids', os.getuid(), os.geteuid(), os.getgid(), os.getegid())
print('groups', ' '.join(map(str, sorted(os.getgroups()))))
try:
    os.setgroups([])
    print('setgroups OK')
except OSError as e:
    print('setgroups', e.errno)
for line in open('/proc/self/status'):
    k, v = line.split(':', 1)
    if k in ('CapInh', 'CapPrm', 'CapEff', 'CapBnd', 'CapAmb', 'NoNewPrivs', 'Seccomp'):
        print(k, v.strip())
print('session', int(os.getsid(0) == os.getpid()))
try:
    os.open('/dev/tty', os.O_RDWR)
    print('tty opened')
except OSError as e:
    print('tty', e.errno)
PY
hrun --workdir "$W" -- /usr/bin/python3 -I "$W/id.py"
[ "$rc" -eq 0 ] || show_run
val() { awk -v k="$1" '$1 == k { $1 = ""; sub(/^ /, ""); print }' "$T/out"; }

is "runs as the caller's uid and primary gid" "$(val ids)" "$uid $uid $gid $gid"
# Kept, not dropped: dropping one would grant what it was denied (see
# tests/escape/creds.t). In a user namespace an unmapped group shows as 65534.
g=$(val groups); sbx_gid=$(getent group "$SBX_TEST_GROUP" | cut -d: -f3)
if echo " $g " | grep -Eq " ($sbx_gid|65534) "; then
        ok "the caller's supplementary groups are kept (caller had $SBX_TEST_GROUP; inside: $g)"
else
        not_ok "the caller's supplementary groups are kept"; diag "groups inside: $g"
fi
is "the candidate cannot change its groups (setgroups: EPERM)" "$(val setgroups)" 1
for c in CapInh CapPrm CapEff CapBnd CapAmb; do
        is "$c is empty" "$(val $c)" "0000000000000000"
done
is "NoNewPrivs is set" "$(val NoNewPrivs)" "1"
is "a seccomp filter is installed (Seccomp: 2)" "$(val Seccomp)" "2"
is "the candidate leads its own session" "$(val session)" "1"
t=$(val tty)
case $t in
""|opened) not_ok "no controlling terminal: open /dev/tty fails"; diag "got '$t'" ;;
*) ok "no controlling terminal: open /dev/tty fails (errno $t)" ;;
esac

# Even with a terminal on stdin, the candidate gets no controlling tty.
if command -v script >/dev/null; then
        put "$W/tty.sh" <<'SH'
exec 2>&1; if (: </dev/tty) 2>/dev/null; then echo TTY-OPEN; else echo NO-TTY; fi
SH
        chmod 0755 "$W/tty.sh"
        as_user script -qec "$SBX_HELPER --workdir $W -- /bin/sh $W/tty.sh" /dev/null \
                </dev/null >"$T/out" 2>&1 || true
        check "with a terminal on stdin, /dev/tty still does not open" grep -q NO-TTY "$T/out"
else
        not_ok "script(1) from bsdutils missing: cannot test the terminal case"
fi
done_testing
