#!/bin/bash
# --ro-bind of a unix socket or a FIFO: read-only leaves a socket
# connectable and a FIFO writable, so sbx-run refuses them in every tier
# that binds (the helper refuses them too: stdio-binds.t), cold and warm,
# before anything runs. The bwrap tier used to bind them, and a sample
# reached a host listener through the socket.
. "$(dirname "$0")/../lib/lib.sh"
require_test_root
D=$(user_tmpdir)
chmod 0755 "$D"
log=$D/connections
# The listener runs as root (killed by its pid at exit), its socket
# connectable by everyone and owned by the test user, as a user's own
# agent socket would be.
"$HOST_PY" - "$D/sock" "$log" "$(id -u "$SBX_TEST_USER")" <<'PY' > /dev/null 2>&1 &
import os, socket, sys
s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); s.listen(8)
os.chmod(sys.argv[1], 0o666); os.chown(sys.argv[1], int(sys.argv[3]), -1)
while True:
    c, _ = s.accept()
    with open(sys.argv[2], "a") as f: f.write("connected\n")
    c.close()
PY
at_exit "kill $! 2>/dev/null"
for _ in $(seq 50); do [ "$(stat -c %U "$D/sock" 2>/dev/null)" = "$SBX_TEST_USER" ] && break; sleep 0.1; done
as_user mkfifo "$D/fifo"
cat > "$D/reach.py" <<EOF2
import socket, os
try:
    s = socket.socket(socket.AF_UNIX); s.connect("$D/sock"); print("connected")
except OSError as e:
    print("socket:", e)
try:
    fd = os.open("$D/fifo", os.O_WRONLY | os.O_NONBLOCK); print("fifo open")
except OSError as e:
    print("fifo:", e)
EOF2
chmod 0644 "$D/reach.py"
as_user "$HOST_PY" "$D/reach.py" > /dev/null
# The listener writes its line after the client has gone: wait for it.
for _ in $(seq 50); do [ -s "$log" ] && break; sleep 0.1; done
is "control: the listener counts a connection from the host" "$(cat "$log" 2>/dev/null)" connected
: > "$log"

sbx() { as_user env SBX_HELPER="$SBX_HELPER" "$SBX_RUN" "$@"; }
/usr/bin/python3 - "$D/samples.jsonl" "$D/reach.py" <<'PY'
import json, sys
body = "".join("    " + l + "\n" for l in open(sys.argv[2]).read().splitlines())
with open(sys.argv[1], "w") as f:
    f.write(json.dumps({"task_id": "test/0", "completion": body + "    return 1\n"}) + "\n")
PY
chmod 0644 "$D/samples.jsonl"
for tier in helper bwrap; do
        for what in sock fifo; do
                rc=0
                sbx --tier "$tier" --ro-bind "$D/$what" --file "$D/reach.py" > "$D/out" 2> "$D/err" || rc=$?
                is "$tier --file --ro-bind of a $what: refused (exit 2)" "$rc" 2
                check "... saying it is not a regular file or directory" \
                        grep -q "not a regular file or directory" "$D/err"
                check_fails "... and nothing ran" grep -q . "$D/out"
                rc=0
                sbx --tier "$tier" --warm --ro-bind "$D/$what" --suite humaneval \
                        --problems "$SBX_DATA/humaneval/example_problem.jsonl" \
                        --samples "$D/samples.jsonl" --out "$D/res.jsonl" --no-progress \
                        > /dev/null 2> "$D/err" || rc=$?
                is "$tier --warm suite --ro-bind of a $what: refused (exit 2)" "$rc" 2
                check_fails "... and no result was written" test -s "$D/res.jsonl"
                rm -f "$D/res.jsonl"
        done
done
is "no sandboxed program reached the host's listener" "$(cat "$log")" ""
done_testing
