#!/usr/bin/env python3
"""Writes samples.jsonl: programs for suites/codecontests' problems that
are wrong, or right in a way the harnesses judge differently, each made
from the problem's reference solution by a small change, named for it.

  python3 tests/suites/io-fidelity/make_samples.py > tests/suites/io-fidelity/samples.jsonl
"""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REFS = os.path.join(HERE, "../../../suites/codecontests/reference_solutions.jsonl")


def refs():
    return {r["task_id"]: r["solution"] for r in map(json.loads, open(REFS))}


def replace(code, old, new):
    if old not in code:
        raise SystemExit(f"make_samples: {old!r} is not in the reference solution")
    return code.replace(old, new, 1)


def samples(ref):
    s = []

    def add(task, name, code, why):
        s.append({"task_id": task, "sample": name, "solution": code, "why": why})

    add("2", "off-by-one", replace(ref["2"], "print(dist[n - 1])", "print(dist[n - 1] + 1)"),
        "a wrong answer on every test")
    add("2", "sleeps", "import time\ntime.sleep(30)\n" + ref["2"],
        "right, but 30 s a test: every harness's time limit")
    add("17", "lower-case", replace(ref["17"], "print('OK' if ''.join(digits) == m else 'WRONG_ANSWER')",
                                    "print('ok' if ''.join(digits) == m else 'wrong_answer')"),
        "SandboxFusion lower-cases both sides; LiveCodeBench and APPS do not")
    add("17", "no-newline-trailing-spaces", replace(
        ref["17"], "print('OK' if ''.join(digits) == m else 'WRONG_ANSWER')",
        "sys.stdout.write(('OK' if ''.join(digits) == m else 'WRONG_ANSWER') + '  ')"),
        "every harness strips")
    add("16", "swapped", replace(ref["16"], "print(best[2], best[3])", "print(best[3], best[2])"),
        "wrong, but APPS compares a line's tokens as a set")
    add("5", "relative-noise", replace(ref["5"], "out.append('%.5f' % (nodes - edges))",
                                       "out.append('%.7f' % ((nodes - edges) * (1 + 2e-6)))"),
        "within SandboxFusion's relative 1e-5; not equal as LiveCodeBench's Decimals")
    add("5", "more-digits", replace(ref["5"], "out.append('%.5f' % (nodes - edges))",
                                    "out.append('%.10f' % (nodes - edges))"),
        "the same values with more digits")
    add("0", "exit-3-after-answer", ref["0"] + "raise SystemExit(3)\n",
        "right answer, then exit status 3: SandboxFusion fails the run; the in-process "
        "harnesses swallow SystemExit")
    add("0", "raise-after-answer", ref["0"] + "1 / 0\n",
        "right answer, then an uncaught exception")
    add("3", "reads-past-input", ref["3"] + "input()\n",
        "right answer, then reads a line past its input")
    add("9", "prints-too-much", ref["9"] + "print('x' * 50_000_000)\n",
        "right answer, then 50 MB more")
    add("1", "crlf", replace(ref["1"], "sys.stdout.write('\\n'.join(map(str, out)) + '\\n')",
                             "sys.stdout.write('\\r\\n'.join(map(str, out)) + '\\r\\n')"),
        "Windows line ends")
    add("19", "one-per-line", replace(ref["19"], "out.append(' '.join(map(str, ans)))",
                                      "out.extend(map(str, ans))"),
        "the answers one a line: passes test 100 only")
    add("12", "input-builtin", replace(replace(ref["12"], "data = sys.stdin.buffer.read().split()",
                                               "data = (input() + ' ' + input()).split()"),
                                       "import sys", "import sys  # reads with input()"),
        "the same solution reading with input() instead of sys.stdin.buffer")
    return s


def main():
    for row in samples(refs()):
        sys.stdout.write(json.dumps(row) + "\n")


if __name__ == "__main__":
    main()
