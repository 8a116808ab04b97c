#!/usr/bin/env python3
"""The frontend's layout, checked on the built objects and the sources
(make check: frontend-layout-check in frontend/frontend.mk).

  frontend/layout.py BUILD

Calls go down the layers (LAYERS below), never up, and no two files call
into each other. Who calls whom is read from `nm` of BUILD's objects (a
function named in a table counts too: the table holds its address), so
what is checked is what the linker sees. It fails, naming the files and
the symbols, when
  - an object calls into a folder above its own,
  - files call each other in a circle (two or more, in a folder too),
  - a file includes a header of a folder above its own (a folder may
    include its parent's: the interface its rows implement, suite_ops.h),
  - a file of a face (serve/http/, cli/, serve/) includes a library header that is not
    one of libsbx's public ones (LIBSBX_PUBLIC_HEADERS, in the environment),
  - a folder of frontend/ has no place in LAYERS,
  - a .c with its header of the same name passes MAX_FILE_LINES lines, or
    a folder holds more than MAX_FOLDER_FILES files.
"""
import os
import re
import subprocess
import sys

# The folders of frontend/, top to bottom: each may call the ones below it,
# never one above. A new folder gets its line at its place.
LAYERS = [
    "serve/http",       # sbx-http, the HTTP server (it reads sandbox options with cli/'s parser)
    "cli",              # sbx-run's command line
    "serve",            # --serve (and the HTTP server)
    "suites",           # the suite table and kinds: loading, building, scoring
    "suites/evalplus",  # evalplus's native form
    "suites/io",        # input/output problems: the kind, the judge, checkers (issue 33)
    "suites/io/formats",  # input/output problems as each benchmark writes them
    "suites/io/compare",  # comparing a program's output with the answer
    "suites/driver",    # the trusted driver and its markers
    "lang",             # the language table (issue 32)
    "results",          # result lines, verdicts, pass@k, summaries
    "sandbox",          # the run engine
    "sandbox/interp",   # the interpreter and its venv
    "warm",             # the warm backend: the zygote pool
    "sandbox/tiers",    # one row per tier
    "util",             # leaf code
]
FACES = ("serve/http", "cli", "serve")
SKIP = ("warm/zygote",)         # built apart: sbx-run-init, the candidate, Python
MAX_FILE_LINES = 600
MAX_FOLDER_FILES = 20
RANK = {f: i for i, f in enumerate(LAYERS)}


def rel(path, top):
    """'BUILD/frontend/suites/x.o' -> 'suites/x.o'"""
    return os.path.relpath(path, top)


def skipped(folder):
    return any(folder == s or folder.startswith(s + "/") for s in SKIP)


def walk(top, exts):
    for d, dirs, files in os.walk(top):
        dirs.sort()
        folder = rel(d, top)
        if folder == "." or skipped(folder):
            continue
        for f in sorted(files):
            if f.endswith(exts):
                yield folder, f


def read_calls(build):
    top = os.path.join(build, "frontend")
    objs = [os.path.join(top, d, f) for d, f in walk(top, (".o",))]
    if not objs:
        return None, None
    out = subprocess.run(["nm", "-P", "-A"] + objs, check=True,
                         capture_output=True, text=True).stdout
    defined, used = {}, {}
    for line in out.splitlines():
        # nm -P -A: "OBJECT: NAME TYPE [VALUE SIZE]"
        m = re.match(r"(\S+?):\s+(\S+)\s+(\S)", line)
        if not m:
            continue
        obj, name, kind = m.group(1), m.group(2), m.group(3)
        obj = rel(obj, top)
        if kind == "U":
            used.setdefault(obj, set()).add(name)
        elif kind in "TDRBVWGSC":
            defined[name] = obj
    calls = {}
    for obj, names in used.items():
        for name in sorted(names):
            to = defined.get(name)
            if to and to != obj:
                calls.setdefault(obj, {}).setdefault(to, []).append(name)
    return [rel(o, top) for o in objs], calls


def circles(calls, nodes):
    """Strongly connected components of more than one node (Tarjan's)."""
    index, low, stack, on, found = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(calls.get(v, {})):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(nodes):
        if v not in index:
            visit(v)
    return found


def src(obj):
    return "frontend/" + obj[:-2] + ".c"


def check_calls(objs, calls, faults):
    across = 0
    for obj in objs:
        if os.path.dirname(obj) not in RANK:
            faults.append(f"frontend/{os.path.dirname(obj)}/ has no place in LAYERS "
                          "(frontend/layout.py): give it its line")
    for obj, tos in sorted(calls.items()):
        for to, names in sorted(tos.items()):
            a, b = os.path.dirname(obj), os.path.dirname(to)
            if a == b or a not in RANK or b not in RANK:
                continue
            across += 1
            if RANK[a] > RANK[b]:
                faults.append(f"{src(obj)} calls up into {src(to)} ({a}/ is below "
                              f"{b}/): {', '.join(names)}")
    for comp in circles(calls, objs):
        ties = [f"{src(a)} -> {src(b)}: {', '.join(calls[a][b])}"
                for a in comp for b in comp if b in calls.get(a, {})]
        faults.append("a circle of files: " + "; ".join(ties))
    return across


def check_sources(root, faults):
    top = os.path.join(root, "frontend")
    headers = {}
    for folder, f in walk(top, (".h",)):
        headers.setdefault(f, folder)
    public = {os.path.basename(h) for h in os.environ.get("LIBSBX_PUBLIC_HEADERS", "").split()}
    if not public:
        faults.append("LIBSBX_PUBLIC_HEADERS is not set (frontend/frontend.mk passes it)")
    counts = {}
    for folder, f in walk(top, (".c", ".h", ".py", ".S", ".md")):
        counts[folder] = counts.get(folder, 0) + 1
        path = os.path.join(top, folder, f)
        if f.endswith(".c"):
            h = os.path.join(top, folder, f[:-2] + ".h")
            n = sum(1 for p in (path, h) if os.path.exists(p) for _ in open(p))
            if n > MAX_FILE_LINES:
                faults.append(f"frontend/{folder}/{f[:-2]}.[ch] is {n} lines, over "
                              f"{MAX_FILE_LINES}: split it along what it does")
        if not f.endswith((".c", ".h")):
            continue
        for i, line in enumerate(open(path), 1):
            m = re.match(r'\s*#\s*include\s+"([^"]+)"', line)
            to = headers.get(os.path.basename(m.group(1))) if m else None
            if to is None or to == folder or folder not in RANK or to not in RANK:
                continue
            name = os.path.basename(m.group(1))
            if folder in FACES and to not in FACES and name not in public:
                faults.append(f"frontend/{folder}/{f}:{i}: includes frontend/{to}/{name}, "
                              "which is not one of libsbx's public headers "
                              "(LIBSBX_PUBLIC_HEADERS, frontend/frontend.mk)")
            elif RANK[to] < RANK[folder] and to != os.path.dirname(folder):
                faults.append(f"frontend/{folder}/{f}:{i}: includes frontend/{to}/{name}, "
                              f"a header of a folder above ({to}/)")
    for folder, n in sorted(counts.items()):
        if n > MAX_FOLDER_FILES:
            faults.append(f"frontend/{folder}/ holds {n} files, over {MAX_FOLDER_FILES}: "
                          "give a part of it a folder of its own")


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    objs, calls = read_calls(sys.argv[1])
    if objs is None:
        print(f"layout: no objects under {sys.argv[1]}/frontend: build first", file=sys.stderr)
        return 1
    faults = []
    across = check_calls(objs, calls, faults)
    check_sources(".", faults)
    for f in faults:
        print(f"layout: {f}", file=sys.stderr)
    if faults:
        print(f"layout: {len(faults)} fault(s); the layers and their order: "
              "frontend/README.md", file=sys.stderr)
        return 1
    print(f"layout: ok: {len(objs)} objects in {len({os.path.dirname(o) for o in objs})} "
          f"folders, {across} calls between folders, all down; no circle")
    return 0


if __name__ == "__main__":
    sys.exit(main())
