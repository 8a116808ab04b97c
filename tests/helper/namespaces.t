#!/bin/bash
# The candidate gets its own mount, pid, net, ipc, uts and cgroup namespaces.
. "$(dirname "$0")/../lib/lib.sh"
require_test_root
new_workspace

put "$W/ns.sh" <<'SH'
for n in mnt pid net ipc uts cgroup; do echo "$n $(readlink /proc/self/ns/$n)"; done
SH
as_user sh "$W/ns.sh" >"$T/outside"
hrun --workdir "$W" -- /bin/sh "$W/ns.sh"
[ "$rc" -eq 0 ] || show_run
for n in mnt pid net ipc uts cgroup; do
        outside=$(awk -v n=$n '$1 == n { print $2 }' "$T/outside")
        inside=$(awk -v n=$n '$1 == n { print $2 }' "$T/out")
        if [ -n "$inside" ] && [ -n "$outside" ] && [ "$inside" != "$outside" ]; then
                ok "own $n namespace ($inside)"
        else
                not_ok "own $n namespace"; diag "inside '$inside' outside '$outside'"
        fi
done

# A fresh pid namespace shows only the sandbox's few processes, and the
# candidate's parent is the sandbox's init, not a host process.
put "$W/pids.sh" <<'SH'
ls /proc | grep -c '^[0-9][0-9]*$'
SH
hrun --workdir "$W" -- /bin/sh "$W/pids.sh"
n=$(cat "$T/out")
if [ "$rc" -eq 0 ] && [ "${n:-99}" -le 4 ]; then
        ok "pid namespace: $n processes visible"
else
        not_ok "pid namespace: few processes visible"; show_run
fi

# Network: loopback only, and up (tests that bind 127.0.0.1 still work).
put "$W/net.py" <<'PY'
import socket
ifaces = [l.split(':')[0].strip() for l in open('/proc/net/dev').readlines()[2:]]
print(' '.join(sorted(ifaces)))
srv = socket.socket(); srv.bind(('127.0.0.1', 0)); srv.listen(1)
cli = socket.create_connection(srv.getsockname(), timeout=2)
conn, _ = srv.accept(); cli.sendall(b'ping'); print(conn.recv(4).decode())
PY
hrun --workdir "$W" -- /usr/bin/python3 -I "$W/net.py"
is "net namespace has only lo" "$(head -n1 "$T/out")" "lo"
is "loopback is up inside" "$(sed -n 2p "$T/out")" "ping"
[ "$rc" -eq 0 ] || show_run
done_testing
