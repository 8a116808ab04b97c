#!/bin/bash
# The io suites' cost per test run (issue 33: within 1.2x of a bare loop),
# in one interleaved run (every round runs every variant; even rounds in
# reverse order), on the shipped CodeContests problems that have a
# reference solution, every test of each (2,005 test runs):
#   loop       bench/io_loop.py: `timeout 20 python3 -I -B prog < in > out`,
#              one test after another, JOBS loops over interleaved shares
#   warm       sbx-run --suite codecontests --all-tests -jJOBS (helper tier:
#              the program built once, a fresh candidate from the zygote a
#              test, its input a sealed memfd, its output compared outside)
#   warm-bwrap the same in the bwrap tier
#   cold       the helper tier with --cold: a sandbox of its own a test
# Prints each round's walls and load, the medians, tests/s and the ratios
# to the loop. A variant that did not run every test (or whose outputs
# were not all judged as the loop's) says so.
#   As root: sets up the test user and a temp root with the setuid helper
#   (tests/lib/setup-root.sh) and measures as that user.
#   ROUNDS=3 (default), BUILD=build, JOBS=2, VARIANTS="loop warm warm-bwrap cold".
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
. "$repo/bench/lib/setup.sh"
rounds=${ROUNDS:-3}
jobs=${JOBS:-2}
variants=${VARIANTS:-loop warm warm-bwrap cold}
goal=1.2
bench_setup io-bench sbx-run
bench_work io-bench
cp "$repo/suites/codecontests/code_eval_code_contests.jsonl" "$repo/suites/codecontests/reference_solutions.jsonl" \
        "$repo/bench/io_loop.py" "$work/"
chown -R "$SBX_TEST_USER:" "$work"
chmod -R a+rX "$work"
out=$(mktemp -d)
trap 'rm -rf "$out"; teardown_root' EXIT

user() { as_bench_user "$work" "$@"; }

# Each variant prints "WALL TESTS": seconds, and the test runs it made.
v_loop() {
        user "$py" io_loop.py --rounds 1 --jobs "$jobs" --python "$py" \
                --problems code_eval_code_contests.jsonl --samples reference_solutions.jsonl |
                awk '/round 1:/ { print $8, $4 }'
}
sbx_suite() { # sbx_suite TIER MODE
        local t0 t1
        t0=$(date +%s.%N)
        user "$SBX_RUN" --tier "$1" "$2" --no-progress --suite codecontests \
                --problems code_eval_code_contests.jsonl --samples reference_solutions.jsonl \
                --all-tests --allow-partial -j "$jobs" --out results.jsonl > /dev/null
        t1=$(date +%s.%N)
        "$py" -c 'import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
print("%.3f %d" % (float(sys.argv[2]), sum(r["tests_run"] for r in rows)))' \
                "$work/results.jsonl" "$(echo "$t1 - $t0" | bc -l)"
        rm -f "$work/results.jsonl"
}
v_warm() { sbx_suite helper --warm; }
v_warm_bwrap() { sbx_suite bwrap --warm; }
v_cold() { sbx_suite helper --cold; }

echo "io-bench: $rounds rounds, -j$jobs, variants: $variants (load $(load))"
bench_rounds io-bench "$rounds" "$out" $variants
bench_summary io-bench "$out" $variants
# the goal: sbx warm, per test run, within 1.2x the bare loop
if [ -s "$out/loop" ] && [ -s "$out/warm" ]; then
        ratio=$(echo "$(cut -d' ' -f1 "$out/warm" | median) / $(cut -d' ' -f1 "$out/loop" | median)" | bc -l)
        printf 'io-bench: warm %.2f x the loop: goal <= %s %s\n' "$ratio" "$goal" \
                "$(echo "$ratio <= $goal" | bc -l | sed 's/1/met/; s/0/NOT met/')"
fi
