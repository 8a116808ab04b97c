#!/bin/bash
# Issue 18's first question, measured: what would a per-worker zygote with
# fresh namespaces per sample cost here? HumanEval canonical (164 programs,
# built as bench/suite-bench.sh builds them) at -j2, in one interleaved run
# (every round runs every variant; even rounds in reverse order):
#   floor     bench/lib/fork_floor.py: fork per program, no isolation
#   warm      bench/lib/warm_proto.py: per worker unshare(USER|NS) once; per
#             sample fork, unshare NS, IPC, UTS, PID, NET, fork pid 1, tmpfs
#             /tmp, run in-process
#   warm-nn   the same with one network namespace per worker
#   warm-proc warm plus a fresh /proc per sample (as the issue's design asks)
#   bare      ls programs/*.py | xargs -P2 -n1 timeout 3 python3 -I -B
#             (passed -1: some program failed; xargs does not say how many)
#   cold      sbx-run --suite humaneval --canonical -j2 (helper tier)
#   warm-sbx  sbx-run --suite humaneval --canonical -j2 --warm (helper tier:
#             the real zygote, docs/warm.md)
#   warm-bwrap the same in the bwrap tier (--tier bwrap --warm)
# Prints the load before and after every variant, the median walls and CPU
# times, the prototype's per-phase medians (median over rounds), and the
# ratios warm/floor (issue 18's goal: <= 2.5) and cold/warm, and for sbx's
# own warm runs warm-sbx/floor and warm-bwrap/floor (the goal: <= 2.5 in
# the helper and bwrap tiers) and cold/warm-sbx. A warm-sbx round whose
# summary does not say 164 warm counts as not passed (it fell back cold).
#   As root: sets up the test user and a temp root with the setuid helper
#   (tests/lib/setup-root.sh) and measures as that user.
#   ROUNDS=3 (default), BUILD=build, JOBS=2.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
. "$repo/bench/lib/setup.sh"
rounds=${ROUNDS:-3}
jobs=${JOBS:-2}
goal=2.5
bench_setup warm-bench sbx-run
work=$SBX_TEST_ROOT/share/warm-bench
humaneval_programs "$work"
install -m 0644 "$repo/bench/lib/fork_floor.py" "$repo/bench/lib/warm_proto.py" "$work/"
out=$(mktemp -d)
trap 'rm -rf "$out"; teardown_root' EXIT

user() { as_bench_user "$work" "$@"; }
now() { date +%s.%N; }
load() { cut -d' ' -f1 /proc/loadavg; }
median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR + 1) / 2)]}'; }
# run_variant NAME ROUND: the variant's "WALL PASSED", then the CPU seconds
# (user + system) of everything it ran and reaped, from the `times` of the
# subshell it runs in (a fresh fork: its children's times start at 0).
# Work the kernel defers to its own threads (a network namespace's
# teardown runs in a kworker) is not in it.
run_variant() {
        local f=$out/times.$BASHPID
        "v_$1" "$2"
        times > "$f" # not in a pipe: that would be another fork
        tail -1 "$f" | awk '{for (i = 1; i <= 2; i++) { split($i, t, "m"); c += t[1] * 60 + t[2] } print c}'
}

# Each variant prints "WALL PASSED" (passed: of the 164).
v_floor() {
        # $(...), not < <(...): the shell reaps it, so its CPU is counted.
        # shellcheck disable=SC2046 # "WALL FAILED", split on purpose
        set -- $(user sh -c "$py fork_floor.py $jobs programs/*.py")
        echo "$1 $((164 - $2))"
}
proto() { # proto ROUND NAME ARGS...
        local r=$1 n=$2; shift 2
        user sh -c "$py warm_proto.py --json $* $jobs programs/*.py" > "$out/$n.$r.json"
        "$py" -c 'import json,sys; d=json.load(open(sys.argv[1])); print("%.4f %d" % (d["wall"], d["passed"]))' \
                "$out/$n.$r.json"
}
v_warm() { proto "$1" warm --net=sample; }
v_warm_nn() { proto "$1" warm-nn --net=worker; }
v_warm_proc() { proto "$1" warm-proc --net=sample --proc; }
v_bare() {
        local t0 rc=0
        t0=$(now)
        # The loop suite-bench times; xargs exits 123 if any program failed.
        user sh -c "ls programs/*.py | xargs -P $jobs -n 1 timeout 3 $py -I -B > /dev/null" || rc=$?
        echo "$(echo "$(now) - $t0" | bc -l) $([ "$rc" -eq 0 ] && echo 164 || echo -1)"
}
v_cold() {
        local t0 passed
        t0=$(now)
        passed=$(user "$SBX_RUN" --suite humaneval --problems HumanEval.jsonl.gz --canonical -j "$jobs" \
                --out /tmp/sbx-warm-bench.$$.jsonl --no-progress --json |
                "$py" -c 'import json,sys; print(json.load(sys.stdin)["passed"])')
        echo "$(echo "$(now) - $t0" | bc -l) $passed"
}
# sbx_warm TIER: sbx-run --warm in TIER; "passed" is 0 unless all 164 ran warm
sbx_warm() {
        local t0 passed
        t0=$(now)
        passed=$(user "$SBX_RUN" --tier "$1" --suite humaneval --problems HumanEval.jsonl.gz --canonical \
                -j "$jobs" --warm --out /tmp/sbx-warm-bench.$$.jsonl --no-progress --json |
                "$py" -c 'import json,sys; s = json.load(sys.stdin); w = s.get("warm") or {}
print(s["passed"] if w.get("warm") == 164 else 0)') || true   # a tier that does not work: 0 passed
        echo "$(echo "$(now) - $t0" | bc -l) ${passed:-0}"
}
v_warm_sbx() { sbx_warm helper; }
v_warm_bwrap() { sbx_warm bwrap; }

echo "warm-bench: HumanEval canonical, -j$jobs, $rounds rounds, as $SBX_TEST_USER," \
        "$(nproc) cpus, $(uname -r), load $(cut -d' ' -f1-3 /proc/loadavg)"
tier=$(user "$SBX_RUN" --suite humaneval --problems HumanEval.jsonl.gz --canonical -j "$jobs" \
        --out /tmp/sbx-warm-bench.$$.jsonl --no-progress --json |
        "$py" -c 'import json,sys; s=json.load(sys.stdin); print(s["tier"])')
echo "warm-bench: sbx-run's tier: $tier"
variants=(floor warm warm_nn warm_proc bare cold warm_sbx warm_bwrap)
declare -A walls cpus passed
for r in $(seq 1 "$rounds"); do
        order=("${variants[@]}")
        if [ $((r % 2)) -eq 0 ]; then
                order=(); for ((i = ${#variants[@]} - 1; i >= 0; i--)); do order+=("${variants[i]}"); done
        fi
        for v in "${order[@]}"; do
                l0=$(load)
                { read -r w p; read -r c; } < <(run_variant "$v" "$r")
                printf 'warm-bench: round %d %-10s %6.2f s  cpu %6.2f s  passed %3d/164  load %s -> %s\n' \
                        "$r" "$v" "$w" "$c" "$p" "$l0" "$(load)"
                walls[$v]+="$w "; cpus[$v]+="$c "
                [ "$p" -eq 164 ] || passed[$v]+="round $r: $p "
        done
done
rm -f /tmp/sbx-warm-bench.$$.jsonl
declare -A med cmed
# shellcheck disable=SC2086 # the lists of times are split on purpose
for v in "${variants[@]}"; do
        med[$v]=$(printf '%s\n' ${walls[$v]} | median)
        cmed[$v]=$(printf '%s\n' ${cpus[$v]} | median)
done
"$py" - "$out" <<'PY'
import glob, json, statistics, sys
for n, what in (("warm", "per-sample NET"), ("warm-nn", "NET once per worker"),
                ("warm-proc", "per-sample NET and /proc")):
    runs = [json.load(open(f)) for f in sorted(glob.glob("%s/%s.*.json" % (sys.argv[1], n)))]
    print("warm-bench: prototype, %s: per-phase ms, median over rounds of (median, mean over samples)" % what)
    for ph in runs[0]["phases_ms"]:
        print("    %-16s %7.3f %7.3f" % (ph, statistics.median(r["phases_ms"][ph] for r in runs),
                                       statistics.median(r["means_ms"][ph] for r in runs)))
PY
echo "warm-bench: median of $rounds rounds, wall and cpu:"
for v in "${variants[@]}"; do
        printf '    %-10s %6.2f s  %6.2f s%s\n' "$v" "${med[$v]}" "${cmed[$v]}" \
                "${passed[$v]:+  (not 164: ${passed[$v]})}"
done
printf 'warm-bench: warm / floor = %.2f (goal <= %s), without per-sample NET %.2f, with /proc %.2f\n' \
        "$(echo "${med[warm]} / ${med[floor]}" | bc -l)" "$goal" \
        "$(echo "${med[warm_nn]} / ${med[floor]}" | bc -l)" "$(echo "${med[warm_proc]} / ${med[floor]}" | bc -l)"
printf 'warm-bench: cold / warm = %.2f, bare / warm = %.2f, cold / bare = %.2f\n' \
        "$(echo "${med[cold]} / ${med[warm]}" | bc -l)" "$(echo "${med[bare]} / ${med[warm]}" | bc -l)" \
        "$(echo "${med[cold]} / ${med[bare]}" | bc -l)"
printf 'warm-bench: sbx-run --warm: warm-sbx / floor = %.2f, warm-bwrap / floor = %.2f (goal <= %s), cold / warm-sbx = %.2f\n' \
        "$(echo "${med[warm_sbx]} / ${med[floor]}" | bc -l)" "$(echo "${med[warm_bwrap]} / ${med[floor]}" | bc -l)" \
        "$goal" "$(echo "${med[cold]} / ${med[warm_sbx]}" | bc -l)"
printf 'warm-bench: in cpu: warm / floor = %.2f, without per-sample NET %.2f, cold / warm = %.2f\n' \
        "$(echo "${cmed[warm]} / ${cmed[floor]}" | bc -l)" "$(echo "${cmed[warm_nn]} / ${cmed[floor]}" | bc -l)" \
        "$(echo "${cmed[cold]} / ${cmed[warm]}" | bc -l)"
echo "warm-bench: load at the end $(cut -d' ' -f1-3 /proc/loadavg)"
