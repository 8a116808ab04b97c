#!/bin/bash
# HumanEval+ (evalplus's native file) on the LDB StarCoder samples: sbx-run
# at -j2 beside evalplus's own `evalplus.evaluate --parallel 2` when an
# evalplus source tree is given (EVALPLUS_SRC; see bench/evalplus-compare.sh
# for what it needs on Debian). Each is run twice and the second run timed,
# so both read their ground truth from their caches. Prints base and
# base+plus pass@1 and the wall-time ratio. Runs as the invoking user.
#   BUILD=build, SBX_SHARED=../shared, EVALPLUS_SRC (optional), JOBS=2.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
suites=${SBX_SHARED:-$repo/../shared}/suites
samples=$suites/humaneval/model_samples/ldb_humaneval_seed_starcoder.jsonl
problems=$suites/humanevalplus/HumanEvalPlus.jsonl.gz
sbx=$repo/${BUILD:-build}/sbx-run
jobs=${JOBS:-2}
[ -r "$samples" ] && [ -r "$problems" ] || { echo "evalplus-bench: data missing (set SBX_SHARED)" >&2; exit 1; }
work=$(mktemp -d /tmp/evalplus-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT
cp "$samples" "$work/samples.jsonl"

now() { date +%s.%N; }
sbx_run() {
        SBX_CACHE=$work/cache "$sbx" --suite humanevalplus --problems "$problems" \
                --samples "$work/samples.jsonl" -j "$jobs" --no-progress --json \
                --out "$work/sbx.jsonl" > "$work/sbx.json"
}
sbx_run                                 # fills the ground-truth cache
t0=$(now); sbx_run; t1=$(now)
sbx_s=$(echo "$t1 - $t0" | bc)
/usr/bin/python3 - "$work/sbx.json" "$sbx_s" "$jobs" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))["evalplus"]
print("sbx-run -j%s: base pass@1 %.4f, base+plus pass@1 %.4f, %.1f s (ground truth cached)"
      % (sys.argv[3], s["base"]["pass@1"], s["plus"]["pass@1"], float(sys.argv[2])))
PY
if [ -z "${EVALPLUS_SRC:-}" ]; then
        echo "evalplus: not measured (set EVALPLUS_SRC to an evalplus source tree)"
        exit 0
fi
mkdir -p "$work/stubs" "$work/home"
echo 'def load_dataset(*a, **k): raise RuntimeError("stub")' > "$work/stubs/datasets.py"
: > "$work/stubs/wget.py"; : > "$work/stubs/tempdir.py"
echo 'def language(): raise RuntimeError("stub")' > "$work/stubs/tree_sitter_python.py"
printf 'class Language: pass\nclass Node: pass\nclass Parser: pass\n' > "$work/stubs/tree_sitter.py"
gzip -dc "$problems" > "$work/HumanEvalPlus.jsonl"
ep_run() {
        (cd "$work" && HOME=$work/home HUMANEVAL_OVERRIDE_PATH=$work/HumanEvalPlus.jsonl \
                PYTHONPATH=$EVALPLUS_SRC:$work/stubs /usr/bin/python3 -m evalplus.evaluate \
                --dataset humaneval --samples samples.jsonl --parallel "$jobs" \
                --i-just-wanna-run --output_file ep.json > ep.log 2>&1)
}
ep_run                                  # fills evalplus's ground-truth cache
t0=$(now); ep_run; t1=$(now)
ep_s=$(echo "$t1 - $t0" | bc)
/usr/bin/python3 - "$work/ep.json" "$ep_s" "$sbx_s" "$jobs" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))["pass_at_k"]
ep, sb = float(sys.argv[2]), float(sys.argv[3])
print("evalplus --parallel %s: base pass@1 %.4f, base+plus pass@1 %.4f, %.1f s"
      % (sys.argv[4], p["base"]["pass@1"], p["plus"]["pass@1"], ep))
print("ratio sbx-run / evalplus: %.2f" % (sb / ep))
PY
