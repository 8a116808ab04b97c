#!/bin/bash
# io samples in the languages of the language table (docs/suites.md,
# "Input/output suites"): a sample's "language" (or --language) has its
# program built once by lang/ (the compile the judge's first run, in the
# sample's slot) and run once a test from the built artifact, with the
# problem's limits. On the shipped CodeContests problem 1000_A (task 3,
# 102 tests), as the test user, in the helper and bwrap tiers (bwrap alone
# without the setuid helper), each with a compile cache of its own:
# accepted solutions in C++, Java, Go, Rust and JavaScript (whichever
# toolchains are installed: the others are skipped, saying so; CI fails
# them), a wrong answer, a compile error (compile_error, counted, and
# cached), a C++ program past the time limit, one that crashes after a
# right answer, a C++ and a Java one past the memory limit; a Python
# sample beside them stays Python. The C++ samples' verdicts and first
# failing tests equal a plain loop's (g++, then each test's input on stdin
# under `timeout` and `ulimit -v`, the output compared as SandboxFusion
# compares).
. "$(dirname "$0")/../lib/lib.sh"
require_test_root
S=$SBX_TEST_ROOT/tests/suites/io-lang
CC=$SBX_DATA/codecontests
D=$(user_tmpdir)
chmod 0755 "$D"
have_toolchain g++ || done_testing

# sample NAME LANGUAGE FILE: one samples line (LANGUAGE "-": none)
sample() {
        "$HOST_PY" - "$1" "$2" "$3" <<'PY'
import json, sys
name, lang, path = sys.argv[1:]
o = {"task_id": "3", "sample": name, "solution": open(path).read()}
if lang != "-":
    o["language"] = int(lang) if lang.isdigit() else lang
print(json.dumps(o))
PY
}
{
        sample cpp-accepted cpp "$S/accepted.cpp"
        sample cpp-wrong c++ "$S/wrong.cpp"
        sample cpp-compile-error cpp "$S/compile_error.cpp"
        sample cpp-slow cpp "$S/slow.cpp"
        sample cpp-crash cpp "$S/crash.cpp"
        sample cpp-memory cpp "$S/memory.cpp"
        "$HOST_PY" -c 'import json, sys
for l in open(sys.argv[1]):
    o = json.loads(l)
    if o["task_id"] == "3":
        print(json.dumps({"task_id": "3", "sample": "python", "language": "python3", "solution": o["solution"]}))' \
                "$CC/reference_solutions.jsonl"
} > "$D/samples.jsonl"
langs="cpp python"
if have_toolchain javac java; then
        sample java-accepted java "$S/Accepted.java" >> "$D/samples.jsonl"
        sample java-memory java "$S/Memory.java" >> "$D/samples.jsonl"
        langs="$langs java"
fi
have_toolchain go && sample go-accepted golang "$S/accepted.go" >> "$D/samples.jsonl" && langs="$langs go"
have_toolchain rustc && sample rust-accepted rust "$S/accepted.rs" >> "$D/samples.jsonl" && langs="$langs rust"
have_toolchain node && sample js-accepted javascript "$S/accepted.js" >> "$D/samples.jsonl" && langs="$langs js"
chmod 0644 "$D/samples.jsonl"

tiers=bwrap
[ -u "$SBX_HELPER" ] && tiers="helper bwrap"
# sbx OUT SAMPLES [ARGS...]: the codecontests suite on task 3 as the test
# user in $tier, with a compile cache of this test's and tier's own; sets rc.
sbx() {
        local out=$1 samples=$2; shift 2
        rc=0
        as_user env SBX_HELPER="$SBX_HELPER" SBX_CACHE="$D/cache-$tier" timeout -k 5 900 "$SBX_RUN" \
                --tier "$tier" --no-progress --suite codecontests \
                --problems "$CC/code_eval_code_contests.jsonl" --samples "$samples" --tasks 3 \
                --allow-partial --test-timeout 2 --memory 1G -j 2 --out "$out" "$@" \
                > "$D/stdout" 2> "$D/err" || rc=$?
}

# expect NAME VERDICT FAILED_TEST LANGUAGE BUILD: the sample's line in
# $tier's results says so
# (FAILED_TEST "-": none; BUILD "-": no compile field, else its status).
expect() {
        local r
        r=$("$HOST_PY" - "$D/$tier.jsonl" "$@" <<'PY'
import json, sys
path, name, verdict, failed, lang, build = sys.argv[1:]
rows = {}
for l in open(path):
    o = json.loads(l)
    rows[o["sample"]] = o
r = rows.get(name)
if r is None:
    print("no line")
    sys.exit(1)
got = (r.get("verdict"), str(r.get("failed_test")) if r.get("failed_test") is not None else "-",
       r.get("language"), (r.get("compile") or {}).get("status", "-"))
want = (verdict, failed, lang, build)
if got != want:
    print("got %s, want %s: %s" % (got, want, r.get("result", "")[:300]))
    sys.exit(1)
if verdict == "accepted" and not (r["passed"] and r["tests_passed"] == r["tests_total"] == 102):
    print("accepted but %s" % r)
    sys.exit(1)
PY
) && ok "$tier: $1: $2${3/#-/}" || not_ok "$tier: $1: $2 ($r)"
}
for tier in $tiers; do
        sbx "$D/$tier.jsonl" "$D/samples.jsonl" --summary "$D/$tier-summary.json"
        is "$tier: the suite ran to its end (rc $rc; $langs)" "$rc" 0 || diag "$(tail -5 "$D/err")"
        expect cpp-accepted accepted - cpp compiled
        expect cpp-wrong wrong_answer 3 cpp compiled
        expect cpp-compile-error compile_error - cpp compile_error
        expect cpp-slow time_limit 0 cpp compiled
        expect cpp-crash runtime_error 0 cpp compiled
        expect cpp-memory memory_limit 0 cpp compiled
        expect python accepted - python -
        case $langs in *java*) expect java-accepted accepted - java compiled
                               expect java-memory memory_limit 0 java compiled ;; esac
        case $langs in *go*) expect go-accepted accepted - go compiled ;; esac
        case $langs in *rust*) expect rust-accepted accepted - rust compiled ;; esac
        case $langs in *js*) expect js-accepted accepted - js - ;; esac

        check "$tier: the compile error's line has the compiler's exit status, its first error and its output's tail" \
                "$HOST_PY" -c '
import json, sys
r = [o for o in map(json.loads, open(sys.argv[1])) if o["sample"] == "cpp-compile-error"][0]
assert r["tests_run"] == 0 and not r["passed"], r
assert r["compile"]["detail"] == "exit status 1" and "undeclared_name" in r["stderr_tail"], r
assert r["result"].startswith("failed: compile error: exit status 1: ") and "undeclared_name" in r["result"], r["result"]' \
                "$D/$tier.jsonl"
        check "$tier: the summary counts the compile error among the io verdicts" "$HOST_PY" -c '
import json, sys
io = json.load(open(sys.argv[1]))["io"]
assert io["verdicts"].get("compile_error") == 1, io' "$D/$tier-summary.json"
done

# The plain loop: the same C++ programs built with g++ -O2, each test's
# input on stdin under `timeout 2` and `ulimit -v 1G`, the output compared
# as SandboxFusion does (lines stripped and lower-cased; this problem's
# answers are integers), stopping at the first failure.
mkdir -p "$D/plain"
"$HOST_PY" - "$CC/code_eval_code_contests.jsonl" "$S" "$D/plain" > "$D/plain.txt" <<'PY'
import json, os, subprocess, sys
rows, src, out = sys.argv[1:]
tests = next(json.loads(r["test"]) for r in map(json.loads, open(rows)) if r["id"] == 3)
def same(a, b):
    a, b = a.strip().split("\n"), b.strip().split("\n")
    return len(a) == len(b) and all(x.strip().lower() == y.strip().lower() for x, y in zip(a, b))
for name in ("accepted", "wrong", "compile_error", "slow", "crash", "memory"):
    exe = os.path.join(out, name)
    if subprocess.run(["g++", "-std=c++17", "-O2", "-o", exe, os.path.join(src, name + ".cpp")],
                      capture_output=True).returncode:
        print("cpp-%s -" % name.replace("_", "-"))
        continue
    first = "pass"
    for i, t in enumerate(tests):
        p = subprocess.run(["bash", "-c", 'ulimit -v 1048576; exec timeout 2 "$0"', exe],
                           input=t["input"]["stdin"].encode(), capture_output=True)
        if p.returncode or not same(p.stdout.decode(errors="replace"), t["output"]["stdout"]):
            first = str(i)
            break
    print("cpp-%s %s" % (name.replace("_", "-"), first))
PY
for tier in $tiers; do
        check "$tier: a plain loop's verdicts (first failing test) equal sbx's on every C++ sample: $(tr '\n' ' ' < "$D/plain.txt")" \
                "$HOST_PY" -c '
import json, sys
rows = {o["sample"]: o for o in map(json.loads, open(sys.argv[1]))}
for line in open(sys.argv[2]):
    name, first = line.split()
    r = rows[name]
    sbx = "-" if r["verdict"] == "compile_error" else "pass" if r["passed"] else str(r["failed_test"])
    assert sbx == first, (name, sbx, first)' "$D/$tier.jsonl" "$D/plain.txt"
done

# Again, the same sources: built from the compile cache (its compile error
# too), their language from --language (or CodeContests' number: 2 is C++).
{
        sample cpp-accepted - "$S/accepted.cpp"
        sample cpp-compile-error - "$S/compile_error.cpp"
        sample cpp-numbered 2 "$S/accepted.cpp"
} > "$D/again.jsonl"
chmod 0644 "$D/again.jsonl"
sbx "$D/again-results.jsonl" "$D/again.jsonl" --language cpp
is "$tier: --language cpp, again: ran to its end (rc $rc)" "$rc" 0 || diag "$(tail -5 "$D/err")"
check "$tier: --language cpp, again: from the compile cache, the same verdicts" "$HOST_PY" -c '
import json, sys
rows = {o["sample"]: o for o in map(json.loads, open(sys.argv[1]))}
a, e, n = rows["cpp-accepted"], rows["cpp-compile-error"], rows["cpp-numbered"]
assert a["verdict"] == "accepted" and a["compile"]["status"] == "cached" and a["language"] == "cpp", a
assert n["verdict"] == "accepted" and n["language"] == "cpp", n
assert e["verdict"] == "compile_error" and e["compile"]["cached"] is True, e["compile"]' "$D/again-results.jsonl"

# A C++ cheat (tests/suites/io-lang/cheat.cpp) looks for the problem file
# and for fds sbx-run left open: in the helper and bwrap tiers it finds
# neither (wrong_answer); in the unshare tier, which shows the host's
# files, it reads the problem file (runtime_error): the check can fail.
"$HOST_PY" - "$S/cheat.cpp" "$CC/code_eval_code_contests.jsonl" > "$D/cheat.jsonl" <<'PY'
import json, sys
src = open(sys.argv[1]).read().replace("open(PROBLEMS", "open(%s" % json.dumps(sys.argv[2]))
print(json.dumps({"task_id": "3", "sample": "cheat", "language": "cpp", "solution": src}))
PY
chmod 0644 "$D/cheat.jsonl"
for t in $tiers unshare; do
        tier=$t sbx "$D/cheat-$t.jsonl" "$D/cheat.jsonl"
        want=wrong_answer; [ "$t" = unshare ] && want=runtime_error
        check "$t: the C++ cheat: $want (rc $rc)" \
                grep -q "\"verdict\": *\"$want\"" "$D/cheat-$t.jsonl"
done
[ "$want" = runtime_error ] && check "unshare: ... because it read the problem file" \
        grep -q "read the problem file" "$D/cheat-unshare.jsonl"

# --canonical's reference solutions are Python's, whatever --language says.
printf '%s\n' '{"task_id": "c", "tests": [{"input": "2 3\n", "output": "5\n"}], "canonical_solution": "print(sum(map(int, input().split())))\n"}' \
        > "$D/canon.jsonl"; chmod 0644 "$D/canon.jsonl"
rc=0
as_user env SBX_HELPER="$SBX_HELPER" SBX_CACHE="$D/cache-$tier" "$SBX_RUN" --tier "$tier" --no-progress \
        --suite io --problems "$D/canon.jsonl" --canonical --language cpp --out "$D/canon_results.jsonl" \
        > /dev/null 2> "$D/err" || rc=$?
check "--canonical --language cpp: the reference solution runs as Python, accepted (rc $rc)" \
        grep -q '"verdict": *"accepted"' "$D/canon_results.jsonl"

# --dump writes each program with its language's ending, running nothing.
sbx "$D/dump-results.jsonl" "$D/samples.jsonl" --dump "$D/dump"
check "--dump: each program with its language's ending (rc $rc: $(ls "$D/dump" 2>/dev/null | head -8 | tr '\n' ' '))" \
        bash -c '[ "$1" = 0 ] && [ -f "$2/3_0.cpp" ] && [ -f "$2/3_6.py" ] && grep -q "std::cin" "$2/3_0.cpp"' \
        _ "$rc" "$D/dump"

# A language sbx does not know: refused before anything runs, naming the line.
printf '%s\n' '{"task_id": "3", "solution": "x", "language": "cobol"}' > "$D/bad.jsonl"
chmod 0644 "$D/bad.jsonl"
sbx "$D/bad-results.jsonl" "$D/bad.jsonl"
check "an unknown language: exit 2 (rc $rc), naming the samples file and line" \
        bash -c '[ "$1" = 2 ] && grep -q "bad.jsonl:1: language \"cobol\": unknown" "$2"' _ "$rc" "$D/err"
check "... and no results file" test ! -e "$D/bad-results.jsonl"
done_testing
