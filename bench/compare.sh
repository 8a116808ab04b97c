#!/bin/bash
# Issue 17's comparison, in one interleaved run (timerun, round-robin, so
# drift hits all alike): `python3 -I -c pass` bare, under isolate (when
# ISOLATE names an installed one: ioi/isolate built from source, run
# without --cg in a box this script inits), bubblewrap with the helper's
# isolation and sbx-helper, as time added to bare; then whole
# `sbx-run -q --tier T --file trivial.py` processes per tier against a bare
# `python3 -I -B trivial.py`, as ratios. Goals: the helper adds at most
# what isolate adds; sbx-run --file <= 1.15x bare in the helper tier and
# <= 1.3x in the others. The load is printed before and after: on a busy
# machine the ratios are noise; the median CPU time of each (timerun's,
# the whole process tree's) is printed too, which load inflates far less.
#   As root: sets up the test user and a temp root with a setuid helper
#   (tests/lib/setup-root.sh), measures as that user, removes the root.
#   ROUNDS=80 (default), ISOLATE=/opt/isolate/isolate, BUILD, TIMERUN.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
. "$repo/bench/lib/setup.sh"
rounds=${ROUNDS:-80}
isolate=${ISOLATE:-}
if [ -n "$isolate" ] && [ ! -x "$isolate" ]; then
        echo "compare: ISOLATE=$isolate is not an executable" >&2
        exit 1
fi
bench_setup compare sbx-run
bench_work compare
user() { as_bench_user / "$@"; }

bench_isolate_box "$isolate"

# bwrap with what the helper gives (as helper-bench.sh)
bwrap_args=(/usr/bin/bwrap --unshare-all --die-with-parent --new-session
            --ro-bind /usr /usr --ro-bind /etc /etc)
for l in /bin /sbin /lib /lib32 /lib64 /libx32; do
        if [ -L "$l" ]; then bwrap_args+=(--symlink "$(readlink "$l")" "$l")
        elif [ -d "$l" ]; then bwrap_args+=(--ro-bind "$l" "$l"); fi
done
bwrap_args+=(--proc /proc --dev /dev --tmpfs /tmp --tmpfs "$home" --)

tiers=$(user "$SBX_RUN" -q --probe --json | jq -r '.tiers[] | select(.works) | .tier')
spec=$work/compare.spec
{
        printf 'bare\t%s\t-I\t-c\tpass\n' "$py"
        [ -z "$isolate" ] || printf 'isolate\t%s\t--box-id=%s\t--run\t--\t%s\t-I\t-c\tpass\n' \
                "$isolate" "$box" "$py"
        [ ! -x /usr/bin/bwrap ] ||
                (IFS=$'\t'; printf 'bwrap\t%s\t%s\t-I\t-c\tpass\n' "${bwrap_args[*]}" "$py")
        printf 'sbx-helper\t%s\t--workdir\t%s\t--timeout\t10\t--\t%s\t-I\t-c\tpass\n' \
                "$SBX_HELPER" "$work" "$py"
        printf 'bare-file\t%s\t-I\t-B\t%s\n' "$py" "$work/trivial.py"
        for t in $tiers; do
                printf 'sbx-run:%s\t%s\t-q\t--tier\t%s\t--file\t%s\n' "$t" "$SBX_RUN" "$t" "$work/trivial.py"
        done
} > "$spec"
chmod 0644 "$spec"
echo "compare: $rounds rounds, as $SBX_TEST_USER, $(uname -r), $(nproc) cpus, load before $(cut -d' ' -f1-3 /proc/loadavg)"
[ -n "$isolate" ] || echo "compare: ISOLATE not set: isolate is not measured (make bench ISOLATE=/path/to/isolate)"
# isolate says "OK (time)" on stderr after every run
out=$(user "$SBX_TEST_ROOT/bin/timerun" "$rounds" "$spec" 2> >(grep -v '^OK (' >&2))
echo "compare: load after $(cut -d' ' -f1-3 /proc/loadavg)"
if awk -v n="$(nproc)" '{ exit !($1 > n) }' /proc/loadavg; then
        echo "compare: WARNING: load above $(nproc) (the cpus): the medians below measure the scheduler, not sbx; no verdict holds"
fi
awk '
NR == 1 { next }
{ name[NR] = $1; med[$1] = $2; p90[$1] = $3; cpu[$1] = $7; order[++n] = $1 }
END {
        printf "%-20s %9s %9s %10s %8s %9s  %s\n", "variant", "median_ms", "p90_ms", "added_ms",
               "cpu_ms", "added_cpu", "ratio"
        for (i = 1; i <= n; i++) {
                v = order[i]
                base = (v ~ /^sbx-run:/ || v == "bare-file") ? "bare-file" : "bare"
                goal = v == "sbx-run:helper" ? 1.15 : v ~ /^sbx-run:/ ? 1.3 : 0
                verdict = goal ? sprintf("  (goal <= %.2f: %s)", goal,
                                         med[v] / med[base] <= goal ? "met" : "NOT met") : ""
                printf "%-20s %9.3f %9.3f %10.3f %8.3f %9.3f  %5.2fx %s%s\n", v, med[v], p90[v],
                       med[v] - med[base], cpu[v], cpu[v] - cpu[base], med[v] / med[base], base, verdict
        }
        if ("isolate" in med)
                printf "sbx-helper adds %.3f ms (%.3f ms CPU), isolate %.3f ms (%.3f ms CPU): %s\n",
                       med["sbx-helper"] - med["bare"], cpu["sbx-helper"] - cpu["bare"],
                       med["isolate"] - med["bare"], cpu["isolate"] - cpu["bare"],
                       med["sbx-helper"] <= med["isolate"] ? "goal met" : "goal NOT met"
}' <<<"$out"
