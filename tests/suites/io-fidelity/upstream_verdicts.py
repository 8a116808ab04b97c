#!/usr/bin/env python3
"""The fidelity reference of sbx's input/output suites: each sample judged
by the upstream harnesses' own code, run here unsandboxed as a plain loop,
one interpreter per (harness, sample). The verdicts it records are what
the sbx io suite must give, sample for sample, in the matching comparison
mode.

Harnesses (their code is read from checkouts given on the command line,
never copied into sbx):

  sandboxfusion   bytedance/SandboxFusion sandbox/utils/testing.py:
                  check_stdio_test_case's comparison (is_float, float_equal
                  and the function itself, taken out with ast and run with
                  its sandbox call replaced by a subprocess: `python3 FILE`,
                  the test's stdin, 20 s, its run_timeout for Python),
                  tests in order, stopping at the first failure as
                  check_stdio_test_cases does.
  livecodebench   LiveCodeBench/LiveCodeBench
                  lcb_runner/evaluation/compute_code_generation_metrics.py
                  check_correctness (in-process run_test of testing_util.py
                  in a child process, 6 s a test, LiveCodeBench's default);
                  passed when every result is > 0, as compute_metrics_from_results.
  apps            hendrycks/apps eval/testing_util.py run_test, called as
                  eval/test_one_solution.py's check_correctness calls it (its
                  10 s global timeout; the default of 21 failed tests when
                  it fires). test_one_solution.py itself needs the datasets
                  package, so its dozen lines of check_correctness are
                  restated here; testing_util.py needs pyext, whose
                  RuntimeModule.from_string is restated (exec into a fresh
                  module), as SandboxFusion's copy of it does.

Usage (commits as recorded in README.md):

  python3 tests/suites/io-fidelity/upstream_verdicts.py \\
      --sandboxfusion SF_CHECKOUT --livecodebench LCB_CHECKOUT --apps APPS_CHECKOUT \\
      --problems suites/codecontests/code_eval_code_contests.jsonl \\
      --samples suites/codecontests/reference_solutions.jsonl \\
      --samples tests/suites/io-fidelity/samples.jsonl \\
      --out tests/suites/io-fidelity/expected.jsonl -j 2

Samples: JSONL of {"task_id", "solution", "sample" (a name; default
"reference"), "problems" (the problems file's name; default the first
--problems)}. Problems: SandboxFusion's rows (id, test), stdio lists or
packed LiveCodeBench tests; for the latter (its
code_eval_live_code_bench_v1.jsonl, which sbx does not ship: pass its
path in the checkout), SandboxFusion's own judge of those rows
(sandboxfusion-lcb) and LiveCodeBench's judge them, with the known-good
and known-bad programs of SandboxFusion's test_live_code_bench_v1.py.
Python 3 runs the samples (--python, default the one running this
script).
"""
import argparse
import ast
import asyncio
import json
import os
import subprocess
import sys
import tempfile
import types
from concurrent.futures import ThreadPoolExecutor

SF_RUN_TIMEOUT = 20     # testing.py: run_timeout or 20 for interpreted languages
LCB_TIMEOUT = 6         # compute_code_generation_metrics: evaluate_generations(timeout=6)
APPS_TIMEOUT = 10       # test_one_solution.py: TIMEOUT = 10
APPS_DEFAULT_TESTS = 21  # test_one_solution.py: avg_number_tests when the global timeout fires


SAFE_PICKLE_OPS = {"PROTO", "FRAME", "EMPTY_DICT", "SHORT_BINUNICODE", "BINUNICODE",
                   "BINUNICODE8", "MEMOIZE", "BINPUT", "LONG_BINPUT", "SETITEM", "STOP"}


def unpack_lcb(text):
    """SandboxFusion's packed LiveCodeBench tests, read without unpickling:
    the opcodes are walked with pickletools and only strings are taken."""
    import base64
    import pickletools
    import zlib
    strings = []
    for op, arg, _ in pickletools.genops(zlib.decompress(base64.b64decode(text))):
        if op.name not in SAFE_PICKLE_OPS:
            raise SystemExit(f"refusing pickle opcode {op.name}")
        if isinstance(arg, str) and "UNICODE" in op.name:
            strings.append(arg)
    if strings[:1] != ["input_output"] or len(strings) != 2:
        raise SystemExit("not SandboxFusion's {'input_output': str}")
    return json.loads(strings[1])


def load_problems(path):
    """SandboxFusion's rows: stdio lists (code_contests) or packed
    LiveCodeBench tests (live_code_bench_v1, kind "lcb")."""
    problems = {}
    with open(path) as f:
        for line in f:
            if not line.strip():
                continue
            row = json.loads(line)
            try:
                tests = json.loads(row["test"])
            except ValueError:
                io = unpack_lcb(row["test"])
                problems[str(row["id"])] = dict(io, kind="lcb")
                continue
            problems[str(row["id"])] = {
                "inputs": [t["input"]["stdin"] for t in tests],
                "outputs": [t["output"]["stdout"] for t in tests],
                "kind": "stdio",
            }
    return problems


def load_samples(paths):
    samples = []
    for path in paths:
        with open(path) as f:
            for line in f:
                if line.strip():
                    row = json.loads(line)
                    row.setdefault("sample", "reference")
                    samples.append(row)
    return samples


# ---- SandboxFusion ----

def sf_functions(checkout):
    """is_float, float_equal and check_stdio_test_case from testing.py,
    with the names they use from the rest of SandboxFusion stubbed."""
    path = os.path.join(checkout, "sandbox/utils/testing.py")
    tree = ast.parse(open(path).read())
    keep = [n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
            and n.name in ("is_float", "float_equal", "check_stdio_test_case")]
    ns = {}

    class EvalTestCase:
        def __init__(self, passed, exec_info=None, test_info=None):
            self.passed = passed

    class RunCodeRequest:
        def __init__(self, **kw):
            self.__dict__.update(kw)

    async def run_code_in_sandbox_w_retry(request):
        return ns["_next_result"]

    ns.update(EvalTestCase=EvalTestCase, RunCodeRequest=RunCodeRequest,
              run_code_in_sandbox_w_retry=run_code_in_sandbox_w_retry,
              compile_languages=[], truncate_str=lambda s, *a, **k: s,
              GeneralStdioTest=object, TestConfig=object)
    exec(compile(ast.Module(body=keep, type_ignores=[]), path, "exec"), ns)
    return ns


class SFCase:
    def __init__(self, stdin, stdout):
        self.input = {"stdin": stdin}
        self.output = {"stdout": stdout}

    def model_dump(self):
        return {"input": self.input, "output": self.output}


def run_program(python, path, stdin, timeout):
    """SandboxFusion's run: status Success only for a finished run with
    return code 0."""
    try:
        p = subprocess.run([python, path], input=stdin.encode(), capture_output=True,
                           timeout=timeout)
    except subprocess.TimeoutExpired:
        return "TimeLimitExceeded", ""
    status = "Success" if p.returncode == 0 else "Failed"
    return status, p.stdout.decode(errors="replace")


def judge_sandboxfusion(args, problem, code):
    ns = sf_functions(args.sandboxfusion)
    config = types.SimpleNamespace(language="python", run_timeout=None,
                                   compile_timeout=None, extra={})
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "main.py")
        with open(path, "w") as f:
            f.write(code)
        for i, (stdin, stdout) in enumerate(zip(problem["inputs"], problem["outputs"])):
            status, out = run_program(args.python, path, stdin, SF_RUN_TIMEOUT)
            ns["_next_result"] = types.SimpleNamespace(
                status=status, run_result=types.SimpleNamespace(stdout=out))
            case = asyncio.run(ns["check_stdio_test_case"](code, SFCase(stdin, stdout), config))
            if not case.passed:
                return {"passed": False, "first_failed": i, "detail": status}
    return {"passed": True, "first_failed": None, "detail": ""}


def sf_lcb_text(checkout, name):
    path = os.path.join(checkout, "sandbox/datasets/live_code_bench.py")
    for node in ast.parse(open(path).read()).body:
        if isinstance(node, ast.Assign) and node.targets[0].id == name:
            return node.value.value
    raise SystemExit(f"{path}: no {name}")


def judge_sandboxfusion_lcb(args, problem, code):
    """SandboxFusion's live_code_bench_v1: its TEST_UTIL (an older
    LiveCodeBench testing_util) run by its TEST_CODE in one process,
    accepted when that exits 0 (evaluate_single)."""
    timeout = LCB_TIMEOUT
    n = len(problem["inputs"])
    sample = {"input_output": json.dumps({k: problem[k] for k in ("inputs", "outputs", "fn_name")})}
    with tempfile.TemporaryDirectory() as d:
        for name, text in (("testing_util.py", sf_lcb_text(args.sandboxfusion, "TEST_UTIL")),
                           ("test_cases.txt", json.dumps(sample)), ("code.py", code),
                           ("main.py", sf_lcb_text(args.sandboxfusion, "TEST_CODE") % {"timeout": timeout})):
            with open(os.path.join(d, name), "w") as f:
                f.write(text)
        try:
            p = subprocess.run([args.python, "main.py"], cwd=d, capture_output=True,
                               timeout=min((timeout + 1) * n + 5, 160))
            ok = p.returncode == 0
        except subprocess.TimeoutExpired:
            ok = False
    return {"passed": ok, "first_failed": None, "detail": ""}


# ---- LiveCodeBench ----

def judge_livecodebench(args, problem, code):
    sys.path.insert(0, args.livecodebench)
    sys.set_int_max_str_digits(50000)
    from lcb_runner.evaluation.compute_code_generation_metrics import check_correctness
    sample = {"input_output": json.dumps({"inputs": problem["inputs"],
                                          "outputs": problem["outputs"],
                                          "fn_name": problem.get("fn_name")})}
    res, meta = check_correctness(sample, code, timeout=LCB_TIMEOUT, debug=False)
    return verdict_of_results(res, meta.get("error_message", "") if isinstance(meta, dict) else "")


def verdict_of_results(res, detail):
    res = [bool(r) if isinstance(r, bool) else r for r in res]
    for i, r in enumerate(res):
        if not (r is True or (not isinstance(r, bool) and r > 0)):
            return {"passed": False, "first_failed": i, "detail": str(detail)[:200]}
    return {"passed": True, "first_failed": None, "detail": ""}


# ---- APPS ----

def judge_apps(args, problem, code):
    import multiprocessing
    pyext = types.ModuleType("pyext")

    class RuntimeModule:
        @staticmethod
        def from_string(name, _, source):
            module = types.ModuleType(name)
            exec(source, module.__dict__)
            return module

    pyext.RuntimeModule = RuntimeModule
    sys.modules["pyext"] = pyext
    sys.path.insert(0, os.path.join(args.apps, "eval"))
    import testing_util as test_util

    apps_problem = {"input_output": {"inputs": list(problem["inputs"]),
                                     "outputs": list(problem["outputs"])}}

    def _temp_run(problem, generation, debug, result):
        try:
            result.append(test_util.run_test(problem=problem, test=generation, debug=debug))
        except Exception:
            pass

    manager = multiprocessing.Manager()
    result = manager.list()
    p = multiprocessing.Process(target=_temp_run, args=(apps_problem, code, False, result))
    p.start()
    p.join(timeout=APPS_TIMEOUT + 1)
    if p.is_alive():
        p.kill()
    res = list(result[0]) if result else [-1] * APPS_DEFAULT_TESTS
    return verdict_of_results(res, "" if result else "global timeout")


HARNESSES = {"sandboxfusion": judge_sandboxfusion, "livecodebench": judge_livecodebench,
             "apps": judge_apps, "sandboxfusion-lcb": judge_sandboxfusion_lcb}
# Which harnesses judge which kind of problem: SandboxFusion judges its
# LiveCodeBench rows with its own LiveCodeBench code; APPS's run_test takes
# call-based inputs as lists, not LiveCodeBench's JSON lines.
KIND_HARNESSES = {"stdio": ("sandboxfusion", "livecodebench", "apps"),
                  "lcb": ("sandboxfusion-lcb", "livecodebench")}


def sf_lcb_samples(checkout):
    """The known-good and known-bad programs of SandboxFusion's own
    test of its live_code_bench_v1 rows (PASSED_CODE, FAILED_CODE, IDS),
    taken out of their markdown fences."""
    import re
    path = os.path.join(checkout, "sandbox/tests/datasets/test_live_code_bench_v1.py")
    values = {}
    for node in ast.parse(open(path).read()).body:
        if isinstance(node, ast.Assign) and node.targets[0].id in ("IDS", "PASSED_CODE", "FAILED_CODE"):
            values[node.targets[0].id] = ast.literal_eval(node.value)
    out = []
    for name in ("PASSED_CODE", "FAILED_CODE"):
        for task, text in zip(values["IDS"], values[name]):
            code = re.search(r"```python\n(.*?)```", text, re.DOTALL).group(1)
            out.append({"task_id": str(task), "solution": code,
                        "sample": "sandboxfusion-" + name.split("_")[0].lower()})
    return out


def one(args):
    """Child mode: one harness, one sample; prints the verdict as JSON."""
    job = json.loads(sys.stdin.read())
    problem = load_problems(job["problems"])[job["task_id"]]
    verdict = HARNESSES[job["harness"]](args, problem, job["solution"])
    # the harnesses' own output went to our stdout: the verdict is the last line
    sys.stdout.write("\n" + json.dumps(verdict) + "\n")
    sys.stdout.flush()
    os._exit(0)


def run_job(args, harness, problems, sample):
    cmd = [sys.executable, os.path.abspath(__file__), "--one", "--problems", problems,
           "--python", args.python]
    for opt in ("sandboxfusion", "livecodebench", "apps"):
        if getattr(args, opt):
            cmd += ["--" + opt, getattr(args, opt)]
    job = {"harness": harness, "task_id": sample["task_id"], "solution": sample["solution"],
           "problems": problems}
    p = subprocess.run(cmd, input=json.dumps(job).encode(), capture_output=True, timeout=3600)
    lines = [l for l in p.stdout.decode(errors="replace").splitlines() if l.startswith("{")]
    if p.returncode != 0 or not lines:
        raise SystemExit(f"{harness} {sample['task_id']} {sample['sample']}: the harness failed:\n"
                         + p.stderr.decode(errors="replace")[-2000:])
    verdict = json.loads(lines[-1])
    return {"problems": os.path.basename(problems), "task_id": sample["task_id"],
            "sample": sample["sample"], "harness": harness, **verdict}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--problems", action="append", required=True)
    ap.add_argument("--samples", action="append", default=[])
    ap.add_argument("--sandboxfusion")
    ap.add_argument("--livecodebench")
    ap.add_argument("--apps")
    ap.add_argument("--python", default=sys.executable)
    ap.add_argument("--out")
    ap.add_argument("-j", type=int, default=1)
    ap.add_argument("--one", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.one:
        return one(args)
    harnesses = [h for h in HARNESSES if getattr(args, h.split("-")[0])]
    if not harnesses:
        ap.error("give at least one of --sandboxfusion, --livecodebench, --apps")
    samples = load_samples(args.samples)
    jobs = []
    for path in args.problems:
        problems = load_problems(path)
        # a sample belongs to the problems file it names, else to the first
        mine = [s for s in samples
                if s.get("problems", os.path.basename(args.problems[0])) == os.path.basename(path)]
        if any(p["kind"] == "lcb" for p in problems.values()) and args.sandboxfusion:
            mine += sf_lcb_samples(args.sandboxfusion)
        for s in mine:
            if s["task_id"] in problems:
                kind = problems[s["task_id"]]["kind"]
                jobs += [(h, path, s) for h in harnesses if h in KIND_HARNESSES[kind]]
    with ThreadPoolExecutor(args.j) as pool:
        rows = list(pool.map(lambda job: run_job(args, *job), jobs))
    out = open(args.out, "w") if args.out else sys.stdout
    for r in rows:
        out.write(json.dumps(r, sort_keys=True) + "\n")
    if args.out:
        out.close()
    for h in harnesses:
        mine = [r for r in rows if r["harness"] == h]
        print(f"{h}: {sum(r['passed'] for r in mine)}/{len(mine)} samples pass", file=sys.stderr)


if __name__ == "__main__":
    main()
