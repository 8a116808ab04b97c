#!/bin/bash
# A job scheduler's cancel (Slurm's scancel with proctrack/linuxproc, a
# container's stop) signals every process of the job, in no set order: the
# sandboxed candidates can die of that SIGTERM before sbx-run hears of its
# own. Such a death is the stop, not the sample's verdict: sbx-run keeps no
# result for it (--resume runs it again). A sample that dies of SIGTERM by
# itself, with no stop, still gets its verdict.
. "$(dirname "$0")/../lib/lib.sh"
require_test_root
HE=$SBX_DATA/humaneval
D=$(user_tmpdir)

/usr/bin/python3 - "$D/samples.jsonl" "$D/selfkill.jsonl" <<'PY'
import json, sys
quick = "    return 1"
sleeper = "    import time\n    time.sleep(120)\n    return 1"
selfkill = "    import os, signal\n    os.kill(os.getpid(), signal.SIG%s)\n    return 1"
with open(sys.argv[1], "w") as f:
    for c in [quick, quick, sleeper, sleeper]:
        f.write(json.dumps({"task_id": "test/0", "completion": c}) + "\n")
with open(sys.argv[2], "w") as f:
    for s in ["TERM", "INT", "HUP"]:
        f.write(json.dumps({"task_id": "test/0", "completion": selfkill % s}) + "\n")
PY
chown "$SBX_TEST_USER:" "$D/samples.jsonl" "$D/selfkill.jsonl"

# descendants PID: PID's descendants, deepest first (not PID itself).
descendants() {
        local c
        for c in $(pgrep -P "$1"); do descendants "$c"; echo "$c"; done
}

for tier in helper bwrap; do
        out=$D/$tier.jsonl
        as_user env SBX_HELPER="$SBX_HELPER" "$SBX_RUN" --tier "$tier" --suite humaneval \
                --problems "$HE/example_problem.jsonl" --samples "$D/samples.jsonl" \
                --out "$out" -j 4 --timeout 30 --no-progress > "$D/$tier.out" 2> "$D/$tier.err" &
        bg=$!
        for _ in $(seq 1 120); do
                [ -f "$out" ] && [ "$(wc -l < "$out")" -ge 2 ] && break
                sleep 0.5
        done
        sleep 1         # the sleepers are in flight
        top=$(pgrep -u "$SBX_TEST_USER" -f -- "--out $out" | head -n1)
        if [ -z "$top" ]; then
                not_ok "$tier: sbx-run is still running"
                diag "$(cat "$D/$tier.err"; cut -c1-300 "$out")"
                continue
        fi
        # The worst order: every process under sbx-run first, sbx-run 0.1 s
        # later (a scheduler preempted half way through its list).
        for p in $(descendants "$top"); do kill -TERM "$p" 2>/dev/null; done
        sleep 0.1
        kill -TERM "$top"
        rc=0; wait "$bg" || rc=$?
        is "$tier: every process sent SIGTERM, sbx-run last: exit 143" "$rc" 143
        is "$tier: only the 2 finished results are kept" "$(wc -l < "$out")" 2 ||
                diag "$(cut -c1-300 "$out")"

        # The order that made a stop a verdict: a warm run's sbx-run-init
        # (B0, outside the run, and B1, its pid 1) first, the rest 0.5 s
        # later. B0's death killed the run by SIGKILL, a result sbx-run kept
        # ('killed by signal 9') and --resume never ran again.
        # Mutation-checked: without B0's ignore_stop_signals, 3 results.
        out=$D/$tier-init-first.jsonl
        as_user env SBX_HELPER="$SBX_HELPER" "$SBX_RUN" --tier "$tier" --suite humaneval \
                --problems "$HE/example_problem.jsonl" --samples "$D/samples.jsonl" \
                --out "$out" -j 4 --timeout 30 --no-progress > "$D/$tier.out" 2> "$D/$tier.err" &
        bg=$!
        for _ in $(seq 1 120); do
                [ -f "$out" ] && [ "$(wc -l < "$out")" -ge 2 ] && break
                sleep 0.5
        done
        sleep 1
        top=$(pgrep -u "$SBX_TEST_USER" -f -- "--out $out" | head -n1)
        if [ -z "$top" ]; then
                not_ok "$tier: sbx-run is still running (init first)"
                diag "$(cat "$D/$tier.err"; cut -c1-300 "$out")"
                continue
        fi
        inits=0
        for p in $(descendants "$top"); do
                [ "$(cat "/proc/$p/comm" 2>/dev/null)" = sbx-run-init ] || continue
                kill -TERM "$p" 2>/dev/null && inits=$((inits + 1))
        done
        check "$tier: the warm runs' sbx-run-init were sent SIGTERM ($inits)" test "$inits" -ge 2
        sleep 0.5
        for p in $(descendants "$top"); do kill -TERM "$p" 2>/dev/null; done
        sleep 0.1
        kill -TERM "$top"
        rc=0; wait "$bg" || rc=$?
        is "$tier: sbx-run-init first, then the rest, sbx-run last: exit 143" "$rc" 143
        is "$tier: sbx-run-init first: only the 2 finished results are kept" "$(wc -l < "$out")" 2 ||
                diag "$(cut -c1-300 "$out")"

        out=$D/$tier-selfkill.jsonl
        rc=0
        as_user env SBX_HELPER="$SBX_HELPER" "$SBX_RUN" --tier "$tier" --suite humaneval \
                --problems "$HE/example_problem.jsonl" --samples "$D/selfkill.jsonl" \
                --out "$out" -j 2 --timeout 30 --no-progress > /dev/null 2> "$D/$tier-selfkill.err" || rc=$?
        is "$tier: samples that SIGTERM, SIGINT, SIGHUP themselves: the suite runs (exit 0)" "$rc" 0
        codes=$("$HOST_PY" -c 'import json,sys; print(" ".join(str(json.loads(l)["returncode"]) for l in open(sys.argv[1])))' "$out")
        # Python turns SIGINT into KeyboardInterrupt (exit 1).
        is "$tier: ... each keeps its verdict (held, then kept: no stop came)" "$codes" "-15 1 -1"
done
done_testing
