#!/bin/sh
# bench/evalplus-compare.sh SAMPLES.jsonl [JOBS...]: scores SAMPLES on
# HumanEval+ with evalplus's own `evalplus.evaluate` and with sbx-run at each
# -j given (default 1 4), and compares base_status and plus_status sample by
# sample (the n-th sample of a task against the n-th). Exit 0 when all agree.
#
# evalplus runs from a source tree, EVALPLUS_SRC (git archive of
# github.com/evalplus/evalplus; sbx's fetch gives one), on Debian's
# python3-numpy, -psutil, -termcolor, -tqdm, -fire, -rich, -appdirs, with
# stubs for what only its downloads and code generation import
# (bench/lib/evalplus-stubs.sh). Run it as an unprivileged user: both sides
# run the model's code (sbx-run refuses root).
# Environment: EVALPLUS_SRC, SBX_RUN (default build/sbx-run), SUITES
# (default ../shared/suites), EVALPLUS_PARALLEL (default 2), WORK (a scratch
# dir; an evalplus.json already there for these samples is reused, so that
# evalplus runs once for several sbx -j).
set -eu
. "$(dirname "$0")/lib/evalplus-stubs.sh"
SAMPLES=$(realpath "$1"); shift
JOBS=${*:-1 4}
: "${EVALPLUS_SRC:?set EVALPLUS_SRC to an evalplus source tree}"
SBX_RUN=$(realpath "${SBX_RUN:-build/sbx-run}")
SUITES=${SUITES:-../shared/suites}
WORK=${WORK:-$(mktemp -d /tmp/evalplus-compare.XXXXXX)}
PY=/usr/bin/python3
mkdir -p "$WORK/home"
evalplus_stubs "$WORK/stubs"
gzip -dc "$SUITES/humanevalplus/HumanEvalPlus.jsonl.gz" > "$WORK/HumanEvalPlus.jsonl"
if ! cmp -s "$SAMPLES" "$WORK/samples.jsonl"; then
        cp "$SAMPLES" "$WORK/samples.jsonl"
        rm -f "$WORK/evalplus.json"
fi

if [ -s "$WORK/evalplus.json" ]; then
        echo "evalplus.evaluate: reusing $WORK/evalplus.json"
else
        start=$(date +%s)
        (cd "$WORK" && HOME="$WORK/home" HUMANEVAL_OVERRIDE_PATH="$WORK/HumanEvalPlus.jsonl" \
                PYTHONPATH="$EVALPLUS_SRC:$WORK/stubs" $PY -m evalplus.evaluate --dataset humaneval \
                --samples samples.jsonl --parallel "${EVALPLUS_PARALLEL:-2}" --i-just-wanna-run \
                --output_file evalplus.json > evalplus.log 2>&1)
        echo "evalplus.evaluate --parallel ${EVALPLUS_PARALLEL:-2}: $(( $(date +%s) - start )) s" \
             "(ground truth included; load $(cut -d' ' -f1-3 /proc/loadavg))"
fi

rc=0
for j in $JOBS; do
        start=$(date +%s)
        "$SBX_RUN" --suite humanevalplus --problems "$SUITES/humanevalplus/HumanEvalPlus.jsonl.gz" \
                --samples "$WORK/samples.jsonl" -j "$j" --no-progress --out "$WORK/sbx-j$j.jsonl" \
                > "$WORK/sbx-j$j.log" 2>&1
        echo "sbx-run -j $j: $(( $(date +%s) - start )) s (load $(cut -d' ' -f1-3 /proc/loadavg))"
        $PY - "$WORK/evalplus.json" "$WORK/sbx-j$j.jsonl" "$j" <<'PY' || rc=1
import json, sys
from collections import defaultdict
ep = json.load(open(sys.argv[1]))["eval"]
seen, mism, n = defaultdict(int), [], 0
for line in open(sys.argv[2]):
    r = json.loads(line)
    t = r["task_id"]
    e = ep[t][seen[t]]
    seen[t] += 1
    n += 1
    if (e["base_status"], e["plus_status"]) != (r["base_status"], r["plus_status"]):
        mism.append((t, seen[t] - 1, e["base_status"], e["plus_status"],
                     r["base_status"], r["plus_status"], r["result"][:120]))
base = lambda rs: sum(x == "pass" for x in rs)
print("-j%s: %d samples, %d differ; evalplus base %d plus %d, sbx base %d plus %d" % (
    sys.argv[3], n, len(mism),
    sum(e["base_status"] == "pass" for v in ep.values() for e in v),
    sum(e["base_status"] == "pass" and e["plus_status"] == "pass" for v in ep.values() for e in v),
    sum(json.loads(l)["base_status"] == "pass" for l in open(sys.argv[2])),
    sum(json.loads(l)["passed"] for l in open(sys.argv[2]))))
for m in mism:
    print("  %s #%d: evalplus %s/%s, sbx %s/%s (%s)" % m)
sys.exit(1 if mism else 0)
PY
done
echo "work files in $WORK"
exit $rc
