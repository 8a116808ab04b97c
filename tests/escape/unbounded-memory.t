#!/bin/bash
# Memory outside RLIMIT_AS (issue 14, item 1): under --memory 64M a payload
# tries to hold 768 MB in memfds and in detached SysV shm segments, in the
# helper and the bwrap tier. It must hold no more than the limit, and the
# host's Shmem must not grow by more than it (both are measured inside the
# run, from /proc/meminfo, the host's).
. "$(dirname "$0")/../lib/lib.sh"
require_test_root
new_workspace
limit_mb=64
prog=$(payload memhold.py)

# verdict TIER KIND: checks the payload's line in $T/out
verdict() {
        local line held grew
        line=$(grep '^held ' "$T/out")
        diag "$1 $2: ${line:-no output} (rc=$rc)"
        held=$(sed -n 's/^held \([0-9]*\) MB.*/\1/p' <<<"$line")
        grew=$(sed -n 's/.*shmem +\(-\{0,1\}[0-9]*\) MB.*/\1/p' <<<"$line")
        if [ -n "$held" ] && [ "$held" -le $limit_mb ]; then
                ok "$1: $2 holds at most --memory ${limit_mb}M (held $held MB)"
        else
                not_ok "$1: $2 holds at most --memory ${limit_mb}M"; diag "stderr: $(head -c 600 "$T/err")"
        fi
        if [ -n "$grew" ] && [ "$grew" -le $limit_mb ]; then
                ok "$1: $2: host Shmem grew by at most ${limit_mb} MB (+$grew MB)"
        else
                not_ok "$1: $2: host Shmem grew by at most ${limit_mb} MB (got '+$grew')"
        fi
}

for kind in memfd shm; do
        HRUN_HOSTILE=60 hrun --workdir "$W" --memory ${limit_mb}M --timeout 20 -- \
                /usr/bin/python3 -I "$prog" $kind
        verdict helper $kind
done

if ! as_user "$SBX_RUN" -q --tier bwrap --workdir "$W" -- /bin/true >/dev/null 2>&1; then
        ok "# SKIP bwrap tier: it does not work here"
        done_testing
fi
for kind in memfd shm; do
        rc=0
        hostile 60 setpriv --reuid="$SBX_TEST_USER" --regid="$SBX_TEST_USER" --init-groups -- \
                env -i PATH=/usr/bin:/bin HOME=/nonexistent "$SBX_RUN" -q --tier bwrap \
                --memory ${limit_mb}M --timeout 20 --workdir "$W" -- /usr/bin/python3 -I "$prog" $kind \
                >"$T/out" 2>"$T/err" </dev/null || rc=$?
        verdict bwrap $kind
done
done_testing
