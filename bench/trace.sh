#!/bin/bash
# Where one `sbx-run --file trivial.py` spends its time, per tier: the
# median over RUNS runs of each SBX_TRACE=1 mark (ms since sbx-run started,
# and since the previous mark; "helper:" marks are the helper's own, on
# the same clock). docs/performance.md has these tables.
#   As root: sets up the test user and a temp root with a setuid helper
#   (tests/lib/setup-root.sh), measures as that user, removes the root.
#   RUNS=21 (default), BUILD, TIMERUN.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
. "$repo/bench/lib/setup.sh"
runs=${RUNS:-21}
bench_setup trace sbx-run
bench_work trace
tiers=$(as_bench_user / "$SBX_RUN" -q --probe --json | jq -r '.tiers[] | select(.works) | .tier')
echo "trace: $runs runs per tier, as $SBX_TEST_USER, $(nproc) cpus, load before $(cut -d' ' -f1-3 /proc/loadavg)"
for t in $tiers; do
        for _ in $(seq 1 "$runs"); do
                echo "RUN $t"
                as_bench_user / env SBX_TRACE=1 "$SBX_RUN" -q --tier "$t" --file "$work/trivial.py" \
                        2>&1 >/dev/null | grep ' trace ' || true
        done
done | "$py" -c '
import collections, statistics, sys
tiers = collections.OrderedDict()
for line in sys.stdin:
    f = line.split()
    if f[0] == "RUN":
        marks = tiers.setdefault(f[1], {})
        continue
    # "sbx-run:    trace T ms D ms  phase" / "sbx-helper: trace T ms  phase"
    phase = "helper: " + " ".join(f[4:]) if f[0] == "sbx-helper:" else " ".join(f[6:])
    marks.setdefault(phase, []).append(float(f[2]))
for tier, marks in tiers.items():
    print("\n%s tier: median ms since sbx-run started, and since the previous mark" % tier)
    print("| phase | ms | + ms |\n|---|---:|---:|")
    prev = 0.0
    for ms, phase in sorted((statistics.median(v), p) for p, v in marks.items()):
        print("| %s | %.3f | %+.3f |" % (phase, ms, ms - prev))
        prev = ms
'
echo "trace: load after $(cut -d' ' -f1-3 /proc/loadavg)"
