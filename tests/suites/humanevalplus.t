#!/bin/bash
# HumanEval+ (OriginFmt, tests up to 500 KB, never on argv): the reference
# solutions pass 163/164 with a 20 s timeout (HumanEval/32 fails: a known
# data bug), and the verdicts are the same at -j1 and at -j4 on 2 cores,
# because the timeout is CPU time, not wall time.
. "$(dirname "$0")/../lib/lib.sh"
require_test_root
HEP=$SBX_DATA/humanevalplus/HumanEvalPlus-OriginFmt.jsonl.gz
D=$(user_tmpdir)

verdicts() {
        /usr/bin/python3 -c 'import json,sys
for l in open(sys.argv[1]):
    r = json.loads(l); print(r["task_id"], "passed" if r["passed"] else r["result"].split(":")[0])' "$1"
}

as_user "$SBX_RUN" --suite humanevalplus --problems "$HEP" --canonical --timeout 20 -j 4 \
        --out "$D/j4.jsonl" --no-progress > "$D/j4.txt" 2>&1
is "-j4: exits 0" "$?" 0
verdicts "$D/j4.jsonl" > "$D/j4.v"
is "-j4: 163/164 passed" "$(grep -c ' passed$' "$D/j4.v")" 163
is "-j4: the one failure is HumanEval/32" "$(grep -v ' passed$' "$D/j4.v")" "HumanEval/32 failed"

as_user "$SBX_RUN" --suite humanevalplus --problems "$HEP" --canonical --timeout 20 -j 1 \
        --out "$D/j1.jsonl" --no-progress > "$D/j1.txt" 2>&1
is "-j1: exits 0" "$?" 0
verdicts "$D/j1.jsonl" > "$D/j1.v"
if cmp -s "$D/j1.v" "$D/j4.v"; then ok "identical verdicts at -j1 and -j4"; else
        not_ok "identical verdicts at -j1 and -j4"; diag "$(diff "$D/j1.v" "$D/j4.v")"; fi
done_testing
