#!/bin/bash
# The Python face (issue 16) on the 164 HumanEval canonical programs, in one
# run, interleaved round by round: Sandbox.run from a pool of 2 threads (one
# sbx-run --serve), sbx-run --suite -j2, and 164 sbx-run --file processes
# (xargs -P2). Prints the median wall times and the throughput ratios
# (goal: Sandbox.run >= 0.9x --suite's throughput, well ahead of --file).
#   As root: sets up the test user and a temp root with the setuid helper
#   (tests/lib/setup-root.sh) and measures as that user.
#   ROUNDS=3 (default; the median is reported), BUILD=build, JOBS=2.
#   HumanEval from suites/humaneval/ in the repo, else $SBX_SHARED/suites.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
. "$repo/bench/lib/setup.sh"
rounds=${ROUNDS:-3}
jobs=${JOBS:-2}
data=
for d in "$repo/suites/humaneval" "${SBX_SHARED:-$repo/../shared}/suites/humaneval"; do
        for f in HumanEval.jsonl.gz HumanEval.jsonl; do
                [ -z "$data" ] && [ -r "$d/$f" ] && data=$d/$f
        done
done
[ -n "$data" ] || { echo "python-bench: no HumanEval (suites/humaneval or set SBX_SHARED)" >&2; exit 1; }
bench_setup python-bench sbx-run
work=$SBX_TEST_ROOT/share/python-bench
mkdir -p "$work/programs"
problems=problems.jsonl
case $data in *.gz) problems=problems.jsonl.gz ;; esac
cp "$data" "$work/$problems"
cp -a "$repo/python" "$work/python"
rm -rf "$work/python/sbx/__pycache__"
# The programs --suite builds for human-eval (prompt + solution + test + check).
"$py" - "$work/$problems" "$work/programs" <<'PY'
import gzip, json, os, sys
op = gzip.open if sys.argv[1].endswith(".gz") else open
for i, l in enumerate(op(sys.argv[1], "rt")):
    p = json.loads(l)
    prog = p["prompt"] + p["canonical_solution"] + "\n" + p["test"] + "\n" + "check(" + p["entry_point"] + ")\n"
    open(os.path.join(sys.argv[2], "p%03d.py" % i), "w").write(prog)
PY
cat > "$work/pool.py" <<'PY'
import glob, sys, time
from concurrent.futures import ThreadPoolExecutor
sys.path.insert(0, "python")
import sbx
jobs = int(sys.argv[1])
progs = [open(p).read() for p in sorted(glob.glob("programs/*.py"))]
with sbx.Sandbox("bench", cache_root="cache", jobs=jobs) as sb:
    sb.ensure(quiet=True)               # venv and probe: not timed
    t0 = time.monotonic()
    with ThreadPoolExecutor(jobs) as pool:
        results = list(pool.map(lambda c: sb.run(c, timeout=10), progs))
    wall = time.monotonic() - t0
print("%.4f %d %s" % (wall, sum(r.passed for r in results), sb.isolation))
PY
chown -R "$SBX_TEST_USER:" "$work"
chmod -R a+rX "$work"

user() { as_bench_user "$work" "$@"; }
now() { date +%s.%N; }

pool_run() { user env SBX_RUN="$SBX_RUN" "$py" pool.py "$jobs"; }
suite_run() {
        user "$SBX_RUN" --suite humaneval --problems "$problems" --canonical -j "$jobs" --cold \
                --out suite_results.jsonl --no-progress --json > /dev/null
}
file_runs() {
        user sh -c "ls programs/*.py | xargs -P $jobs -n 1 $SBX_RUN --quiet --timeout 10 --file > /dev/null"
}
echo "python-bench: HumanEval canonical (164), -j$jobs, $rounds rounds interleaved, as" \
        "$SBX_TEST_USER, $(nproc) cpus, load $(cut -d' ' -f1-3 /proc/loadavg)"
pool=(); suite=(); file=()
for _ in $(seq 1 "$rounds"); do
        read -r w passed tier < <(pool_run); pool+=("$w")
        t0=$(now); suite_run; suite+=("$(echo "$(now) - $t0" | bc -l)")
        t0=$(now); file_runs || true; file+=("$(echo "$(now) - $t0" | bc -l)")
done
p=$(printf '%s\n' "${pool[@]}" | median)
s=$(printf '%s\n' "${suite[@]}" | median)
f=$(printf '%s\n' "${file[@]}" | median)
printf 'python-bench: Sandbox.run, pool of %s threads: %6.2f s  (%s passed, tier %s)\n' "$jobs" "$p" "$passed" "$tier"
printf 'python-bench: sbx-run --suite -j%s:            %6.2f s\n' "$jobs" "$s"
printf 'python-bench: 164 sbx-run --file (xargs -P%s):  %6.2f s\n' "$jobs" "$f"
printf 'python-bench: throughput Sandbox.run / --suite = %.2fx (goal >= 0.9x)\n' "$(echo "$s / $p" | bc -l)"
printf 'python-bench: throughput Sandbox.run / --file  = %.2fx\n' "$(echo "$f / $p" | bc -l)"
