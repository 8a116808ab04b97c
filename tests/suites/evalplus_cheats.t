#!/bin/bash
# evalplus's native HumanEval+ (base_input/plus_input, no expected outputs):
# base_status and plus_status as evalplus gives them, and the values judged
# outside the candidate's process, so that the cheats that pass evalplus's
# own in-process `==` fail here: an always-equal object, a str subclass with
# its own __eq__, a fake numpy.allclose, forged driver records.
. "$(dirname "$0")/../lib/lib.sh"
require_test_root
HEP=$SBX_DATA/humanevalplus/HumanEvalPlus.jsonl.gz
D=$(user_tmpdir)
export SBX_EXTRA_ENV="SBX_CACHE=$D/cache"

# Four tasks: 0 (bool), 2 (float), 27 (str), 32 (find_zero's oracle).
. "$(dirname "$0")/../lib/cheats.sh"
evalplus_cheat_problems "$HEP" "$D/p.jsonl"
evalplus_cheat_samples "$D/p.jsonl" "$D/s.jsonl"
chown -R "$SBX_TEST_USER:" "$D"

as_user "$SBX_RUN" --suite humanevalplus --problems "$D/p.jsonl" --samples "$D/s.jsonl" \
        -j 2 --out "$D/r.jsonl" --no-progress > "$D/out.txt" 2> "$D/err.txt"
is "runs to its end" "$?" 0
status() {
        $HOST_PY -c 'import json,sys
for l in open(sys.argv[1]):
    r = json.loads(l)
    if r["name"] == sys.argv[2]: print(r["base_status"], r["plus_status"], r["passed"])' "$D/r.jsonl" "$1"
}
is "the reference passes base and plus" "$(status ok)" "pass pass True"
is "a \"solution\" (whole program) passes" "$(status solution-form)" "pass pass True"
is "find_zero's oracle: |poly(x)| <= atol" "$(status find-zero)" "pass pass True"
is "a wrong value fails" "$(status wrong)" "fail fail False"
is "an always-equal object fails" "$(status always-equal)" "fail fail False"
is "a str subclass with __eq__ fails" "$(status str-subclass)" "fail fail False"
is "a fake numpy.allclose changes nothing" "$(status fake-numpy)" "fail fail False"
is "forged driver records are ignored" "$(status forged-records)" "fail fail False"
is "leaving mid-phase is evalplus's timeout" "$(status exit-early)" "timeout timeout False"
is "plus inputs catch what base does not" "$(status plus-only-wrong)" "pass fail False"
check "the always-equal failure names the type" grep -q 'unsupported return type E' "$D/r.jsonl"
check "the summary gives base and base+plus" grep -q 'base' "$D/out.txt"

# A file given to the wrong suite is an error naming the one to run.
as_user "$SBX_RUN" --suite humaneval --problems "$HEP" --samples "$D/s.jsonl" \
        --out "$D/x.jsonl" > /dev/null 2> "$D/e1.txt"
is "HumanEvalPlus.jsonl.gz under --suite humaneval: usage error" "$?" 2
check "... naming --suite humanevalplus" grep -q 'run --suite humanevalplus' "$D/e1.txt"
as_user "$SBX_RUN" --suite mbpp --problems "$SBX_DATA/mbppplus/MbppPlus.jsonl.gz" --canonical \
        --out "$D/x.jsonl" > /dev/null 2> "$D/e2.txt"
is "MbppPlus.jsonl.gz under --suite mbpp: usage error" "$?" 2
check "... naming --suite mbppplus" grep -q 'run --suite mbppplus' "$D/e2.txt"
as_user "$SBX_RUN" --suite humanevalplus --problems "$SBX_DATA/mbppplus/MbppPlus.jsonl.gz" \
        --canonical --out "$D/x.jsonl" > /dev/null 2> "$D/e3.txt"
is "MbppPlus.jsonl.gz under --suite humanevalplus: usage error" "$?" 2
check "... naming --suite mbppplus" grep -q 'run --suite mbppplus' "$D/e3.txt"
as_user "$SBX_RUN" --suite mbppplus --problems "$SBX_DATA/humaneval/HumanEval.jsonl.gz" \
        --canonical --out "$D/x.jsonl" > /dev/null 2> "$D/e4.txt"
is "HumanEval.jsonl.gz under --suite mbppplus: usage error" "$?" 2
check "... saying it is not MbppPlus" grep -q 'not evalplus.s MbppPlus' "$D/e4.txt"
done_testing
