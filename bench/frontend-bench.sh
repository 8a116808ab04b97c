#!/bin/bash
# What sbx-run costs: median wall time of `sbx-run --file trivial.py` per
# tier against bare `python3 trivial.py` (whole processes, interleaved by
# timerun), and the frontend's own per-run cost over the tier it drives:
# the median of one run inside a session (`--repeat`: workdir, copy, argv,
# spawn, capture, reap, cleanup; no probing) minus the median of calling the
# same tier command directly (`--print-argv`). Target: under 1 ms.
#   As root: sets up the test user and a temp root with a setuid helper
#   (tests/lib/setup-root.sh), measures as that user, removes the root.
#   ROUNDS=100 (default), REPEAT=200, BUILD=build, TIMERUN=$BUILD/bench/timerun.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
. "$repo/bench/lib/setup.sh"
rounds=${ROUNDS:-100}
repeat=${REPEAT:-200}
target_ms=1.0
bench_setup frontend-bench sbx-run
work=$SBX_TEST_ROOT/share/bench
mkdir -p "$work/direct" && echo pass > "$work/trivial.py" && cp "$work/trivial.py" "$work/direct/program.py"
chown -R "$SBX_TEST_USER:" "$work"
chmod -R a+rX "$work"

user() { as_bench_user / "$@"; }

probe=$(user "$SBX_RUN" -q --probe --json)
tiers=$(jq -r '.tiers[] | select(.works) | .tier' <<<"$probe")
for t in helper bwrap; do
        grep -qx "$t" <<<"$tiers" || echo "frontend-bench: tier $t does not work here:" \
                "$(jq -r --arg t $t '.tiers[] | select(.tier == $t) | .why' <<<"$probe")" >&2
done

# 1. whole processes, round-robin: bare python vs sbx-run per tier
spec=$work/whole.spec
{
        printf 'bare\t%s\t-I\t-B\t%s\n' "$py" "$work/trivial.py"
        for t in $tiers; do
                printf 'sbx-run:%s\t%s\t-q\t--tier\t%s\t--file\t%s\n' "$t" "$SBX_RUN" "$t" "$work/trivial.py"
        done
} > "$spec"
chmod 0644 "$spec"
echo "frontend-bench: $rounds rounds, as $SBX_TEST_USER, $(uname -r), $(nproc) cpus, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "-- whole sbx-run processes (interpreter query, cached; the run, which is its tier's probe) vs bare python"
user "$SBX_TEST_ROOT/bin/timerun" "$rounds" "$spec"

# 2. the frontend's own per-run cost over each tier's command
echo "-- per run inside one session (--repeat $repeat) vs the tier command run directly"
status=0
for t in $tiers; do
        # the same argv, pointed at our own workdir; fds 3/4 (status pipe,
        # seccomp program) exist only inside sbx-run, so those options go
        argv=$(user "$SBX_RUN" -q --tier "$t" --print-argv --file "$work/trivial.py")
        wd=$(sed -n 's|^\(/.*\)/program.py$|\1|p' <<<"$argv" | tail -1)
        dspec=$work/direct-$t.spec
        { printf 'direct:%s' "$t"
          # the unshare tiers' start marker goes to fd 3, which only sbx-run opens
          sed -e "s|$wd|$work/direct|g" -e 's| >&3;| >/dev/null;|' <<<"$argv" | awk '
                skip { skip = 0; next }
                /^(--status-fd|--seccomp|--json-status-fd)$/ { skip = 1; next }
                { printf "\t%s", $0 }'
          printf '\n'; } > "$dspec"
        chmod 0644 "$dspec"
        direct=$(user "$SBX_TEST_ROOT/bin/timerun" "$rounds" "$dspec" | awk -v n="direct:$t" '$1 == n { print }')
        direct_ms=$(awk '{ print $2 }' <<<"$direct")   # timerun: name median_ms ...
        line=$(user "$SBX_RUN" -q --tier "$t" --repeat "$repeat" --file "$work/trivial.py" 2>&1 >/dev/null |
                grep 'runs, tier')
        per_run=$(sed -n 's/.*median \([0-9.]*\) ms.*/\1/p' <<<"$line")
        self_cpu=$(sed -n 's/.*own cpu \([0-9.]*\) ms.*/\1/p' <<<"$line")
        wall_diff=$(awk -v a="$per_run" -v b="$direct_ms" 'BEGIN { printf "%.3f", a - b }')
        # the wall difference is only meaningful on a quiet machine; the
        # frontend's own cpu is the verdict
        verdict=$(awk -v c="$self_cpu" -v t="$target_ms" 'BEGIN { print (c != "" && c < t) ? "ok" : "OVER" }')
        printf '%-13s per-run %8.3f ms  direct %8.3f ms  wall diff %8.3f ms  sbx-run own cpu %6.3f ms/run  [%s, target < %s ms]\n' \
                "$t" "$per_run" "$direct_ms" "$wall_diff" "$self_cpu" "$verdict" "$target_ms"
        [ "$verdict" = ok ] || status=1
done
exit $status
