#!/bin/bash
# Credentials (issue 14 items 3, 8, 9, 14): the caller's supplementary groups
# are kept (a group's denial holds inside); init is out of the candidate's
# reach (euid 0 without capabilities, no_new_privs, seccomp: no prlimit, no
# /proc/1/mem); the caller cannot stop the supervisor; --probe reports the
# caller's uid; the sandbox's / and /dev are root:root.
. "$(dirname "$0")/../lib/lib.sh"
require_test_root
new_workspace
uid=$(id -u "$SBX_TEST_USER")

# Item 3: a 0604 root:G file is unreadable to a member of G on the host
# (group bits first); dropping G inside made it readable through --ro-bind.
G=sbxdeny$$
groupadd "$G" && usermod -a -G "$G" "$SBX_TEST_USER" || { not_ok "create group $G"; done_testing; }
at_exit "gpasswd -d $SBX_TEST_USER $G >/dev/null 2>&1; groupdel $G"
D=$T/denied; mkdir -m 0755 "$D" && chown "$SBX_TEST_USER:" "$D"
echo "GROUP-DENIED-SECRET" > "$D/secret"; chown "root:$G" "$D/secret"; chmod 0604 "$D/secret"
check_fails "host: the member of $G cannot read the 0604 root:$G file" as_user cat "$D/secret"
hrun --workdir "$W" --ro-bind "$D" -- /bin/cat "$D/secret"
if [ "$rc" -ne 0 ] && ! grep -q GROUP-DENIED "$T/out"; then
        ok "inside (--ro-bind): still unreadable, the caller's groups are kept"
else
        not_ok "inside (--ro-bind): the group-denied file stays unreadable"; show_run
fi
put "$W/groups.sh" <<'SH'
id -G
SH
hrun --workdir "$W" -- /bin/sh "$W/groups.sh"
gid_g=$(getent group "$G" | cut -d: -f3)
if [ "$rc" -eq 0 ] && [ -s "$T/out" ] && { grep -qw "$gid_g" "$T/out" || grep -qw 65534 "$T/out"; }; then
        ok "the candidate still has supplementary groups ($(cat "$T/out"))"
else
        not_ok "the candidate keeps supplementary groups"; show_run
fi

# Items 8 and 9: init (pid 1 inside) as the candidate sees it.
put "$W/init.py" <<'PY'
import os, resource
st = dict(l.split(':', 1) for l in open('/proc/1/status'))
print('uid', st['Uid'].split()[1], 'nnp', st['NoNewPrivs'].strip(), 'seccomp', st['Seccomp'].strip(),
      'capeff', st['CapEff'].strip())
try:
    resource.prlimit(1, resource.RLIMIT_CPU, (1, 1))
    print('prlimit OK')
except OSError as e:
    print('prlimit', e.errno)
for f in ('/proc/1/mem', '/proc/1/environ'):
    try:
        open(f, 'rb').read(1)
        print(f, 'OPENED')
    except OSError as e:
        print(f, e.errno)
PY
hrun --workdir "$W" -- /usr/bin/python3 -I "$W/init.py"
[ "$rc" -eq 0 ] || show_run
# Root shows as 65534 in the candidate's user namespace, where 0 is unmapped.
is "init: effective uid 0 (not the caller's), no_new_privs, seccomp filter, no capabilities" \
        "$(head -n1 "$T/out" | sed 's/^uid 65534 /uid 0 /')" "uid 0 nnp 1 seccomp 2 capeff 0000000000000000"
is "the candidate cannot prlimit init (EPERM)" "$(grep '^prlimit' "$T/out")" "prlimit 1"
check_fails "the candidate cannot open init's /proc/1/mem" grep -q "mem OPENED" "$T/out"
check_fails "the candidate cannot read init's /proc/1/environ" grep -q "environ OPENED" "$T/out"
is "the run still ends normally" "$(jfield status)" exited

# Item 9: kill -STOP on the supervisor from the caller fails, and a
# --timeout 1 run still ends with status timeout (the outer limit is 60 s).
put "$W/started.sh" <<SH
: > "$W/started"; exec /bin/sleep 30
SH
cat > "$T/stop.sh" <<'SH'
helper=$1 W=$2 T=$3
exec 3>"$T/status.json"
"$helper" --status-fd 3 --workdir "$W" --timeout 1 -- /bin/sh "$W/started.sh" &
hp=$!
exec 3>&-
while [ ! -e "$W/started" ] && kill -0 "$hp" 2>/dev/null; do sleep 0.05; done
if kill -STOP "$hp" 2>/dev/null; then echo "stop OK"; kill -CONT "$hp"; else echo "stop refused"; fi
wait "$hp"; echo "helper rc $?"
SH
chmod 0755 "$T/stop.sh"; : > "$T/status.json"; chown "$SBX_TEST_USER:" "$T/status.json"
hostile 60 env -i PATH=/usr/bin:/bin setpriv --reuid="$SBX_TEST_USER" --regid="$SBX_TEST_USER" \
        --init-groups -- /bin/sh "$T/stop.sh" "$SBX_HELPER" "$W" "$T" > "$T/out" 2>&1
is "kill -STOP on the supervisor from the caller is refused" "$(grep '^stop' "$T/out")" "stop refused"
is "the --timeout 1 run ends with status timeout" "$(jfield status)" timeout

# Item 14: --probe's caller uid, and / and /dev owned root:root.
HRUN_NOSTATUS=1 hrun --probe
is "--probe reports the caller's uid" \
        "$("$HOST_PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["caller"]["uid"])' "$T/out")" "$uid"
# No --workdir and no --ro-bind: nothing resets init's file system gid first.
hrun -- /usr/bin/stat -c '%n %u:%g' / /dev
is "the sandbox's / and /dev are root:root (65534 where root is unmapped), not the caller's group" \
        "$(tr '\n' ' ' < "$T/out" | sed 's/65534:65534/0:0/g')" "/ 0:0 /dev 0:0 "
done_testing
