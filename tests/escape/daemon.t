#!/bin/bash
# A daemon (double fork, setsid, SIGTERM ignored) does not outlive its run:
# when the candidate exits, or when the timeout strikes, the whole pid
# namespace dies. Checked on the host with pgrep by a marker unique to
# this test, so no unrelated process of the user is counted.
. "$(dirname "$0")/../lib/lib.sh"
require_test_root
new_workspace
py=$(payload daemon.py)

for mode in exit wait; do
        marker=sbx-daemon-$mode-$$-$RANDOM
        is "before: no process with the marker" "$(user_pids "$marker" | wc -l)" 0
        start=$(date +%s)
        HRUN_HOSTILE=60 hrun --workdir "$W" --timeout 2 -- /usr/bin/python3 -I "$py" "$marker" "$mode"
        took=$(( $(date +%s) - start ))
        left=$(user_pids "$marker")
        is "daemon ($mode): nothing of the run is left once the helper returns" "$(echo $left)" ""
        [ -z "$left" ] || { ps -o pid,ppid,sid,cmd -p "$(echo $left | tr " " ,)" >&2; kill -9 $left; }
        check "daemon ($mode): the helper returned in time (${took}s)" test "$took" -le 8
done
is "daemon (wait): the run is reported as a timeout" "$(jfield status)" timeout
done_testing
