#!/bin/bash
# No way back to the host's network: a 127.0.0.1 listener, an abstract unix
# socket and the host's own address are all out of reach. The same client
# outside the sandbox reaches them, so the test can fail.
. "$(dirname "$0")/../lib/lib.sh"
require_test_root
new_workspace
py=$(payload net_connect.py)
abstract=sbx-escape-$$-$RANDOM
host_ip=$(hostname -I 2>/dev/null | awk '{ print $1 }')

# The listener logs every connection; it runs as root on the host.
host_listener "$abstract" "$T/listener"

# Under load a connect can time out: the sanity check gets three tries.
for _ in 1 2 3; do
        as_user /usr/bin/python3 -I "$py" "$port" "$abstract" $host_ip >"$T/outside"
        grep -q 'tcp-loopback: CONNECTED' "$T/outside" &&
                grep -q 'abstract-unix: CONNECTED' "$T/outside" && break
done
check "sanity: outside the sandbox the listener is reachable over tcp" \
        grep -q 'tcp-loopback: CONNECTED' "$T/outside"
check "sanity: outside the sandbox the abstract socket is reachable" \
        grep -q 'abstract-unix: CONNECTED' "$T/outside"
diag "outside: $(tr '\n' ' ' < "$T/outside")"
: > "$T/listener"

HRUN_HOSTILE=30 hrun --workdir "$W" --timeout 20 -- /usr/bin/python3 -I "$py" "$port" "$abstract" $host_ip
[ "$rc" -eq 0 ] || show_run
check "inside: the host's 127.0.0.1 listener is unreachable" grep -q 'tcp-loopback: refused' "$T/out"
check "inside: the host's abstract unix socket is unreachable" grep -q 'abstract-unix: refused' "$T/out"
if [ -n "$host_ip" ]; then
        check "inside: the host's address $host_ip is unreachable" grep -q 'tcp-host-ip: refused' "$T/out"
fi
sleep 0.2
is "the host listener saw no connection from inside" "$(cat "$T/listener")" ""
done_testing
