#!/usr/bin/env python3
"""Checks the expected answers of tests/unit/frontend_io_compare.c's "lcb"
and "sandboxfusion" cases against the upstream code itself:
LiveCodeBench's grade_stdio (lcb_runner/evaluation/testing_util.py, fed a
program that writes the case's output) and SandboxFusion's
check_stdio_test_case (sandbox/utils/testing.py, its sandbox call
answering with the case's output). With --random N it
also builds sbx's comparisons (cc, frontend/suites/io/compare/*.c) into a
shared object and checks N random pairs of outputs of both kinds, drawn
from the characters that matter (digits, signs, points, exponents, case,
underscores, ASCII and Unicode spaces, line breaks, nan and inf), against
the upstream code. Prints each disagreement; exits 1 if there is one.

  python3 tests/suites/io-fidelity/compare_cases.py \\
      --livecodebench LCB_CHECKOUT --sandboxfusion SF_CHECKOUT [--random 20000]
"""
import argparse
import asyncio
import ctypes
import os
import random
import re
import subprocess
import sys
import tempfile
import types

HERE = os.path.dirname(os.path.abspath(__file__))
C_FILE = os.path.join(HERE, "../../unit/frontend_io_compare.c")

sys.path.insert(0, HERE)
import upstream_verdicts  # noqa: E402


def c_string(lit):
    """The bytes of adjacent C string literals, decoded as UTF-8."""
    out = bytearray()
    for body in re.findall(r'"((?:[^"\\]|\\.)*)"', lit):
        i = 0
        while i < len(body):
            c = body[i]
            if c != "\\":
                out += c.encode()
                i += 1
                continue
            e = body[i + 1]
            if e == "x":
                m = re.match(r"[0-9a-fA-F]+", body[i + 2:])
                out.append(int(m.group(0), 16) & 0xFF)
                i += 2 + len(m.group(0))
                continue
            out += {"n": b"\n", "r": b"\r", "t": b"\t", "\\": b"\\", '"': b'"'}[e].decode().encode()
            i += 2
    return out.decode()


def cases():
    text = open(C_FILE).read()
    table = text[text.index("static const struct cmp_case cases[]"):]
    table = table[:table.index("};")]
    lit = r'((?:"(?:[^"\\]|\\.)*"\s*)+)'
    for m in re.finditer(r"\{\s*" + lit + r",\s*" + lit + r",\s*" + lit + r",\s*(\d)\s*\}", table):
        yield c_string(m.group(1)), c_string(m.group(2)), c_string(m.group(3)), int(m.group(4))


def lcb_same(grade_stdio, out, ans):
    code = "import sys\nsys.stdout.write(" + repr(out) + ")\n"
    res, _ = grade_stdio(code, [""], [ans], 6)
    return res == [True]


def sf_same(ns, out, ans):
    ns["_next_result"] = types.SimpleNamespace(status="Success",
                                               run_result=types.SimpleNamespace(stdout=out))
    config = types.SimpleNamespace(language="python", run_timeout=None, compile_timeout=None, extra={})
    case = upstream_verdicts.SFCase("", ans)
    return asyncio.run(ns["check_stdio_test_case"]("", case, config)).passed


ROOT = os.path.join(HERE, "../../..")
PIECES = ["0", "1", "2", "5", "10", "1.0", "1.5", "1.50", "0.5", ".5", "5.", "-", "+", "e", "E",
          "e-3", "1e2", "100", "_", "nan", "NaN", "inf", "Infinity", "a", "A", "yes", "YES",
          " ", "  ", "\t", "\n", "\n", "\r\n", "\x0b", "\x1c", "\u3000", "\xa0", "\u200b",
          "1.000001", "1.0001", "0.30000000000000004", "0.3", "-0", "1_000", "1__0"]


def build_cmp(tmp):
    """sbx's comparisons as a shared object, and a function calling them."""
    srcs = [os.path.join(ROOT, "frontend/suites/io/compare", f) for f in
            ("compare.c", "compare_stream.c", "compare_number.c", "compare_tokens.c",
             "compare_pylines.c")]
    so = os.path.join(tmp, "libiocmp.so")
    subprocess.run(["cc", "-O1", "-shared", "-fPIC", "-D_GNU_SOURCE", "-I" + os.path.join(ROOT, "common"),
                    "-iquote", os.path.join(ROOT, "frontend/util"), "-I/usr/include/cjson", "-o", so]
                   + srcs + [os.path.join(ROOT, "frontend/util/err.c"), "-lm"], check=True)
    lib = ctypes.CDLL(so)
    parse, cmp_mem = lib.io_compare_parse, lib.io_compare_mem
    how = {k: ctypes.create_string_buffer(64) for k in ("lcb", "sandboxfusion")}
    err = ctypes.create_string_buffer(4096)
    for k, buf in how.items():
        assert parse(k.encode(), buf, err) == 0
    diff = ctypes.create_string_buffer(512)

    def same(kind, out, ans):
        o, a = out.encode(), ans.encode()
        rc = cmp_mem(how[kind], o, ctypes.c_size_t(len(o)), a, ctypes.c_size_t(len(a)), diff, err)
        assert rc in (0, 1), rc
        return rc == 0
    return same


def random_text(rng):
    return "".join(rng.choice(PIECES) for _ in range(rng.randint(0, 8)))


def check_random(n, grade_stdio, ns, seed=33):
    rng = random.Random(seed)
    bad = 0
    with tempfile.TemporaryDirectory() as tmp:
        sbx_same = build_cmp(tmp)
        for _ in range(n):
            ans = random_text(rng)
            out = ans if rng.random() < 0.3 else random_text(rng)
            if rng.random() < 0.3:      # a near miss: one piece changed
                out = ans + rng.choice(PIECES)
            for kind, up in (("lcb", lambda o, a: lcb_same(grade_stdio, o, a)),
                             ("sandboxfusion", lambda o, a: sf_same(ns, o, a))):
                try:
                    want = up(out, ans)
                except Exception as e:      # sNaN and the like: upstream raises
                    want = ("raises", type(e).__name__)
                got = sbx_same(kind, out, ans)
                if want != got and not (isinstance(want, tuple) and not got):
                    bad += 1
                    print(f"random {kind}: out {out!r} answer {ans!r}: upstream {want}, sbx {got}")
    print(f"compare_cases: {n} random pairs a kind, {bad} disagree")
    return bad


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--livecodebench", required=True)
    ap.add_argument("--sandboxfusion", required=True)
    ap.add_argument("--random", type=int, default=0)
    args = ap.parse_args()
    sys.path.insert(0, args.livecodebench)
    from lcb_runner.evaluation.testing_util import grade_stdio
    ns = upstream_verdicts.sf_functions(args.sandboxfusion)
    checked = bad = 0
    for spec, out, ans, want in cases():
        if spec == "lcb":
            same = lcb_same(grade_stdio, out, ans)
        elif spec == "sandboxfusion":
            same = sf_same(ns, out, ans)
        else:
            continue
        checked += 1
        if same != (want == 0):
            bad += 1
            print(f"{spec}: out {out!r} answer {ans!r}: upstream says "
                  f"{'same' if same else 'different'}, the test wants {want}")
    print(f"compare_cases: {checked} cases checked against upstream, {bad} disagree")
    if args.random:
        bad += check_random(args.random, grade_stdio, ns)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
