#!/bin/bash
# The evalplus ground-truth cache: computed once and reused (an entry edited
# by hand changes the verdict: it was read, not recomputed), rebuilt when the
# problem file or the interpreter changes, whole under two runs at once,
# small (large values as digests); and the ground truth and the samples run
# in the helper tier under its ceilings.
. "$(dirname "$0")/../lib/lib.sh"
require_test_root
HEP=$SBX_DATA/humanevalplus/HumanEvalPlus.jsonl.gz
D=$(user_tmpdir)
export SBX_EXTRA_ENV="SBX_CACHE=$D/cache"

$HOST_PY - "$HEP" "$D/p.jsonl" <<'PY'
import gzip, json, sys
with gzip.open(sys.argv[1], "rt") as f, open(sys.argv[2], "w") as out:
    for line in f:
        if json.loads(line)["task_id"] in ("HumanEval/0", "HumanEval/2"):
            out.write(line)
PY
chown -R "$SBX_TEST_USER:" "$D"
entries() { ls "$1"/evalplus/*.json 2>/dev/null | wc -l; }
run() {         # run OUT [ARGS...]: the reference solutions; prints base/plus statuses
        local out=$1; shift
        as_user "$SBX_RUN" --suite humanevalplus --problems "$D/p.jsonl" --canonical -j 2 \
                --no-progress --out "$out" "$@" > "$out.txt" 2>&1 || return 1
        $HOST_PY -c 'import json,sys
print(" ".join(json.loads(l)["base_status"] + "/" + json.loads(l)["plus_status"] for l in open(sys.argv[1])))' "$out"
}

is "first run: the references pass" "$(run "$D/r1.jsonl")" "pass/pass pass/pass"
is "one cache entry" "$(entries "$D/cache")" 1
E=$(ls "$D"/cache/evalplus/*.json)
inode=$(stat -c %i "$E")
is "second run: the same verdicts" "$(run "$D/r2.jsonl")" "pass/pass pass/pass"
is "... from the same entry, not rewritten" "$(stat -c %i "$E")" "$inode"

# Edit the cached expected value of HumanEval/0's first base input: the
# reference now "fails" base, which only a reused entry can do.
cp "$E" "$D/saved.json"
$HOST_PY - "$E" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
v = d["tasks"]["HumanEval/0"]["base"]
v[0] = not v[0]
json.dump(d, open(sys.argv[1], "w"))
PY
is "an edited entry is what the run uses" "$(run "$D/r3.jsonl")" "fail/pass pass/pass"
cp "$D/saved.json" "$E"; chown "$SBX_TEST_USER:" "$E"

# Another file (a blank line more: the same tasks, another sha256).
echo >> "$D/p.jsonl"
is "a changed file: the references pass" "$(run "$D/r4.jsonl")" "pass/pass pass/pass"
is "... from a new entry" "$(entries "$D/cache")" 2

# Another interpreter path is another identity.
if [ -x /usr/bin/python3.11 ]; then
        is "--python /usr/bin/python3.11: the references pass" \
                "$(run "$D/r5.jsonl" --python /usr/bin/python3.11)" "pass/pass pass/pass"
        is "... from a new entry" "$(entries "$D/cache")" 3
else
        ok "# SKIP no /usr/bin/python3.11 to stand for another interpreter"
        ok "# SKIP no /usr/bin/python3.11 to stand for another interpreter"
fi

# Two runs at once on an empty cache: both finish, one whole entry, no
# temporary file left behind.
export SBX_EXTRA_ENV="SBX_CACHE=$D/cache2"
run "$D/c1.jsonl" > "$D/c1.v" & p1=$!
run "$D/c2.jsonl" > "$D/c2.v" & p2=$!
wait $p1; r1=$?; wait $p2; r2=$?
is "concurrent runs: the first exits 0" "$r1" 0
is "concurrent runs: the second exits 0" "$r2" 0
is "... same verdicts" "$(cat "$D/c1.v")|$(cat "$D/c2.v")" "pass/pass pass/pass|pass/pass pass/pass"
is "... one entry" "$(entries "$D/cache2")" 1
is "... no temporary file left" "$(ls "$D/cache2/evalplus" | grep -vc '\.json$')" 0
check "... the entry is whole JSON" $HOST_PY -c 'import json,sys,glob; json.load(open(glob.glob(sys.argv[1])[0]))' "$D/cache2/evalplus/*.json"
# The entry stays small: HumanEval/113's expected plus values are 410 KB
# of lists of strings, kept as digests of their canonical form. The
# reference passes against them; an answer that drops the last string of a
# list longer than 3 (the base inputs have at most 3) fails plus only; one
# that returns a tuple (never == a list) fails both.
$HOST_PY - "$HEP" "$D/p113.jsonl" "$D/s113.jsonl" <<'PY'
import gzip, json, sys
with gzip.open(sys.argv[1], "rt") as f, open(sys.argv[2], "w") as out:
    p = [json.loads(l) for l in f if '"HumanEval/113"' in l][0]
    out.write(json.dumps(p) + "\n")
ref = p["canonical_solution"]
S = [("ref", ref),
     ("long-wrong", ref.replace("return ans", "return ans if len(ans) <= 3 else ans[:-1]")),
     ("tuple", ref.replace("return ans", "return tuple(ans)"))]
with open(sys.argv[3], "w") as f:
    for name, code in S:
        f.write(json.dumps({"task_id": "HumanEval/113", "name": name, "completion": code}) + "\n")
PY
chown "$SBX_TEST_USER:" "$D/p113.jsonl" "$D/s113.jsonl"
export SBX_EXTRA_ENV="SBX_CACHE=$D/cache3"
as_user "$SBX_RUN" --suite humanevalplus --problems "$D/p113.jsonl" --samples "$D/s113.jsonl" \
        -j 2 --no-progress --out "$D/r113.jsonl" > "$D/r113.txt" 2>&1
is "HumanEval/113 against digests: runs to its end" "$?" 0
is "... the reference passes, the wrong ones fail plus" "$($HOST_PY -c 'import json,sys
R = sorted(map(json.loads, open(sys.argv[1])), key=lambda r: r["sbx_index"])
print(" ".join(r["name"] + ":" + r["base_status"] + "/" + r["plus_status"] for r in R))' "$D/r113.jsonl")" \
        "ref:pass/pass long-wrong:pass/fail tuple:fail/fail"
E113=$(ls "$D"/cache3/evalplus/*.json)
check "... its cache entry holds digests" grep -q '\["k","' "$E113"
size=$(stat -c %s "$E113")
# 983 plus inputs: about 80 bytes each (a digest and a time) is the floor
check "... and is under 100 KiB, a quarter of the values' 410 KB: $size bytes" test "$size" -lt 102400
# In the helper tier: evalplus's limits pass the admin's ceilings (the test
# root's helper.conf: max_cpu 60, max_timeout 120; the ground truth asks
# 600 s, a HumanEval+ sample about 125 s) and the helper refuses a run that
# asks more: such runs get the ceiling, said once, and the references pass
# (every run was refused before).
export SBX_EXTRA_ENV="SBX_CACHE=$D/cache4 SBX_HELPER=$SBX_HELPER"
as_user "$SBX_RUN" --suite humanevalplus --problems "$D/p.jsonl" --canonical -j 2 \
        --no-progress --out "$D/h.jsonl" > "$D/h.txt" 2>&1
is "the references' run in the helper tier: exit 0" "$?" 0
is "... both pass base and plus, in the helper tier" "$($HOST_PY -c 'import json,sys
print(" ".join("%s:%s/%s" % (r["tier"], r["base_status"], r["plus_status"])
               for r in sorted(map(json.loads, open(sys.argv[1])), key=lambda r: r["sbx_index"])))' "$D/h.jsonl")" \
        "helper:pass/pass helper:pass/pass"
check "... the ceilings are named once" test "$(grep -c "the helper's ceilings (timeout 120 s, cpu 60 s)" "$D/h.txt")" = 1
check "... nothing was refused by the helper" bash -c "! grep -q 'above the ceiling' '$D/h.jsonl' '$D/h.txt'"
done_testing
