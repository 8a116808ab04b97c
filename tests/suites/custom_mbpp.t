#!/bin/bash
# A custom suite file (template, timeout, canonical field) and the MBPP
# program form, on small problem files written here.
. "$(dirname "$0")/../lib/lib.sh"
require_test_root
D=$(user_tmpdir)

/usr/bin/python3 - "$D" <<'PY'
import json, os, sys
d = sys.argv[1]
probs = [
    {"task_id": "sq/0", "signature": "def square(x):", "tests": ["assert square(2) == 4", "assert square(-3) == 9"],
     "reference": "    return x * x"},
    {"task_id": "sq/1", "signature": "def cube(x):", "tests": ["assert cube(2) == 8"],
     "reference": "    return x ** 3"},
]
with open(os.path.join(d, "problems.jsonl"), "w") as f:
    for p in probs:
        f.write(json.dumps(p) + "\n")
suite = {"problems": "problems.jsonl", "canonical_field": "reference", "timeout": 2,
         "template": "{signature}\n{completion}\n\nchecks = {'n': 0}\n{tests}\nprint(f\"ok {checks['n']}\")\n"}
json.dump(suite, open(os.path.join(d, "suite.json"), "w"))
with open(os.path.join(d, "samples.jsonl"), "w") as f:
    for tid, c in (("sq/0", "    return x * x"), ("sq/0", "    return x + x"),
                   ("sq/1", "    return x * x * x"), ("sq/1", "    while True:\n        pass")):
        f.write(json.dumps({"task_id": tid, "completion": c}) + "\n")
mbpp = [{"task_id": 2, "text": "Add two numbers.", "code": "def add(a, b):\n    return a + b",
         "test_setup_code": "OFFSET = 0", "test_list": ["assert add(1, 2) == 3 + OFFSET", "assert add(0, 0) == 0"],
         "challenge_test_list": []}]
with open(os.path.join(d, "mbpp.jsonl"), "w") as f:
    for p in mbpp:
        f.write(json.dumps(p) + "\n")
with open(os.path.join(d, "mbpp_samples.jsonl"), "w") as f:
    for c in ("def add(a, b):\n    return a + b", "def add(a, b):\n    return a - b",
              "def add(a, b):\n    return a + b + OFFSET"):
        f.write(json.dumps({"task_id": 2, "completion": c}) + "\n")
PY
chown -R "$SBX_TEST_USER:" "$D"
results() {
        /usr/bin/python3 -c 'import json,sys; print(" ".join(("P" if json.loads(l)["passed"] else json.loads(l)["result"].split(":")[0]) for l in open(sys.argv[1])))' "$1"
}

as_user "$SBX_RUN" --suite "$D/suite.json" --problems "$D/problems.jsonl" --canonical \
        --out "$D/canon.jsonl" --no-progress > /dev/null 2>&1
is "custom suite: canonical field passes" "$(results "$D/canon.jsonl")" "P P"
start=$(date +%s)
as_user "$SBX_RUN" --suite "$D/suite.json" --problems "$D/problems.jsonl" --samples "$D/samples.jsonl" \
        --out "$D/custom.jsonl" --no-progress > /dev/null 2>&1
is "custom suite: template verdicts (the loop times out)" "$(results "$D/custom.jsonl")" "P failed P timed out"
is "custom suite: the endless loop is stopped by the suite timeout" \
        "$(/usr/bin/python3 -c 'import json,sys
r=[json.loads(l) for l in open(sys.argv[1])][3]
print(r["status"], r["duration"] < 3 * 2 + 5 + 3)' "$D/custom.jsonl")" "timeout True"

as_user "$SBX_RUN" --suite mbpp --problems "$D/mbpp.jsonl" --canonical --out "$D/mbpp_canon.jsonl" \
        --no-progress > /dev/null 2>&1
is "mbpp: canonical code passes" "$(results "$D/mbpp_canon.jsonl")" "P"
as_user "$SBX_RUN" --suite mbpp --problems "$D/mbpp.jsonl" --samples "$D/mbpp_samples.jsonl" \
        --out "$D/mbpp.jsonl_results" --no-progress > /dev/null 2>&1
is "mbpp: setup code runs before the asserts; wrong code fails" "$(results "$D/mbpp.jsonl_results")" "P failed P"
is "mbpp: integer task ids are kept as integers" \
        "$(/usr/bin/python3 -c 'import json,sys; print(type(json.loads(open(sys.argv[1]).readline())["task_id"]).__name__)' "$D/mbpp.jsonl_results")" int
done_testing
