#!/bin/bash
# Hostile programs against the frontend: a setsid'd double-fork daemon must
# not outlive its run in the tiers without a pid namespace, and an output
# flood must not grow sbx-run's memory.
. "$(dirname "$0")/../lib/lib.sh"
require_test_root

sbx() { as_user env SBX_HELPER="$SBX_HELPER" "$SBX_RUN" -q "$@"; }
# as_user under hostile's outer timeout and ulimits (timeout cannot run a
# shell function, so as_user's setpriv line is spelled out)
hostile_user() {
        local secs=$1; shift
        local home; home=$(getent passwd "$SBX_TEST_USER" | cut -d: -f6)
        (cd / && hostile "$secs" env -i PATH=/usr/bin:/bin HOME="$home" LANG=C.UTF-8 \
                setpriv --reuid="$SBX_TEST_USER" --regid="$SBX_TEST_USER" --init-groups -- \
                env SBX_HELPER="$SBX_HELPER" "$@")
}
dir=$(user_tmpdir)
# daemon.py return: exits once its daemon is up; daemon.py hang: stays (for ^C)
cat > "$dir/daemon.py" <<'PY'
import os, sys, time
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        # the daemon: own session, parent gone, holds stdout open
        open(os.environ["MARK"], "w").write(str(os.getpid()))
        time.sleep(120)
    os._exit(0)
if sys.argv[1] == "hang":
    time.sleep(120)
os.wait()
while not os.path.exists(os.environ["MARK"]):
    time.sleep(0.01)
print("launched")
PY
cat > "$dir/flood.py" <<'PY'
import sys
chunk = "x" * (1 << 20)
for _ in range(50):
    sys.stdout.write(chunk)
sys.stdout.write("\nEND-OF-CHECKS\n")
PY
chmod 644 "$dir"/*.py

for tier in unshare unshare-root rlimit; do
        rm -f "$dir/mark"
        start=$(date +%s)
        out=$(hostile_user 60 "$SBX_RUN" -q --tier $tier \
                --json --env MARK="$dir/mark" --workdir "$dir" -- python3 daemon.py return)
        secs=$(( $(date +%s) - start ))
        check "$tier: run ends although the daemon holds its stdout (${secs}s)" test "$secs" -lt 30
        check "$tier: run passed" test "$(jq -r .status <<<"$out")" = ok
        pid=$(cat "$dir/mark" 2>/dev/null)
        if [ -z "$pid" ]; then
                not_ok "$tier: daemon pid recorded"
                continue
        fi
        sleep 0.2
        # tiers with their own pid namespace write a namespaced pid; these do not
        if kill -0 "$pid" 2>/dev/null && [ "$(stat -c %U /proc/$pid)" = "$SBX_TEST_USER" ]; then
                not_ok "$tier: setsid double-fork daemon $pid is gone after the run"
                kill -9 "$pid"
        else
                ok "$tier: setsid double-fork daemon $pid is gone after the run"
        fi
done

# ^C on sbx-run: the run and its daemon go, sbx-run dies of SIGINT
rm -f "$dir/mark"
tag=sbx-int-$$
hostile_user 60 "$SBX_RUN" -q --tier unshare --env MARK="$dir/mark" --env TAG=$tag \
        --workdir "$dir" -- python3 daemon.py hang &
bg=$!
for _ in $(seq 100); do [ -s "$dir/mark" ] && break; sleep 0.1; done
sbx_pid=$(pgrep -u "$SBX_TEST_USER" -f -- "--env TAG=$tag" | head -1)
kill -INT "$sbx_pid"
rc=0; wait "$bg" || rc=$?
check "SIGINT: sbx-run exits as killed by SIGINT (status $rc)" test "$rc" = 130
pid=$(cat "$dir/mark" 2>/dev/null)
sleep 0.2
if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
        not_ok "SIGINT: the run's daemon $pid is gone"
        kill -9 "$pid"
else
        ok "SIGINT: the run's daemon ${pid:-?} is gone"
fi

for tier in helper bwrap unshare rlimit; do
        out=$(hostile_user 120 /usr/bin/time -f 'RSS %M' \
                "$SBX_RUN" -q --tier $tier --json --file "$dir/flood.py" 2>"$dir/time.err")
        rss=$(sed -n 's/^RSS //p' "$dir/time.err")
        check "$tier: 50 MB of output: truncated" test "$(jq -r .truncated <<<"$out")" = true
        check "$tier: stdout kept at the 1 MiB cap" test "$(jq -r '.stdout|length' <<<"$out")" = 1048576
        check "$tier: the tail is kept past the cap" grep -q 'END-OF-CHECKS' <<<"$(jq -r .stdout_tail <<<"$out")"
        check "$tier: sbx-run's peak RSS stays small (${rss} KB)" test "${rss:-999999}" -lt 40000
        check "$tier: the flood still passes" test "$(jq -r .status <<<"$out")" = ok
done
out=$(sbx --tier bwrap --json --max-output 10K --file "$dir/flood.py")
check "--max-output 10K caps stdout at 10240" test "$(jq -r '.stdout|length' <<<"$out")" = 10240
done_testing
