#!/bin/bash
# MBPP+ (evalplus's native MbppPlus.jsonl.gz) on tasks with special rules:
# set equality (Mbpp/2), a Counter (Mbpp/88), the padded digit distance
# (Mbpp/558), the recomputed surface (Mbpp/581), "returned not None"
# (Mbpp/737). The references pass base and plus; answers the oracles accept
# pass; wrong ones fail. And sanitized MBPP's test_imports are part of the
# program: its references that need `math` pass.
. "$(dirname "$0")/../lib/lib.sh"
require_test_root
MPP=$SBX_DATA/mbppplus/MbppPlus.jsonl.gz
SAN=$SBX_DATA/mbpp/sanitized-mbpp.json
D=$(user_tmpdir)
export SBX_EXTRA_ENV="SBX_CACHE=$D/cache"

$HOST_PY - "$MPP" "$D/p.jsonl" "$D/s.jsonl" <<'PY'
import gzip, json, sys
keep = {"Mbpp/2", "Mbpp/88", "Mbpp/558", "Mbpp/581", "Mbpp/737"}
P = {}
with gzip.open(sys.argv[1], "rt") as f, open(sys.argv[2], "w") as out:
    for line in f:
        p = json.loads(line)
        if p["task_id"] in keep:
            out.write(line)
            P[p["task_id"]] = p
S = [(t, "ref", P[t]["canonical_solution"]) for t in sorted(keep)]
S += [
  ("Mbpp/2", "set-order", "def similar_elements(a, b):\n    return tuple(sorted(set(a) & set(b), reverse=True))\n"),
  ("Mbpp/2", "set-wrong", "def similar_elements(a, b):\n    return tuple(set(a) | set(b))\n"),
  ("Mbpp/88", "plain-dict", "def freq_count(l):\n    d = {}\n    for x in l:\n        d[x] = d.get(x, 0) + 1\n    return d\n"),
  ("Mbpp/737", "match-object", "import re\ndef check_str(s):\n    return re.search(r'^[aeiouAEIOU][A-Za-z0-9_]*', s)\n"),
  ("Mbpp/737", "always-none", "def check_str(s):\n    return None\n"),
]
with open(sys.argv[3], "w") as f:
    for tid, name, code in S:
        f.write(json.dumps({"task_id": tid, "name": name, "solution": code}) + "\n")
PY
chown -R "$SBX_TEST_USER:" "$D"

as_user "$SBX_RUN" --suite mbppplus --problems "$D/p.jsonl" --samples "$D/s.jsonl" -j 2 \
        --out "$D/r.jsonl" --no-progress > "$D/out.txt" 2>&1
is "runs to its end" "$?" 0
status() {
        $HOST_PY -c 'import json,sys
for l in open(sys.argv[1]):
    r = json.loads(l)
    if (r["task_id"], r["name"]) == (sys.argv[2], sys.argv[3]): print(r["base_status"], r["plus_status"])' "$D/r.jsonl" "$1" "$2"
}
for t in Mbpp/2 Mbpp/88 Mbpp/558 Mbpp/581 Mbpp/737; do
        is "$t: the reference passes base and plus" "$(status $t ref)" "pass pass"
done
is "Mbpp/2: another order passes (set equality)" "$(status Mbpp/2 set-order)" "pass pass"
is "Mbpp/2: other elements fail" "$(status Mbpp/2 set-wrong)" "fail fail"
is "Mbpp/88: a dict equals the reference's Counter" "$(status Mbpp/88 plain-dict)" "pass pass"
is "Mbpp/737: a match object passes (not None)" "$(status Mbpp/737 match-object)" "pass pass"
is "Mbpp/737: always None fails" "$(status Mbpp/737 always-none)" "fail fail"

# Sanitized MBPP: the references of the tasks with test_imports.
$HOST_PY - "$SAN" "$D/san.json" <<'PY'
import json, sys
d = [t for t in json.load(open(sys.argv[1])) if t.get("test_imports")]
json.dump(d, open(sys.argv[2], "w"))

PY
chown "$SBX_TEST_USER:" "$D/san.json"
n=$($HOST_PY -c 'import json,sys; print(len(json.load(open(sys.argv[1]))))' "$D/san.json")
as_user "$SBX_RUN" --suite mbpp --problems "$D/san.json" --canonical -j 2 \
        --out "$D/san.jsonl" --no-progress > "$D/san.txt" 2>&1
is "sanitized MBPP with test_imports: runs to its end" "$?" 0
is "... all $n references pass" "$(grep -c '"passed":true' "$D/san.jsonl")" "$n"
check "... none fails on a missing import" bash -c "! grep -q 'is not defined' '$D/san.jsonl'"
done_testing
