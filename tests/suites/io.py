#!/usr/bin/python3
"""The io suite's test data and checks (tests/suites/io.t): problems in
sbx's own form, samples that are real programs, one for each comparison
and verdict, and what each result line must say.

  io.py make DIR          writes DIR/problems.jsonl, DIR/samples.jsonl, the
                          test files and the checkers
  io.py check RESULTS     one TAP-able line per sample: "ok NAME" or
                          "not ok NAME: what differs"
"""
import json, os, sys

# name -> (task, program, verdict, failed_test or None)
SAMPLES = {}
PROBLEMS = []


def problem(task_id, tests, **extra):
    PROBLEMS.append(dict(task_id=task_id, tests=[{"input": i, "output": o} for i, o in tests], **extra))


def sample(name, task, code, verdict, failed=None, **more):
    SAMPLES[name] = dict(task=task, code=code, verdict=verdict, failed=failed, **more)


SUM = "a, b = map(int, input().split())\nprint(a + b)\n"
problem("sum", [("1 2\n", "3\n"), ("10 20\n", "30\n"), ("-5 5\n", "0\n")])
sample("right", "sum", SUM, "accepted")
sample("wrong", "sum", "a, b = map(int, input().split())\nprint(a - b)\n", "wrong_answer", 0)
sample("wrong-on-test-1", "sum", "a, b = map(int, input().split())\nprint(a + b if a != 10 else 0)\n",
       "wrong_answer", 1)
# right, slowly: CPU past the limit before the answer
sample("right-slowly", "sum", "n = 0\nfor i in range(10**9): n += i\n" + SUM, "time_limit", 0)
sample("sleeps", "sum", "import time\ntime.sleep(60)\n" + SUM, "time_limit", 0)
sample("too-much-output", "sum", SUM + "import sys\nwhile True: sys.stdout.write('x' * 65536)\n",
       "output_limit", 0)
sample("crash-after-answer", "sum", SUM + "import sys\nsys.stdout.flush()\n1 / 0\n", "runtime_error", 0)
sample("exit-3-after-answer", "sum", SUM + "raise SystemExit(3)\n", "runtime_error", 0)
sample("killed-by-signal", "sum", SUM + "import os, signal\nos.kill(os.getpid(), signal.SIGSEGV)\n",
       "runtime_error", 0)
sample("reads-past-input", "sum", SUM + "input()\n", "runtime_error", 0)
sample("reads-to-eof-twice", "sum", "import sys\na, b = map(int, sys.stdin.read().split())\n"
       "assert sys.stdin.read() == ''\nprint(a + b)\n", "accepted")
sample("memory", "sum", "x = bytearray(4 << 30)\n" + SUM, "memory_limit", 0)
sample("syntax-error", "sum", "print(1 +\n", "compile_error")
# A problem's own memory limit, below the session's --memory 1G.
problem("small-memory", [("", "ok\n")], memory_limit_bytes=200 << 20)
sample("under-its-memory", "small-memory", "x = bytearray(50 << 20)\nprint('ok')\n", "accepted")
sample("over-its-memory", "small-memory", "x = bytearray(400 << 20)\nprint('ok')\n", "memory_limit", 0)
# A problem's own limit above --memory 1G: --memory is the user's ceiling.
problem("big-memory", [("", "ok\n")], memory_limit_bytes=4 << 30)
sample("over-the-session-memory", "big-memory", "x = bytearray(1536 << 20)\nprint('ok')\n",
       "memory_limit", 0)
sample("sys-exit-0-before-answer", "sum", "raise SystemExit(0)\n" + SUM, "wrong_answer", 0)

# A test given as files (sbx's own form): input_file, output_file.
problem("files", [], tests_dir="files-tests")
sample("files-right", "files", "print(sum(map(int, open(0).read().split())))\n", "accepted")

# The comparisons, each told apart from the next by a real program.
problem("exact", [("", "a b\n")], compare="exact")
sample("exact-right", "exact", "print('a b')\n", "accepted")
sample("exact-trailing-space", "exact", "print('a b ')\n", "wrong_answer", 0)
problem("lines", [("", "a b\nc\n")])
sample("lines-trailing-blanks", "lines", "print('a  b  ')\nprint('c')\nprint()\nprint()\n", "accepted")
sample("lines-joined", "lines", "print('a b c')\n", "wrong_answer", 0)
problem("tokens", [("", "a b\nc\n")], compare="tokens")
sample("tokens-joined", "tokens", "print('a b c')\n", "accepted")
sample("tokens-other", "tokens", "print('a b d')\n", "wrong_answer", 0)
problem("floats", [("", "0.333333333 2\n")], compare="floats:1e-6")
sample("floats-close", "floats", "print(1/3, 2.0000001)\n", "accepted")
sample("floats-far", "floats", "print(0.3334, 2)\n", "wrong_answer", 0)
# LiveCodeBench: a line equal as text, or every token equal as a Decimal
problem("lcb", [("", "1.5 2\nYES\n")], compare="lcb")
sample("lcb-decimal", "lcb", "print('1.50 2.0')\nprint('YES')\n", "accepted")
sample("lcb-case", "lcb", "print('1.5 2')\nprint('yes')\n", "wrong_answer", 0)
sample("lcb-close", "lcb", "print('1.5000001 2')\nprint('YES')\n", "wrong_answer", 0)
problem("sandboxfusion", [("", "1.0 YES\n")], compare="sandboxfusion")
sample("sf-case", "sandboxfusion", "print('1.0 yes')\n", "accepted")
sample("sf-tokens", "sandboxfusion", "print('1.00 YES')\n", "wrong_answer", 0)
problem("sf-float", [("", "0.1234567\n")], compare="sandboxfusion")
sample("sf-float-close", "sf-float", "print(0.1234568)\n", "accepted")

# Call-based problems: the runner calls the function and prints its value
# as JSON, compared as a value (APPS: also the answer's first item).
problem("call-apps", [("[1, 2]", "[3]"), ("[10, -4]", "[6]")], fn_name="add", call="apps")
sample("call-apps-function", "call-apps", "def add(a: int, b: int) -> int:\n    return a + b\n", "accepted")
sample("call-apps-class", "call-apps", "class Solution:\n    def add(self, a, b) -> List[int]:\n"
       "        return a + b\n", "accepted")           # List: APPS's header imports it
sample("call-apps-wrong", "call-apps", "def add(a, b):\n    return a - b\n", "wrong_answer", 0)
sample("call-apps-raises", "call-apps", "def add(a, b):\n    return a / 0\n", "runtime_error", 0)
# APPS's testing_util gives a dict first argument int keys where they all
# are ints (JSON made them strings), then passes it alone: so does sbx
problem("call-apps-dict", [('[{"1": 10, "2": 20}]', "[30]"), ('[{"1": 5}, 7]', "[5]"),
                           ('[{"x": 1}]', "[1]")], fn_name="total", call="apps")
sample("call-apps-int-keys", "call-apps-dict", "def total(d, extra=0):\n"
       "    return d[1] + d.get(2, 0) + extra if 1 in d else d['x']\n", "accepted")
problem("call-lcb", [("[2,7,11,15]\n9", "[0, 1]"), ("[3,2,4]\n6", "[1, 2]")], fn_name="twoSum", call="lcb")
sample("call-lcb-leetcode", "call-lcb", """class Solution:
    def twoSum(self, nums: List[int], target: int) -> List[int]:
        seen = {}
        for i, x in enumerate(nums):
            if target - x in seen:
                return (seen[target - x], i)
            seen[x] = i
""", "accepted")                                         # typing's List from the prelude; a tuple is a list
sample("call-lcb-main-guard", "call-lcb", """class Solution:
    def twoSum(self, nums, target):
        return [0, 1]
if __name__ == "__main__":
    print(input())
""", "wrong_answer", 1)                                  # not __main__: the guard does not run
# A harness's prelude (LiveCodeBench's imports) for a stdio program.
problem("lcb-prelude", [("16\n", "4.0\n")], prelude="lcb")
problem("no-prelude", [("16\n", "4.0\n")])
sample("prelude-sqrt", "lcb-prelude", "print(sqrt(int(input())))\n", "accepted")
sample("no-prelude-sqrt", "no-prelude", "print(sqrt(int(input())))\n", "runtime_error", 0)

# A checker (testlib's convention): any divisor of the input is right.
CHECKER = """import sys
n = int(open(sys.argv[1]).read())
out = open(sys.argv[2]).read().split()
ok = len(out) == 1 and out[0].isdigit() and int(out[0]) > 1 and n % int(out[0]) == 0
if not ok:
    print("wrong answer %r does not divide %d" % (out, n), file=sys.stderr)
sys.exit(0 if ok else 1)
"""
problem("divisor", [("12\n", "2\n"), ("15\n", "3\n")], checker="divisor.py")
sample("checker-other-divisor", "divisor", "n = int(input())\nprint(next(d for d in range(n, 1, -1) if n % d == 0))\n",
       "accepted")
sample("checker-wrong", "divisor", "print(7)\n", "wrong_answer", 0, why="does not divide")
problem("checker-loops", [("1\n", "1\n")], checker="loops.py")
sample("checker-loops", "checker-loops", "print(1)\n", "judge_error", 0)
problem("checker-crashes", [("1\n", "1\n")], checker="crashes.py")
sample("checker-crashes", "checker-crashes", "print(1)\n", "judge_error", 0)
problem("checker-fails", [("1\n", "1\n")], checker="fails.py")
sample("checker-fails", "checker-fails", "print(1)\n", "judge_error", 0)
# A 20 MB input as a file, its checker in a run of a cold run's shape (its
# files too large for a warm run's tmpfs copy).
PROBLEMS.append({"task_id": "big", "tests": [{"input_file": "big.in", "output_file": "big.out"}],
                 "checker": "len.py"})
sample("big-input", "big", "import sys\nprint(len(sys.stdin.buffer.read()))\n", "accepted")
sample("big-input-wrong", "big", "import sys\nprint(len(sys.stdin.buffer.read()) - 1)\n", "wrong_answer", 0)

# What a sample could try to learn or change (the strong tiers hide it).
MARKS = [("MARK-IN-%d\n" % k, "MARK-OUT-%d\n" % k) for k in range(3)]
problem("marks", MARKS)
CHEAT = """import os, re, sys
mine = sys.stdin.read()
found = set()
def look(path):
    try:
        with open(path, errors="replace") as f:
            found.update(re.findall(r"MARK-(?:IN|OUT)-[0-9]+", f.read(1 << 22)))
    except OSError:
        pass
for top in [os.getcwd(), "/tmp", "/dev/shm", "/var/tmp", os.environ.get("HOME", "/"), "/run"] + PATHS:
    if os.path.isfile(top):
        look(top)
    for d, dirs, files in os.walk(top):
        for f in files:
            look(os.path.join(d, f))
for fd in range(3, 64):
    try:
        found.update(re.findall(r"MARK-(?:IN|OUT)-[0-9]+", os.read(fd, 1 << 20).decode("latin-1")))
    except OSError:
        pass
    try:
        os.write(fd, b'{"status":"exited","exit_code":0,"passed":true}\\n')
    except OSError:
        pass
found.discard(mine.strip())
k = mine.strip().rsplit("-", 1)[1]
print("MARK-OUT-" + k if "MARK-OUT-" + k in found else "nothing found: " + " ".join(sorted(found)))
"""
sample("cheat", "marks", None, "wrong_answer", 0)
# Nothing one test's run leaves is there for the next one's.
problem("counter", [("x\n", "0\n")] * 3)
sample("counter", "counter", """import os
seen = 0
places = [os.getcwd(), "/tmp", "/dev/shm", "/var/tmp", os.environ.get("HOME", "/tmp")]
for d in places:
    try:
        seen = max(seen, int(open(os.path.join(d, "sbx-counter")).read()))
    except (OSError, ValueError):
        pass
for d in places:
    try:
        with open(os.path.join(d, "sbx-counter"), "w") as f:
            f.write(str(seen + 1))
    except OSError:
        pass
print(seen)
""", "accepted")


def make(d):
    os.makedirs(os.path.join(d, "files-tests"), exist_ok=True)
    for name, text in (("1.in", "1 2 3\n"), ("1.out", "6\n"), ("2.in", "10\n"), ("2.ans", "10\n")):
        with open(os.path.join(d, "files-tests", name), "w") as f:
            f.write(text)
    with open(os.path.join(d, "big.in"), "wb") as f:
        f.write((b"y" * 99 + b"\n") * 200000)                  # 20,000,000 bytes
    with open(os.path.join(d, "big.out"), "w") as f:
        f.write("20000000\n")
    checkers = {"len.py": "import os, sys\n"
                          "ok = open(sys.argv[2]).read().split() == [str(os.path.getsize(sys.argv[1]))]\n"
                          "sys.exit(0 if ok else 1)\n",
                "divisor.py": CHECKER, "loops.py": "while True: pass\n",
                "crashes.py": "import os, signal\nos.kill(os.getpid(), signal.SIGSEGV)\n",
                "fails.py": "import sys\nprint('FAIL bad answer file', file=sys.stderr)\nsys.exit(3)\n"}
    for name, text in checkers.items():
        with open(os.path.join(d, name), "w") as f:
            f.write(text)
    paths = [os.path.join(d, "problems.jsonl"), os.path.join(d, "files-tests")]
    with open(os.path.join(d, "problems.jsonl"), "w") as f:
        for p in PROBLEMS:
            f.write(json.dumps(p) + "\n")
    with open(os.path.join(d, "samples.jsonl"), "w") as f:
        for name, s in SAMPLES.items():
            code = s["code"] if s["code"] is not None else "PATHS = %r\n" % paths + CHEAT
            f.write(json.dumps({"task_id": s["task"], "name": name, "solution": code}) + "\n")


def check(results, only=None):
    rows = {json.loads(l)["name"]: json.loads(l) for l in open(results)}
    bad = 0
    for name, s in SAMPLES.items():
        if only and name not in only:
            continue
        r = rows.get(name)
        if r is None:
            print("not ok %s: no result line" % name)
            bad += 1
            continue
        want = (s["verdict"], s["failed"])
        got = (r.get("verdict"), r.get("failed_test"))
        why = s.get("why")
        if got != want or r["passed"] != (s["verdict"] == "accepted") or (why and why not in r["result"]):
            print("not ok %s: want %s, got %s: %s" % (name, want, got, r["result"][:300]))
            bad += 1
        else:
            print("ok %s: %s" % (name, r["result"][:120]))
    return bad


if __name__ == "__main__":
    if sys.argv[1] == "make":
        make(sys.argv[2])
    else:
        sys.exit(1 if check(sys.argv[2], sys.argv[3:]) else 0)
