#!/bin/bash
# ClassEval scored by its own rules: the reference solutions (>= 89/100
# with Debian's python3 packages), GPT-4-Turbo's greedy outputs against the
# published class_success 0.38 and fun_success 0.675 (+-0.02). ClassEval
# is not shipped (CC BY-NC): it comes from $SBX_TEST_DATA (make check-full).
# Hostile samples on a task of our own: classeval_hostile.t.
. "$(dirname "$0")/../lib/lib.sh"
require_test_root
CE=$SBX_DATA/classeval
require_data "$CE/ClassEval_data.json" "$CE/model_outputs/GPT-4-Turbo_class_H_greedy.json"
D=$(user_tmpdir)
metric() {
        /usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["classeval"]["pass@1"][sys.argv[2]])' "$1" "$2"
}
within() { /usr/bin/python3 -c 'import sys; print(abs(float(sys.argv[1]) - float(sys.argv[2])) <= 0.02 + 1e-9)' "$1" "$2"; }

as_user "$SBX_RUN" --suite classeval --problems "$CE/ClassEval_data.json" --canonical --k 1 \
        --out "$D/canonical.jsonl" --json --no-progress > "$D/canonical.json" 2> "$D/canonical.err"
is "canonical: exits 0" "$?" 0
passed=$(/usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["passed"])' "$D/canonical.json")
if [ "${passed:-0}" -ge 89 ]; then ok "canonical: $passed/100 classes pass (>= 89)"; else
        not_ok "canonical: $passed/100 classes pass (>= 89)"; diag "$(cat "$D/canonical.err")"; fi
is "ClassEval_97's test class names are stripped (its ' ' prefix upstream)" \
        "$(/usr/bin/python3 -c 'import json,sys
for l in open(sys.argv[1]):
    r = json.loads(l)
    if r["task_id"] == "ClassEval_97":
        print(all(k == k.strip() for k in r["test_classes"]))' "$D/canonical.jsonl")" True

as_user "$SBX_RUN" --suite classeval --problems "$CE/ClassEval_data.json" \
        --samples "$CE/model_outputs/GPT-4-Turbo_class_H_greedy.json" --k 1 \
        --out "$D/gpt4.jsonl" --json --no-progress > "$D/gpt4.json" 2> "$D/gpt4.err"
is "GPT-4-Turbo greedy: exits 0" "$?" 0
cs=$(metric "$D/gpt4.json" class_success); fs=$(metric "$D/gpt4.json" fun_success)
is "GPT-4-Turbo: class_success $cs within 0.02 of the published 0.38" "$(within "$cs" 0.38)" True
is "GPT-4-Turbo: fun_success $fs within 0.02 of the published 0.675" "$(within "$fs" 0.6752988047808764)" True

done_testing
