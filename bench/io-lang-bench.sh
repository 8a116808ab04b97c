#!/bin/bash
# An io suite's cost per test run for a compiled sample (issue 33: within
# 1.2x of a bare loop), in one interleaved run (every round runs every
# variant; even rounds in reverse order): the C++ solution of the shipped
# CodeContests problem 1000_A (tests/suites/io-lang/accepted.cpp, task 3,
# 102 tests), SAMPLES copies of it, every test of each (1,020 test runs):
#   loop   g++ -O2 once, then `timeout 2 ./prog < in > out` one test after
#          another in JOBS bash loops over interleaved shares
#   cold   sbx-run --suite codecontests --all-tests -jJOBS --tier helper:
#          built once (from the compile cache, filled before the rounds),
#          a sandbox of its own a test, its input a sealed memfd, its
#          output compared outside
#   bwrap  the same in the bwrap tier
# Prints each round's walls, the medians, tests/s and the ratios to the
# loop. As root: measures as the test user (tests/lib/setup-root.sh).
#   ROUNDS=3 (default), BUILD=build, JOBS=2, SAMPLES=10, VARIANTS="loop cold bwrap".
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
. "$repo/bench/lib/setup.sh"
rounds=${ROUNDS:-3}
jobs=${JOBS:-2}
samples=${SAMPLES:-10}
variants=${VARIANTS:-loop cold bwrap}
bench_setup io-lang-bench sbx-run
bench_work io-lang-bench
cp "$repo/suites/codecontests/code_eval_code_contests.jsonl" "$repo/tests/suites/io-lang/accepted.cpp" "$work/"
"$py" - "$work" "$samples" <<'PY'
import json, os, sys
work, n = sys.argv[1], int(sys.argv[2])
src = open(os.path.join(work, "accepted.cpp")).read()
with open(os.path.join(work, "samples.jsonl"), "w") as f:
    for i in range(n):
        f.write(json.dumps({"task_id": "3", "language": "cpp", "solution": src}) + "\n")
tests = next(json.loads(r["test"]) for r in map(json.loads, open(os.path.join(work, "code_eval_code_contests.jsonl")))
             if r["id"] == 3)
os.makedirs(os.path.join(work, "in"), exist_ok=True)
for i in range(n):
    for t, test in enumerate(tests):
        with open(os.path.join(work, "in", "%02d-%03d" % (i, t)), "w") as f:
            f.write(test["input"]["stdin"])
PY
mkdir -p "$work/out"
chown -R "$SBX_TEST_USER:" "$work"
chmod -R a+rX "$work"
out=$(mktemp -d)
trap 'rm -rf "$out"; teardown_root' EXIT

user() { as_bench_user "$work" "$@"; }
user g++ -std=c++17 -O2 -o prog accepted.cpp

# Each variant prints "WALL TESTS".
v_loop() {
        local t0 t1
        t0=$(date +%s.%N)
        user bash -c 'ls in > list; for j in $(seq 0 $(($1 - 1))); do
                awk -v j=$j -v n=$1 "NR % n == j" list | while read -r f; do
                        timeout 2 ./prog < "in/$f" > "out/$f"; done &
                done; wait' _ "$jobs"
        t1=$(date +%s.%N)
        echo "$(echo "$t1 - $t0" | bc -l) $(ls "$work/out" | wc -l)"
        rm -f "$work"/out/*
}
sbx_suite() { # sbx_suite TIER
        local t0 t1
        t0=$(date +%s.%N)
        user env SBX_CACHE="$work/cache" "$SBX_RUN" --tier "$1" --cold --no-progress --suite codecontests \
                --problems code_eval_code_contests.jsonl --samples samples.jsonl --tasks 3 \
                --all-tests --allow-partial -j "$jobs" --out results.jsonl > /dev/null
        t1=$(date +%s.%N)
        "$py" -c 'import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
assert all(r["passed"] for r in rows), [r["result"] for r in rows if not r["passed"]]
print("%.3f %d" % (float(sys.argv[2]), sum(r["tests_run"] for r in rows)))' \
                "$work/results.jsonl" "$(echo "$t1 - $t0" | bc -l)"
        rm -f "$work/results.jsonl"
}
v_cold() { sbx_suite helper; }
v_bwrap() { sbx_suite bwrap; }

# the compile cache filled before the rounds: the builds are not what is timed
v_cold > /dev/null
echo "io-lang-bench: $rounds rounds, -j$jobs, $samples C++ samples, variants: $variants (load $(load))"
bench_rounds io-lang-bench "$rounds" "$out" $variants
bench_summary io-lang-bench "$out" $variants
