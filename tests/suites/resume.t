#!/bin/bash
# An interrupted suite keeps every finished line (SIGINT kills the runs in
# flight), --resume runs only what is missing and leaves the file in input
# order, and a results file from other samples is refused.
. "$(dirname "$0")/../lib/lib.sh"
require_test_root
HE=$SBX_DATA/humaneval
D=$(user_tmpdir)
marker="resume-$$-$RANDOM"

/usr/bin/python3 - "$D/samples.jsonl" <<'PY'
import json, sys
codes = ["    return 1"] * 3 + ["    import time\n    time.sleep(120)\n    return 1"] + ["    return 1"] * 2
with open(sys.argv[1], "w") as f:
    for c in codes:
        f.write(json.dumps({"task_id": "test/0", "completion": c}) + "\n")
PY
chown "$SBX_TEST_USER:" "$D/samples.jsonl"
out=$D/$marker.jsonl

as_user "$SBX_RUN" --suite humaneval --problems "$HE/example_problem.jsonl" \
        --samples "$D/samples.jsonl" --out "$out" -j 1 --timeout 30 --no-progress \
        --env "SBX_RESUME_MARK=$marker" \
        > "$D/run1.out" 2> "$D/run1.err" &
bg=$!
for _ in $(seq 1 120); do
        [ -f "$out" ] && [ "$(wc -l < "$out")" -ge 3 ] && break
        sleep 0.5
done
sleep 1         # the fourth sample (a sleeper) is now in flight
pid=$(pgrep -u "$SBX_TEST_USER" -f -- "--out $out" | head -n1)
if [ -n "$pid" ]; then kill -INT "$pid"; fi
rc=0; wait "$bg" || rc=$?
is "SIGINT: sbx-run stops with exit 130 (128 + SIGINT, not 1: \"failed\")" "$rc" 130
grep -q "interrupted: 3 of 6 results kept" "$D/run1.err" && ok "SIGINT: says what it kept" ||
        { not_ok "SIGINT: says what it kept"; diag "$(cat "$D/run1.err")"; }
is "SIGINT: the 3 finished results are on disk" "$(wc -l < "$out")" 3
sleep 1
# The candidates carry the marker in their environment: none may survive.
left=0
for e in /proc/[0-9]*/environ; do
        grep -qa "SBX_RESUME_MARK=$marker" "$e" 2>/dev/null && left=$((left + 1))
done
is "SIGINT: no candidate process survives" "$left" 0
cp "$out" "$D/before.jsonl"

# A run killed in the middle of a write leaves a torn last line: dropped.
printf '{"task_id": "test/0", "completion": "    ret' >> "$out"

as_user "$SBX_RUN" --suite humaneval --problems "$HE/example_problem.jsonl" \
        --samples "$D/samples.jsonl" --out "$out" -j 2 --timeout 1 --resume --no-progress \
        > "$D/run2.out" 2> "$D/run2.err"
is "--resume: exits 0" "$?" 0
/usr/bin/python3 - "$out" "$D/before.jsonl" <<'PY' > "$D/check"
import json, sys
now = [json.loads(l) for l in open(sys.argv[1])]
before = [json.loads(l) for l in open(sys.argv[2])]
print("count", len(now))
print("order", [r["sbx_index"] for r in now] == list(range(6)))
print("kept", all(any(b == n for n in now) for b in before))
print("sleeper", now[3]["result"])
print("passed", sum(r["passed"] for r in now))
PY
is "--resume: 6 results" "$(grep ^count "$D/check")" "count 6"
is "--resume: input order" "$(grep ^order "$D/check")" "order True"
is "--resume: finished lines kept as they were (not run again)" "$(grep ^kept "$D/check")" "kept True"
is "--resume: the interrupted sample ran (and timed out)" "$(grep ^sleeper "$D/check")" "sleeper timed out"
is "--resume: 5 passed" "$(grep ^passed "$D/check")" "passed 5"

head -n 2 "$D/samples.jsonl" > "$D/other.jsonl"; chown "$SBX_TEST_USER:" "$D/other.jsonl"
rc=0
as_user "$SBX_RUN" --suite humaneval --problems "$HE/example_problem.jsonl" \
        --samples "$D/other.jsonl" --out "$out" --resume --no-progress > /dev/null 2> "$D/run3.err" || rc=$?
is "--resume into results of other samples: exit 2" "$rc" 2
grep -q "another samples file" "$D/run3.err" && ok "--resume mismatch: says why" ||
        { not_ok "--resume mismatch: says why"; diag "$(cat "$D/run3.err")"; }
is "--resume mismatch: the results file is untouched" "$(wc -l < "$out")" 6
done_testing
