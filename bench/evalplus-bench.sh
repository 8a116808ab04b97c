#!/bin/bash
# HumanEval+ (evalplus's native file, shipped) on the LDB StarCoder samples:
# sbx-run at -j2 beside evalplus's own `evalplus.evaluate --parallel 2` when
# an evalplus source tree is given (EVALPLUS_SRC; bench/evalplus-compare.sh
# says what it needs on Debian). Each is run twice and the second run timed,
# so both read their ground truth from their caches. Prints base and
# base+plus pass@1 and the wall-time ratio.
#   As root: sets up the test user and a temp root with the setuid helper
#   (tests/lib/setup-root.sh) and runs both as that user: both run the
#   model's code. Skips, saying why, where the samples (not shipped: from
#   SBX_TEST_DATA, default SBX_SHARED/suites, default ../shared/suites) or
#   evalplus are absent.
#   BUILD=build, EVALPLUS_SRC (optional), JOBS=2.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
. "$repo/bench/lib/setup.sh"
. "$repo/bench/lib/evalplus-stubs.sh"
suites=${SBX_TEST_DATA:-${SBX_SHARED:-$repo/../shared}/suites}
samples=$suites/humaneval/model_samples/ldb_humaneval_seed_starcoder.jsonl
problems=$repo/suites/humanevalplus/HumanEvalPlus.jsonl.gz
jobs=${JOBS:-2}
if [ ! -r "$samples" ]; then
        echo "evalplus-bench: skipped: $samples is not there (the LDB samples are not" \
             "shipped; set SBX_TEST_DATA to a suites directory holding model_samples/)"
        exit 0
fi
bench_setup evalplus-bench sbx-run
work=$SBX_TEST_ROOT/share/evalplus-bench
mkdir -p "$work"
cp "$samples" "$work/samples.jsonl"
cp "$problems" "$work/HumanEvalPlus.jsonl.gz"
gzip -dc "$problems" > "$work/HumanEvalPlus.jsonl"

user() { as_bench_user "$work" "$@"; }
now() { date +%s.%N; }
sbx_run() {
        user "$SBX_RUN" --suite humanevalplus --problems HumanEvalPlus.jsonl.gz \
                --samples samples.jsonl -j "$jobs" --no-progress --json \
                --out sbx.jsonl > "$work/sbx.json" 2> "$work/sbx.err" ||
                { echo "sbx-run failed:"; cat "$work/sbx.err"; exit 1; }
}
ep_run() {
        rm -f "$work/ep.json"           # evalplus asks before overwriting it
        user env HUMANEVAL_OVERRIDE_PATH="$work/HumanEvalPlus.jsonl" \
                PYTHONPATH="$work/evalplus-src:$work/stubs" "$py" -m evalplus.evaluate \
                --dataset humaneval --samples samples.jsonl --parallel "$jobs" \
                --i-just-wanna-run --output_file ep.json > "$work/ep.log" 2>&1 ||
                { echo "evalplus: its run failed; the end of its log:"; tail -5 "$work/ep.log"; exit 1; }
}
ep_available=
if [ -n "${EVALPLUS_SRC:-}" ] && [ -d "$EVALPLUS_SRC/evalplus" ]; then
        mkdir -p "$work/evalplus-src"
        cp -r "$EVALPLUS_SRC/evalplus" "$work/evalplus-src/"
        evalplus_stubs "$work/stubs"
        ep_available=1
fi
chown -R "$SBX_TEST_USER:" "$work"
chmod -R a+rX "$work"

sbx_run                                 # fills the ground-truth cache
t0=$(now); sbx_run; t1=$(now)
sbx_s=$(echo "$t1 - $t0" | bc)
sed 's/^/  /' "$work/sbx.err"          # the helper's ceilings, if below evalplus's limits
load=$(cut -d' ' -f1-3 /proc/loadavg)
"$py" - "$work/sbx.json" "$sbx_s" "$jobs" "$load" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))["evalplus"]
print("sbx-run -j%s: base pass@1 %.4f, base+plus pass@1 %.4f, %.1f s (ground truth cached; load %s)"
      % (sys.argv[3], s["base"]["pass@1"], s["plus"]["pass@1"], float(sys.argv[2]), sys.argv[4]))
PY
if [ -z "$ep_available" ]; then
        echo "evalplus: skipped: set EVALPLUS_SRC to an evalplus source tree" \
             "(git archive of github.com/evalplus/evalplus) to measure it beside sbx-run"
        exit 0
fi
if ! evalplus_imports_ok; then
        echo "evalplus: skipped: its imports are missing (Debian: apt-get install" \
             "$EVALPLUS_DEBIAN_PACKAGES)"
        exit 0
fi
ep_run                                  # fills evalplus's ground-truth cache
t0=$(now); ep_run; t1=$(now)
ep_s=$(echo "$t1 - $t0" | bc)
load=$(cut -d' ' -f1-3 /proc/loadavg)
"$py" - "$work/ep.json" "$ep_s" "$sbx_s" "$jobs" "$load" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))["pass_at_k"]
ep, sb = float(sys.argv[2]), float(sys.argv[3])
print("evalplus --parallel %s: base pass@1 %.4f, base+plus pass@1 %.4f, %.1f s (ground truth cached; load %s)"
      % (sys.argv[4], p["base"]["pass@1"], p["plus"]["pass@1"], ep, sys.argv[5]))
print("ratio sbx-run / evalplus wall time: %.2f" % (sb / ep))
PY
