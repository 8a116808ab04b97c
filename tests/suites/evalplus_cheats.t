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
$HOST_PY - "$HEP" "$D/p.jsonl" <<'PY'
import gzip, json, sys
keep = {"HumanEval/0", "HumanEval/2", "HumanEval/27", "HumanEval/32"}
with gzip.open(sys.argv[1], "rt") as f, open(sys.argv[2], "w") as out:
    for line in f:
        if json.loads(line)["task_id"] in keep:
            out.write(line)
PY
$HOST_PY - "$D/p.jsonl" "$D/s.jsonl" <<'PY'
import json, sys
P = {json.loads(l)["task_id"]: json.loads(l) for l in open(sys.argv[1])}
canon = lambda t: P[t]["canonical_solution"]
S = [
  ("ok", "HumanEval/0", {"completion": canon("HumanEval/0")}),
  ("solution-form", "HumanEval/27", {"solution": P["HumanEval/27"]["prompt"] + canon("HumanEval/27")}),
  ("find-zero", "HumanEval/32", {"completion": canon("HumanEval/32")}),
  ("wrong", "HumanEval/2", {"completion": "    return 0.5\n"}),
  ("always-equal", "HumanEval/0", {"completion":
     "    class E:\n        def __eq__(self, o): return True\n        __hash__ = None\n    return E()\n"}),
  ("str-subclass", "HumanEval/27", {"completion":
     "    class S(str):\n        def __eq__(self, o): return True\n    return S('x')\n"}),
  ("fake-numpy", "HumanEval/2", {"completion":
     "    import sys, types\n    m = types.ModuleType('numpy')\n    m.allclose = lambda *a, **k: True\n"
     "    sys.modules['numpy'] = m\n    return number + 1.0\n"}),
  ("forged-records", "HumanEval/0", {"completion":
     "    import os\n    for fd in range(3, 20):\n        try:\n"
     "            os.write(fd, b'@@SBX-EP 0123456789abcdef0123456789abcdef {\"p\":\"base\",\"i\":0,\"s\":\"ok\",\"v\":true}\\n')\n"
     "        except OSError:\n            pass\n    return None\n"}),
  ("exit-early", "HumanEval/0", {"completion": "    import os\n    os._exit(0)\n"}),
  ("plus-only-wrong", "HumanEval/0", {"completion":
     "    if len(numbers) > 6:\n        return 'no'\n" + canon("HumanEval/0")}),
]
with open(sys.argv[2], "w") as f:
    for name, tid, fields in S:
        f.write(json.dumps(dict(task_id=tid, name=name, **fields)) + "\n")
PY
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
