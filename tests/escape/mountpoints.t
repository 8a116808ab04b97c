#!/bin/bash
# Mount points are never created as root outside the sandbox's own tmpfs
# (issue 14 item 4): a --ro-bind target under a host workdir that a racer
# removes between the helper's check and its mount used to be re-created by
# init as root (mode 0444), a root-owned file at a name the caller chose.
# A bounded racer: 40 runs, each with the file toggled all along.
. "$(dirname "$0")/../lib/lib.sh"
require_test_root
new_workspace
RUNS=40
mkdir -m 0755 "$W/D" && chown "$SBX_TEST_USER:" "$W/D"

cat > "$T/race.py" <<'PY'
import os, sys, time
d, stop, found = sys.argv[1], sys.argv[2], sys.argv[3]
f = os.path.join(d, 'f')
while not os.path.exists(stop):
    try:
        st = os.lstat(f)
        if st.st_uid == 0:
            open(found, 'a').write('root-owned %o\n' % st.st_mode)
        os.unlink(f)
    except FileNotFoundError:
        pass
    time.sleep(0.001)    # absent about half the time: present at the check, gone at the mount
    try:
        os.close(os.open(f, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644))
    except FileExistsError:
        pass
    time.sleep(0.001)
PY
chmod 0644 "$T/race.py"
: > "$T/found"; chown "$SBX_TEST_USER:" "$T/found"
as_user touch "$W/D/f"
as_user "$HOST_PY" -I "$T/race.py" "$W/D" "$T/stop" "$T/found" &
racer=$!
at_exit "touch $T/stop; kill $racer 2>/dev/null"
ran=0
for _ in $(seq "$RUNS"); do
        hrun --workdir "$W" --ro-bind "$W/D/f" -- /bin/true
        [ "$rc" -eq 0 ] && ran=$((ran + 1))
        find "$W/D" -user root -exec sh -c 'echo "left root-owned: $1" >> "$2"' sh {} "$T/found" \;
done
touch "$T/stop"; wait "$racer"
find "$W" -user root >> "$T/found"
if [ -s "$T/found" ]; then
        not_ok "$RUNS raced runs leave no root-owned file"; diag "$(head -n 5 "$T/found")"
else
        ok "$RUNS raced runs leave no root-owned file in the caller's directory"
fi
diag "$ran of $RUNS runs found the file at the check and ran"
done_testing
