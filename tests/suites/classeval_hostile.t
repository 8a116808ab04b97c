#!/bin/bash
# ClassEval's rules on a two-class task of our own (no ClassEval data
# needed): samples that kill or exit their own process, or outlast or
# swallow the per-test timer, cannot report success.
. "$(dirname "$0")/../lib/lib.sh"
require_test_root
D=$(user_tmpdir)

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
