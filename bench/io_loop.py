#!/usr/bin/env python3
"""The plain-loop baseline of the io suites (issue 33): a bare shell loop
that runs each problem's program on each of its tests with `timeout`, stdin
from the test's input file, stdout to a file, one test after another, and
prints tests/s. sbx-run's io suite must come within 1.2x of it, per test
run, on the same tests (bench/io-bench.sh will interleave the two once the
suite is wired; this script is the loop alone, and what that bench calls).

Default: suites/codecontests' 17 problems that have a reference solution,
every test of each (2,005 test runs), the reference solution as the
program. Preparing the files is not timed; after the loop, the outputs are
checked with SandboxFusion's comparison (not timed either), so a loop that
ran nothing cannot look fast.

  python3 bench/io_loop.py [--rounds 3] [--python /usr/bin/python3]
      [--flags "-I -B"] [--timeout 20] [--loop bash|python] [--jobs 1]
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

REPO = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")


def sf_same(out, exp):
    """SandboxFusion's check_stdio_test_case comparison (sandbox/utils/testing.py)."""
    def is_float(s):
        try:
            float(s)
            return True
        except ValueError:
            return False
    r, e = out.strip().split("\n"), exp.strip().split("\n")
    if len(r) != len(e):
        return False
    for rl, el in zip(r, e):
        rl, el = rl.lower(), el.lower()
        if rl.strip() != el.strip():
            if is_float(el) and is_float(rl) and abs(float(rl) - float(el)) / max(abs(float(el)), 1e-10) < 1e-5:
                continue
            return False
    return True


def prepare(args, work):
    """Programs and inputs as files; the run list, one test a line."""
    sols = {r["task_id"]: r["solution"] for r in map(json.loads, open(args.samples)) if r}
    runs = []
    for line in open(args.problems):
        row = json.loads(line)
        task = str(row["id"])
        if task not in sols:
            continue
        prog = os.path.join(work, f"p{task}.py")
        with open(prog, "w") as f:
            f.write(sols[task])
        for i, t in enumerate(json.loads(row["test"])):
            base = os.path.join(work, f"p{task}-{i}")
            with open(base + ".in", "w") as f:
                f.write(t["input"]["stdin"])
            runs.append((prog, base + ".in", base + ".out", t["output"]["stdout"]))
    with open(os.path.join(work, "runs"), "w") as f:
        for prog, inp, out, _ in runs:
            f.write(f"{prog} {inp} {out}\n")
    return runs


BASH_LOOP = """
while read -r prog in out; do
        timeout "$T" "$PY" $FLAGS "$prog" < "$in" > "$out" 2>/dev/null
done < "$1"
"""


def run_bash(args, work, runs_file):
    env = dict(os.environ, T=str(args.timeout), PY=args.python, FLAGS=args.flags)
    if args.jobs == 1:
        subprocess.run(["bash", "-c", BASH_LOOP, "loop", runs_file], env=env, check=True)
        return
    # -j N: N loops over interleaved shares of the list
    lines = open(runs_file).read().splitlines()
    procs = []
    for k in range(args.jobs):
        part = os.path.join(work, f"runs.{k}")
        with open(part, "w") as f:
            f.write("".join(l + "\n" for l in lines[k::args.jobs]))
        procs.append(subprocess.Popen(["bash", "-c", BASH_LOOP, "loop", part], env=env))
    for p in procs:
        p.wait()


def run_python(args, runs):
    for prog, inp, out, _ in runs:
        with open(inp, "rb") as i, open(out, "wb") as o:
            subprocess.run(["timeout", str(args.timeout), args.python, *args.flags.split(), prog],
                           stdin=i, stdout=o, stderr=subprocess.DEVNULL)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--problems", default=os.path.join(REPO, "suites/codecontests/code_eval_code_contests.jsonl"))
    ap.add_argument("--samples", default=os.path.join(REPO, "suites/codecontests/reference_solutions.jsonl"))
    ap.add_argument("--python", default="/usr/bin/python3")
    ap.add_argument("--flags", default="-I -B", help="the interpreter flags sbx runs samples with")
    ap.add_argument("--timeout", type=int, default=20)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--loop", choices=("bash", "python"), default="bash")
    ap.add_argument("--jobs", type=int, default=1)
    args = ap.parse_args()
    work = tempfile.mkdtemp(prefix="io-loop.")
    try:
        runs = prepare(args, work)
        rates = []
        for r in range(args.rounds):
            t0 = time.monotonic()
            if args.loop == "bash":
                run_bash(args, work, os.path.join(work, "runs"))
            else:
                run_python(args, runs)
            dt = time.monotonic() - t0
            ok = sum(sf_same(open(out, errors="replace").read(), exp) for _, _, out, exp in runs)
            rates.append(len(runs) / dt)
            print(f"io-loop: round {r + 1}: {len(runs)} test runs in {dt:.2f} s, "
                  f"{len(runs) / dt:.1f} tests/s ({ok} outputs right)", flush=True)
        print(f"io-loop: {args.loop} loop, -j{args.jobs}, timeout {args.timeout} {args.python} {args.flags}: "
              f"median {statistics.median(rates):.1f} tests/s over {args.rounds} rounds of {len(runs)} test runs")
    finally:
        shutil.rmtree(work)


if __name__ == "__main__":
    main()
