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
# MbppPlus-OriginFmt: MBPP's fields and "test", the base and plus inputs
# checked by asserts. --suite mbppplus scores it with "test" (a hard-coded
# answer to MBPP's four asserts passes those and fails here); any other
# built-in suite refuses it, naming mbppplus.
ORIG=$SBX_DATA/mbppplus/MbppPlus-OriginFmt.jsonl.gz
$HOST_PY - "$ORIG" "$D/orig.jsonl" "$D/orig-s.jsonl" "$D/base4.json" <<'PY'
import gzip, json, sys
keep = {2, 3, 88, 82}
with gzip.open(sys.argv[1], "rt") as f, open(sys.argv[2], "w") as out:
    P = [json.loads(l) for l in f]
    for p in P:
        if p["task_id"] in keep:
            out.write(json.dumps(p) + "\n")
hard = "def is_not_prime(n):\n    return n in (10, 35)\n"
with open(sys.argv[3], "w") as f:
    f.write(json.dumps({"task_id": 3, "completion": hard}) + "\n")
# the same task in MBPP's form: only its four asserts
p3 = [p for p in P if p["task_id"] == 3][0]
json.dump([{k: p3[k] for k in ("task_id", "prompt", "code", "test_imports", "test_list")}],
          open(sys.argv[4], "w"))
PY
chown -R "$SBX_TEST_USER:" "$D"
as_user "$SBX_RUN" --suite mbppplus --problems "$D/orig.jsonl" --canonical -j 2 --json \
        --out "$D/orig.r.jsonl" --no-progress > "$D/orig.json" 2> "$D/orig.err"
is "MbppPlus-OriginFmt under --suite mbppplus: runs to its end" "$?" 0
is "... its 4 references pass (Mbpp/82 needs its test_imports)" \
        "$(grep -c '"passed":true' "$D/orig.r.jsonl")" 4
is "... the default timeout is MBPP+ OriginFmt's 60 s" \
        "$($HOST_PY -c 'import json,sys; print(json.load(open(sys.argv[1]))["limits"]["timeout_s"])' "$D/orig.json")" 60
as_user "$SBX_RUN" --suite mbpp --problems "$D/base4.json" --samples "$D/orig-s.jsonl" \
        --out "$D/base4.r.jsonl" --no-progress > /dev/null 2>&1
is "a hard-coded is_not_prime passes MBPP's four asserts" "$(grep -c '"passed":true' "$D/base4.r.jsonl")" 1
as_user "$SBX_RUN" --suite mbppplus --problems "$D/orig.jsonl" --samples "$D/orig-s.jsonl" \
        --allow-partial --out "$D/hard.r.jsonl" --no-progress > /dev/null 2>&1
is "... and fails MBPP+ OriginFmt's plus asserts" "$(grep -c '"passed":false' "$D/hard.r.jsonl")" 1
as_user "$SBX_RUN" --suite mbpp --problems "$D/orig.jsonl" --canonical \
        --out "$D/x.jsonl" > /dev/null 2> "$D/e-orig.txt"
is "MbppPlus-OriginFmt under --suite mbpp: usage error" "$?" 2
check "... naming --suite mbppplus" grep -q 'run --suite mbppplus' "$D/e-orig.txt"
done_testing
