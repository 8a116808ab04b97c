#!/usr/bin/python3
"""The plain, unsandboxed reference loop over HumanEval-X (issue 32).

Builds each language's 164 programs from the canonical solutions exactly as
upstream's harness builds them (THUDM/CodeGeeX,
codegeex/benchmark/humaneval-x/evaluate_humaneval_x.py:
process_humaneval_test), compiles and runs them with the system's
compilers, and scores them with upstream's rules (codegeex/benchmark/
execution.py: check_correctness). It is the fidelity reference for sbx's
HumanEval-X suites (same pass counts, same failing task ids) and the speed
baseline: a bare loop, one program at a time by default, no sandbox.

    bench/humanevalx-plain.py [--languages cpp,java,js,go,rust,python]
        [--mode split|upstream] [--timeout 5] [-j 1] [--out FILE]

--mode split (the default) compiles and runs as two steps, as sbx does:
Go as `go test -c` then the test binary, Rust as `rustc --test` against the
crates prebuilt once with cargo. --mode upstream runs Go's `go test
main_test.go` and Rust's `cargo check` + `cargo test` in a cargo project, as
upstream does; the two modes must give the same verdicts. --mode sbx is
split with sbx's own flags and environment (frontend/lang/lang_table.c:
the JVM's flags on javac and java, -Xmx the default 4 GiB less 768 MiB,
MALLOC_ARENA_MAX=2; Rust's -C strip=debuginfo; GOMAXPROCS=2): the bare
loop bench/humanevalx-bench.sh holds sbx to. Run it as a normal user: it works in a fresh temporary directory, removed at the end
(--keep keeps it), and never touches $HOME (GOCACHE, CARGO_HOME and the
JVM's files go there too).
"""

import argparse
import gzip
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LANGUAGES = ("python", "cpp", "java", "js", "go", "rust")
# Debian's toolchains, never a user's own (rustup's cargo in ~/.cargo).
TOOL_PATH = "/usr/local/bin:/usr/bin:/bin"

# upstream's codegeex/benchmark/utils.py IMPORT_HELPER
IMPORT_HELPER = {
    "python": ["import math", "import re", "import sys", "import copy",
               "import datetime", "import itertools", "import collections",
               "import heapq", "import statistics", "import functools",
               "import hashlib", "import numpy", "import numpy as np",
               "import string", "from typing import *",
               "from collections import *"],
    "go": ["math", "strings", "fmt", "strconv", "time", "bytes", "regexp",
           "sort", "math/rand", "crypto/md5"],
    "cpp": ["#include<stdlib.h>", "#include<algorithm>", "#include<math.h>",
            "#include<stdio.h>", "#include<vector>", "#include<string>",
            "#include<climits>", "#include<cstring>", "#include<iostream>"],
}


def build_program(lang, problem, code):
    """upstream's process_humaneval_test, example_test=False."""
    prompt, test = problem["prompt"], problem["test"]
    if lang == "python":
        kept = []
        for line in code.split("\n"):
            if line.strip() and line[0] not in " \t":
                break
            kept.append(line)
        code = "\n".join(kept)
        setup = "\n".join(IMPORT_HELPER["python"]) + "\n"
        return setup + prompt + code + "\n" + test + "\n"
    if lang == "cpp":
        setup = "".join(s + "\n" for s in IMPORT_HELPER["cpp"] if s not in prompt)
        return setup + "\n" + prompt + code + "\n" + test
    if lang in ("java", "js"):
        return prompt + code + "\n" + test
    if lang == "go":
        prompt = prompt.replace(problem["import"], "")
        setup = problem["test_setup"]
        other = ['"%s"' % p for p in IMPORT_HELPER["go"]
                 if p not in setup and p.split("/")[-1] + "." in code]
        if other:
            imports = "import (\n" + "    ".join(p + "\n" for p in other) + ")"
            return setup + "\n" + imports + "\n" + prompt + code + "\n" + test
        return setup + "\n" + prompt + code + "\n" + test
    if lang == "rust":
        main = "\nfn main(){ \n } \n"
        return main + problem["declaration"] + prompt + code + test
    raise ValueError(lang)


def run(argv, cwd, env, timeout):
    """(returncode or None on timeout, stdout, stderr, seconds)"""
    start = time.monotonic()
    try:
        p = subprocess.run(argv, cwd=cwd, env=env, timeout=timeout,
                           stdin=subprocess.DEVNULL, capture_output=True)
        return p.returncode, p.stdout, p.stderr, time.monotonic() - start
    except subprocess.TimeoutExpired as e:
        return None, e.stdout or b"", e.stderr or b"", time.monotonic() - start


def text(b):
    return b.decode("utf-8", "replace")


class Language:
    """One language's setup, file name, compile and run, upstream's verdicts."""

    def __init__(self, name, top, mode, timeout, suites):
        self.name, self.top, self.mode, self.timeout = name, top, mode, timeout
        self.suites = suites
        self.home = os.path.join(top, "home")
        os.makedirs(self.home, exist_ok=True)
        self.env = {"PATH": TOOL_PATH, "HOME": self.home, "LANG": "C.UTF-8",
                    "TMPDIR": os.path.join(top, "tmp")}
        os.makedirs(self.env["TMPDIR"], exist_ok=True)
        self.setup_seconds = 0.0

    def workdir(self, task_id):
        d = tempfile.mkdtemp(prefix=task_id.replace("/", "-") + "-", dir=self.run_root())
        return d

    def run_root(self):
        return self.top

    def setup(self):
        pass

    # (file name, compile argv or None, compile timeout)
    def compile_step(self, task_id):
        return None

    def score(self, task_id, wd):
        """Returns (result string, compile seconds, run seconds)."""
        raise NotImplementedError


class Python(Language):
    source = "prog.py"

    def score(self, task_id, wd):
        rc, out, err, secs = run(["python3", self.source], wd, self.env, self.timeout)
        if rc is None:
            return "timed out", 0.0, secs
        if rc == 0:
            return "passed", 0.0, secs
        last = text(err).strip().splitlines()[-1:] or ["exit %d" % rc]
        return "failed: " + last[0], 0.0, secs


class Cpp(Language):
    source = "test.cpp"

    def score(self, task_id, wd):
        argv = ["g++", "-std=c++11", "test.cpp"]
        if "162" in task_id:    # upstream links OpenSSL for this id only
            argv += ["-lcrypto", "-lssl"]
        rc, out, err, csecs = run(argv, wd, self.env, self.timeout)
        if rc is None:
            return "timed out", csecs, 0.0
        if rc != 0:
            return "failed: compilation error: " + text(err or out), csecs, 0.0
        rc, out, err, rsecs = run(["./a.out"], wd, self.env, self.timeout)
        if rc is None:
            return "timed out", csecs, rsecs
        if rc == 0:
            return "passed", csecs, rsecs
        return "failed: " + text(err or out), csecs, rsecs


# sbx's JVM flags (frontend/lang/lang_table.c JVM_FLAGS), -Xmx for 4 GiB (and its env)
JVM_FLAGS = ["-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-XX:CompressedClassSpaceSize=64m",
             "-XX:ReservedCodeCacheSize=64m", "-XX:MaxMetaspaceSize=192m", "-XX:-UsePerfData",
             "-XX:ActiveProcessorCount=2", "-Xmx3328m"]


class Java(Language):
    source = "Main.java"

    def setup(self):
        # The JVM writes its perf data under $TMPDIR/hsperfdata_USER: off.
        self.env["JAVA_TOOL_OPTIONS"] = "-XX:-UsePerfData"
        self.env["JDK_JAVA_OPTIONS"] = ""
        sbx = self.mode == "sbx"
        if sbx:
            self.env["MALLOC_ARENA_MAX"] = "2"
        self.javac = ["javac"] + (["-J" + f for f in JVM_FLAGS] +
                                  ["-encoding", "UTF-8", "-proc:none", "-d", "."] if sbx else [])
        self.java = ["java"] + (JVM_FLAGS + ["-Dfile.encoding=UTF-8"] if sbx else [])

    def score(self, task_id, wd):
        csecs, rc = 0.0, -1
        for _ in range(5):      # upstream retries a javac that took over 5 s
            rc, out, err, secs = run(self.javac + [os.path.join(wd, "Main.java")], wd, self.env, 5)
            csecs += secs
            if rc is not None:
                break
        if rc != 0:
            return "failed: compilation error", csecs, 0.0
        rc, out, err, rsecs = run(self.java + ["-cp", wd, "Main"], wd, self.env, self.timeout)
        if rc is None:
            return "time out", csecs, rsecs
        if rc == 0:
            return "passed", csecs, rsecs
        if rc == 1:
            if "AssertionError" in text(err):
                return "failed: wrong answer", csecs, rsecs
            return "failed: " + text(err), csecs, rsecs
        return "failed: unknown error", csecs, rsecs


class Js(Language):
    source = "test.js"

    def setup(self):
        # upstream: js-md5 installed with npm -g, NODE_PATH at it
        self.env["NODE_PATH"] = self.suites

    def score(self, task_id, wd):
        rc, out, err, secs = run(["node", "test.js"], wd, self.env, self.timeout)
        if rc is None:
            return "timed out", 0.0, secs
        # upstream: any output on stderr, then on stdout, is a failure;
        # the exit status is not looked at.
        if err:
            return "failed: " + text(err), 0.0, secs
        if out:
            return "failed: " + text(out), 0.0, secs
        return "passed", 0.0, secs


class Go(Language):
    source = "main_test.go"

    def run_root(self):
        return self.module

    def setup(self):
        # upstream's module (go.mod, go.sum, vendor/), programs in a
        # folder below it; a cache of our own (cold at the start).
        start = time.monotonic()
        self.module = os.path.join(self.top, "evaluation")
        os.makedirs(self.module)
        for f in ("go.mod", "go.sum"):
            shutil.copy(os.path.join(self.suites, f), self.module)
        with tarfile.open(os.path.join(self.suites, "vendor.tar.gz")) as t:
            t.extractall(self.module)
        self.env.update(GOCACHE=os.path.join(self.top, "gocache"),
                        GOPATH=os.path.join(self.top, "gopath"),
                        GOFLAGS="-mod=vendor", GOPROXY="off", GOTOOLCHAIN="local")
        if self.mode == "sbx":  # sbx's, cgo as upstream's image had it
            self.env["GOMAXPROCS"] = "2"
        else:
            self.env["CGO_ENABLED"] = "0"
        # A bare loop's cache is warm: build testify and the standard
        # packages the tests use once, as setup (upstream's `go test`
        # counts compiling within its time limit).
        warm = os.path.join(self.module, "warm")
        os.makedirs(warm)
        with open(os.path.join(warm, "warm_test.go"), "w") as f:
            f.write('package main\n\nimport (\n    "testing"\n'
                    '    "github.com/stretchr/testify/assert"\n)\n\n'
                    'func TestWarm(t *testing.T) { assert.New(t).Equal(1, 1) }\n')
        rc, out, err, _ = run(["go", "test", "warm_test.go"], warm, self.env, None)
        if rc != 0:
            sys.exit("humanevalx-plain: warming Go's cache failed:\n" + text(err or out))
        self.setup_seconds = time.monotonic() - start

    def score(self, task_id, wd):
        t = "-timeout=%ss" % self.timeout
        if self.mode == "upstream":
            rc, out, err, secs = run(["go", "test", t, "main_test.go"], wd, self.env, self.timeout)
            if rc is None:
                return "timed out", secs, 0.0
            return ("passed" if rc == 0 else "failed: " + text(err or out)), secs, 0.0
        rc, out, err, csecs = run(["go", "test", "-c", "-o", "main.test", "main_test.go"],
                                  wd, self.env, None)
        if rc != 0:
            return "failed: " + text(err or out), csecs, 0.0
        rc, out, err, rsecs = run(["./main.test", "-test.timeout=%ss" % self.timeout],
                                  wd, self.env, self.timeout)
        if rc is None:
            return "timed out", csecs, rsecs
        return ("passed" if rc == 0 else "failed: " + text(err or out)), csecs, rsecs


class Rust(Language):
    source = "prog.rs"
    CRATES = ("rand", "regex", "md5")

    def setup(self):
        # A cargo project on Debian's crate sources, offline; its
        # dependencies built once (the split mode links against them).
        start = time.monotonic()
        self.project = os.path.join(self.top, "rust")
        os.makedirs(os.path.join(self.project, "src", "bin"))
        os.makedirs(os.path.join(self.project, ".cargo"))
        shutil.copy(os.path.join(self.suites, "Cargo.toml"), self.project)
        with open(os.path.join(self.project, ".cargo", "config.toml"), "w") as f:
            f.write('[source.crates-io]\nreplace-with = "debian"\n'
                    '[source.debian]\ndirectory = "/usr/share/cargo/registry"\n')
        with open(os.path.join(self.project, "src", "bin", "setup.rs"), "w") as f:
            f.write("fn main(){}\n")
        self.env["CARGO_HOME"] = os.path.join(self.top, "cargo-home")
        rc, out, err, _ = run(["cargo", "build", "--offline", "--bin", "setup"],
                              self.project, self.env, None)
        if rc != 0:
            sys.exit("humanevalx-plain: building the Rust crates failed:\n" + text(err))
        deps = os.path.join(self.project, "target", "debug", "deps")
        self.deps = deps
        self.externs = []
        for c in self.CRATES:
            rlib = [f for f in os.listdir(deps) if f.startswith("lib%s-" % c) and f.endswith(".rlib")]
            if len(rlib) != 1:
                sys.exit("humanevalx-plain: %s: not one lib%s-*.rlib: %s" % (deps, c, rlib))
            self.externs += ["--extern", "%s=%s" % (c, os.path.join(deps, rlib[0]))]
        self.setup_seconds = time.monotonic() - start

    def score(self, task_id, wd):
        if self.mode == "upstream":
            return self.score_cargo(task_id, wd)
        argv = ["rustc", "--edition", "2021", "--test", "--crate-name", "prog",
                "-o", "prog", "-L", "dependency=" + self.deps] + self.externs + ["prog.rs"]
        if self.mode == "sbx":  # sbx's rust-test row
            argv[4:4] = ["-C", "strip=debuginfo"]
        rc, out, err, csecs = run(argv, wd, self.env, None)
        if rc != 0:
            return "failed: compilation error", csecs, 0.0
        rc, out, err, rsecs = run(["./prog"], wd, self.env, self.timeout)
        if rc is None:
            return "timed out", csecs, rsecs
        return ("passed" if rc == 0 else "failed: execution error"), csecs, rsecs

    def score_cargo(self, task_id, wd):
        # upstream: the program is src/bin/<task>.rs of one shared project,
        # `cargo check --bin` then `cargo test --bin` (one at a time here:
        # cargo locks the project's target dir).
        name = task_id.lower().replace("/", "_")
        dst = os.path.join(self.project, "src", "bin", name + ".rs")
        shutil.copy(os.path.join(wd, "prog.rs"), dst)
        try:
            rc, out, err, csecs = run(["cargo", "check", "--offline", "--bin", name,
                                       "--message-format", "json"], self.project, self.env, None)
            if rc != 0:
                return "failed: compilation error", csecs, 0.0
            rc, out, err, rsecs = run(["cargo", "test", "--offline", "--bin", name,
                                       "--message-format", "json"], self.project, self.env, None)
            return ("passed" if rc == 0 else "failed: execution error"), csecs, rsecs
        finally:
            os.unlink(dst)


CLASSES = {"python": Python, "cpp": Cpp, "java": Java, "js": Js, "go": Go, "rust": Rust}


def load(suites, lang):
    path = os.path.join(suites, "humaneval_%s.jsonl.gz" % lang)
    with gzip.open(path, "rt", encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def one_task(lang, problem):
    wd = lang.workdir(problem["task_id"])
    try:
        with open(os.path.join(wd, lang.source), "w", encoding="utf-8") as f:
            f.write(build_program(lang.name, problem, problem["canonical_solution"]))
        result, csecs, rsecs = lang.score(problem["task_id"], wd)
    finally:
        shutil.rmtree(wd, ignore_errors=True)
    return {"language": lang.name, "task_id": problem["task_id"], "result": result,
            "passed": result == "passed", "compile_s": round(csecs, 4), "run_s": round(rsecs, 4)}


def one_language(name, args, top, out):
    lang = CLASSES[name](name, os.path.join(top, name), args.mode, args.timeout, args.suites)
    lang.setup()
    problems = load(args.suites, name)
    if args.tasks:
        problems = [p for p in problems if p["task_id"] in args.tasks]
    jobs = 1 if (name == "rust" and args.mode == "upstream") else args.jobs
    start = time.monotonic()
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        results = list(pool.map(lambda p: one_task(lang, p), problems))
    wall = time.monotonic() - start
    for r in results:
        out.write(json.dumps(r) + "\n")
    return {"language": name, "tasks": len(results),
            "passed": sum(r["passed"] for r in results),
            "compile_s": sum(r["compile_s"] for r in results),
            "run_s": sum(r["run_s"] for r in results),
            "setup_s": lang.setup_seconds, "wall_s": wall,
            "failed": [(r["task_id"], r["result"]) for r in results if not r["passed"]]}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--languages", default=",".join(LANGUAGES))
    ap.add_argument("--suites", default=os.path.join(REPO, "suites", "humaneval-x"))
    ap.add_argument("--mode", choices=("split", "upstream", "sbx"), default="split")
    ap.add_argument("--timeout", type=float, default=5.0,
                    help="seconds a run may take (upstream's scripts/evaluate_humaneval_x.sh: 5)")
    ap.add_argument("-j", "--jobs", type=int, default=1)
    ap.add_argument("--tasks", type=lambda s: set(s.split(",")), default=None,
                    help="only these task ids (comma-separated)")
    ap.add_argument("--out", help="one JSON line per task here")
    ap.add_argument("--keep", action="store_true", help="keep the temporary directory")
    args = ap.parse_args()
    langs = args.languages.split(",")
    for name in langs:
        if name not in CLASSES:
            ap.error("unknown language %r (one of %s)" % (name, ", ".join(LANGUAGES)))
    top = tempfile.mkdtemp(prefix="humanevalx-plain-")
    out = open(args.out, "w") if args.out else open(os.devnull, "w")
    rows = []
    try:
        for name in langs:
            rows.append(one_language(name, args, top, out))
            r = rows[-1]
            print("%-7s %3d/%3d passed  compile %7.2f s  run %7.2f s  setup %5.2f s  "
                  "wall %7.2f s  %6.2f samples/s" % (
                      name, r["passed"], r["tasks"], r["compile_s"], r["run_s"], r["setup_s"],
                      r["wall_s"], r["tasks"] / r["wall_s"] if r["wall_s"] else 0), flush=True)
            for tid, res in r["failed"]:
                first = res.strip().splitlines()[0][:160] if res.strip() else res
                print("    %s: %s" % (tid, first), flush=True)
    finally:
        out.close()
        if args.keep:
            print("humanevalx-plain: kept %s" % top, file=sys.stderr)
        else:
            shutil.rmtree(top, ignore_errors=True)
    print("mode %s, timeout %g s, -j%d, %s" % (args.mode, args.timeout, args.jobs,
                                               ", ".join(tool_versions(langs))))


def tool_versions(langs):
    cmds = {"python": ["python3", "--version"], "cpp": ["g++", "-dumpfullversion"],
            "java": ["javac", "-version"], "js": ["node", "--version"],
            "go": ["go", "env", "GOVERSION"], "rust": ["rustc", "--version"]}
    res = []
    for lang in langs:
        p = subprocess.run(cmds[lang], capture_output=True, env={"PATH": TOOL_PATH, "HOME": "/"})
        res.append("%s %s" % (lang, text(p.stdout or p.stderr).strip()))
    return res


if __name__ == "__main__":
    main()
