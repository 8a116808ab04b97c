#!/bin/bash
# ClassEval scored by its own rules: the reference solutions (>= 89/100
# with Debian's python3 packages), GPT-4-Turbo's greedy outputs against the
# published class_success 0.38 and fun_success 0.675 (+-0.02), and samples
# that kill or exit their own process cannot report success.
. "$(dirname "$0")/../lib/lib.sh"
require_test_root
CE=$SBX_DATA/classeval
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

# A two-class task of our own: samples that leave early cannot succeed.
/usr/bin/python3 - "$D/tiny.json" "$D/tiny_samples.jsonl" <<'PY'
import json, sys
test = ("import unittest\n\nclass AdderTestAdd(unittest.TestCase):\n"
        "    def test_add(self):\n        self.assertEqual(Adder().add(1, 2), 3)\n\n"
        "class AdderTestMain(unittest.TestCase):\n"
        "    def test_main(self):\n        self.assertEqual(Adder().add(2, 2), 4)\n")
good = "class Adder:\n    def add(self, a, b):\n        return a + b\n"
json.dump([{"task_id": "Tiny_0", "test": test, "test_classes": ["AdderTestAdd", "AdderTestMain"],
            "import_statement": ["import os"], "solution_code": good}], open(sys.argv[1], "w"))
samples = [
    ("control", "```python\n" + good + "```"),
    ("os._exit(0) in a test", "class Adder:\n    def add(self, a, b):\n        os._exit(0)\n"),
    ("SystemExit at import", "class Adder:\n    import sys\n    sys.exit(0)\n"),
    ("SIGKILL in a test", "import signal\nclass Adder:\n    def add(self, a, b):\n        os.kill(os.getpid(), signal.SIGKILL)\n"),
    ("spins past the timer", "class Adder:\n    def add(self, a, b):\n        while True:\n            pass\n"),
    ("swallows the timer", "class Adder:\n    def add(self, a, b):\n        while True:\n            try:\n                while True:\n                    pass\n            except BaseException:\n                pass\n"),
]
with open(sys.argv[2], "w") as f:
    for what, code in samples:
        f.write(json.dumps({"task_id": "Tiny_0", "completion": code, "what": what}) + "\n")
PY
chown "$SBX_TEST_USER:" "$D/tiny.json" "$D/tiny_samples.jsonl"
as_user timeout -k 5 240 "$SBX_RUN" --suite classeval --problems "$D/tiny.json" \
        --samples "$D/tiny_samples.jsonl" --timeout 1 --out "$D/tiny.jsonl" --no-progress \
        > /dev/null 2> "$D/tiny.err"
is "hostile ClassEval samples: the suite runs to its end" "$?" 0
while IFS=$'\t' read -r what passed cr; do
        if [ "$what" = control ]; then is "control: class_success" "$passed $cr" "True class_success"
        else is "$what: not a success ($cr)" "$passed" False; fi
done < <(/usr/bin/python3 -c 'import json,sys
for l in open(sys.argv[1]):
    r = json.loads(l); print("%s\t%s\t%s" % (r["what"], r["passed"], r["class_result"]))' "$D/tiny.jsonl")
done_testing
