#!/bin/bash
# HumanEval-X's canonical suites (issue 32): `sbx-run --suite humaneval-x-LANG`
# against the bare loop that compiles and runs the same programs with the
# same compilers, flags and environment, unsandboxed, at the same -j
# (bench/humanevalx-plain.py --mode sbx), interleaved language by language
# and round by round (even rounds run sbx first): the bare loop (its setup
# counted: Go's build cache warmed, Rust's crates built, as sbx's seeds
# are), sbx with a cold compile cache (a fresh SBX_CACHE: seeds and every
# compile), and sbx with that cache warm. Prints per language the wall
# seconds and the ratios (targets: cold within 1.10x of the bare loop,
# warm at most 0.5x for the compiled languages: JavaScript and Python
# compile nothing), the CPU seconds (user + system of every process, the
# sandboxes' included: a loaded machine inflates them far less than wall
# time), the compile and run seconds summed over the 164 programs and
# samples/s. Then the fidelity: the same failing task ids as the bare loop
# (Go/95 aside: Go's random map order decides it, upstream too), warm and
# -j1 the same verdicts as cold; exit 1 when they differ. A language whose
# toolchain is missing is skipped, saying so.
#   As root: sets up the test user and a temp root with the setuid helper
#   (tests/lib/setup-root.sh) and measures as that user. About 15 minutes
#   for the six languages on 2 loaded cores (C++, Java and Go take 3 each).
#   LANGS="cpp java js go rust python", JOBS=2, ROUNDS=1 (the median is
#   reported), TIER=helper, BUILD=build.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
. "$repo/bench/lib/setup.sh"
langs=${LANGS:-cpp java js go rust python}
jobs=${JOBS:-2}
rounds=${ROUNDS:-1}
tier=${TIER:-helper}
cold_goal=1.10
warm_goal=0.5
bench_setup humanevalx-bench sbx-run
bench_work humanevalx-bench
mkdir -p "$work/suites"
cp -r "$repo/suites/humaneval-x" "$work/suites/"
cp "$repo/bench/humanevalx-plain.py" "$work/"
chown -R "$SBX_TEST_USER:" "$work"
chmod -R a+rX "$work"

ratio() { echo "$1 / $2" | bc -l; }
# timed CMD...: runs CMD as the test user, sets wall_s and cpu_s (user +
# system of CMD and every descendant waited for: the sandboxes' processes
# are reaped by their init, the init by the helper, the helper by sbx-run).
timed() {
        as_bench_user "$work" "$py" -c '
import resource, subprocess, sys, time
t0 = time.monotonic()
rc = subprocess.call(sys.argv[2:])
r = resource.getrusage(resource.RUSAGE_CHILDREN)
open(sys.argv[1], "w").write("%.3f %.3f\n" % (time.monotonic() - t0, r.ru_utime + r.ru_stime))
sys.exit(rc)' "$work/times" "$@"
        read -r wall_s cpu_s < "$work/times"
}

# the tools a language needs, and their Debian package (GNUmakefile's DEB_LANG_DEPS)
tools() {
        case $1 in
        cpp) echo "g++:g++" ;; java) echo "javac:default-jdk-headless java:default-jdk-headless" ;;
        js) echo "node:nodejs" ;; go) echo "go:golang-go" ;; rust) echo "rustc:rustc cargo:cargo" ;;
        python) echo "python3:python3" ;;
        esac
}
missing() {
        local t
        [ -n "$(tools "$1")" ] || { echo "not one of HumanEval-X's languages"; return; }
        for t in $(tools "$1"); do
                PATH=/usr/local/bin:/usr/bin:/bin command -v "${t%%:*}" > /dev/null ||
                        { echo "no ${t%%:*} (apt-get install ${t#*:})"; return; }
        done
}

# bare LANG: the plain loop; its per-task lines in bare-LANG.jsonl
bare() {
        timed "$py" humanevalx-plain.py --mode sbx --languages "$1" -j "$jobs" \
                --suites "$work/suites/humaneval-x" --out "$work/bare-$1.jsonl" > "$work/bare-$1.txt"
}
# sbx LANG OUT JOBS CACHE: one canonical suite
sbx() {
        timed env SBX_SUITES_DIR="$work/suites" SBX_CACHE="$4" "$SBX_RUN" -q \
                --tier "$tier" --suite "humaneval-x-$1" --canonical -j "$3" --out "$2" --no-progress \
                --json > "$2.summary"
}
failing() {     # failing FILE: the failing ids, Go/95 aside
        jq -r 'select(.passed | not) | .task_id' "$1" | grep -vx Go/95 | sort | tr '\n' ' ' || true
}
verdicts() { jq -r 'select(.task_id != "Go/95") | [.task_id, .passed] | @tsv' "$1" | sort; }
sum() { jq -s "map($2 // 0) | add" "$1"; }
goal() {        # goal RATIO GOAL
        if [ "$(echo "$1 <= $2" | bc -l)" = 1 ]; then echo met; else echo "NOT met"; fi
}

echo "humanevalx-bench: -j$jobs, tier $tier, $rounds round(s), as $SBX_TEST_USER, $(nproc) cpus," \
        "load $(cut -d' ' -f1-3 /proc/loadavg)"
fidelity=0
table=$(mktemp)
trap 'rm -f "$table"; teardown_root' EXIT
for lang in $langs; do
        why=$(missing "$lang")
        if [ -n "$why" ]; then
                echo "humanevalx-bench: $lang skipped: $why" | tee -a "$table"
                continue
        fi
        BW=(); BC=(); CW=(); CC=(); WW=(); WC=(); S=()
        for r in $(seq 1 "$rounds"); do
                cache=$work/cache-$lang-$r
                if [ $((r % 2)) = 1 ]; then bare "$lang"; BW+=("$wall_s"); BC+=("$cpu_s"); fi
                sbx "$lang" "$work/cold-$lang.jsonl" "$jobs" "$cache"; CW+=("$wall_s"); CC+=("$cpu_s")
                sbx "$lang" "$work/warm-$lang.jsonl" "$jobs" "$cache"; WW+=("$wall_s"); WC+=("$cpu_s")
                if [ $((r % 2)) = 0 ]; then bare "$lang"; BW+=("$wall_s"); BC+=("$cpu_s"); fi
                S+=("$(awk '{ for (i = 1; i < NF; i++) if ($i == "setup") print $(i + 1) }' \
                        "$work/bare-$lang.txt")")
                echo "humanevalx-bench: $lang round $r: bare ${BW[-1]} s, cold ${CW[-1]} s," \
                        "warm ${WW[-1]} s (load $(cut -d' ' -f1 /proc/loadavg))"
        done
        bw=$(printf '%s\n' "${BW[@]}" | median); bc=$(printf '%s\n' "${BC[@]}" | median)
        cw=$(printf '%s\n' "${CW[@]}" | median); cc=$(printf '%s\n' "${CC[@]}" | median)
        ww=$(printf '%s\n' "${WW[@]}" | median); wc=$(printf '%s\n' "${WC[@]}" | median)
        s=$(printf '%s\n' "${S[@]}" | median)
        n=$(wc -l < "$work/cold-$lang.jsonl")
        case $lang in js|python) warm_met="n/a" ;; *) warm_met=$(goal "$(ratio "$ww" "$bw")" "$warm_goal") ;; esac
        printf '%-6s %7.2f %6.2f %7.2f %5.2fx %-7s %7.2f %5.2fx %-7s %7.1f %6.1f %5.2fx %5.1f %5.2fx %6.1f/%-6.1f %5.1f/%-5.1f %5.1f/%.1f/%.1f\n' \
                "$lang" "$bw" "$s" "$cw" "$(ratio "$cw" "$bw")" "$(goal "$(ratio "$cw" "$bw")" "$cold_goal")" \
                "$ww" "$(ratio "$ww" "$bw")" "$warm_met" \
                "$bc" "$cc" "$(ratio "$cc" "$bc")" "$wc" "$(ratio "$wc" "$bc")" \
                "$(sum "$work/bare-$lang.jsonl" .compile_s)" "$(sum "$work/cold-$lang.jsonl" .compile.duration)" \
                "$(sum "$work/bare-$lang.jsonl" .run_s)" "$(sum "$work/cold-$lang.jsonl" .duration)" \
                "$(ratio "$n" "$bw")" "$(ratio "$n" "$cw")" "$(ratio "$n" "$ww")" >> "$table"
        # fidelity: the bare loop's failing ids; warm and -j1 as cold
        fb=$(failing "$work/bare-$lang.jsonl"); fc=$(failing "$work/cold-$lang.jsonl")
        sbx "$lang" "$work/j1-$lang.jsonl" 1 "$work/cache-$lang-1"
        if [ "$fb" != "$fc" ]; then
                echo "  FIDELITY $lang: bare loop fails [${fb% }], sbx [${fc% }]" >> "$table"; fidelity=1
        elif [ "$(verdicts "$work/cold-$lang.jsonl")" != "$(verdicts "$work/warm-$lang.jsonl")" ] ||
             [ "$(verdicts "$work/cold-$lang.jsonl")" != "$(verdicts "$work/j1-$lang.jsonl")" ]; then
                echo "  FIDELITY $lang: cold, warm and -j1 verdicts differ" >> "$table"; fidelity=1
        else
                echo "  $lang: $(jq -s 'map(select(.passed)) | length' "$work/cold-$lang.jsonl")/$n passed," \
                        "failing [${fc% }] as the bare loop; warm and -j1 the same verdicts" >> "$table"
        fi
done
echo "humanevalx-bench: medians of $rounds round(s), load now $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-6s %7s %6s %7s %6s %-7s %7s %6s %-7s %7s %6s %6s %5s %6s %-13s %-11s %s\n' lang bare_s setup \
        cold_s ratio "(1.10)" warm_s ratio "(0.5)" bare_cpu cold_c ratio warm_c ratio "compile b/c" \
        "run b/c" "samples/s b/c/w"
cat "$table"
echo "humanevalx-bench: wall seconds; bare_s includes setup (Go's cache warmed, Rust's crates built)," \
        "cold_s sbx's seeds; *_cpu/_c: CPU seconds of all processes; compile and run: seconds summed" \
        "over the programs (bare loop / sbx cold)"
exit "$fidelity"
