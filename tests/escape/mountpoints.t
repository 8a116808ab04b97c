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

raced_run() { hrun --workdir "$W" --ro-bind "$W/D/f" -- /bin/true; [ "$rc" -eq 0 ]; }
race_bind_target "$RUNS" "$W/D" "$T" raced_run
find "$W" -user root >> "$T/found"
if [ -s "$T/found" ]; then
        not_ok "$RUNS raced runs leave no root-owned file"; diag "$(head -n 5 "$T/found")"
else
        ok "$RUNS raced runs leave no root-owned file in the caller's directory"
fi
diag "$raced_ok of $RUNS runs found the file at the check and ran"
done_testing
