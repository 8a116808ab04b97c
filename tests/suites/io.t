#!/bin/bash
# The io suite kind (suites/io/, docs/suites.md "Input/output suites"): each
# comparison and each verdict with a real program (tests/suites/io.py: a
# right answer given slowly, too much output, a crash after a right answer,
# reading past the input, a checker that loops, crashes or fails), in the
# helper tier warm (a fresh candidate a test) and the bwrap tier cold, and
# what a cheating sample can reach: in the helper and bwrap tiers neither
# the answers nor the other tests' inputs, nor a status line to forge; in
# every tier the same argv, environment, paths and cwd in every test.
. "$(dirname "$0")/../lib/lib.sh"
require_test_root
D=$(user_tmpdir)
chmod 0755 "$D"
"$HOST_PY" "$SBX_TEST_ROOT/tests/suites/io.py" make "$D"
chmod -R a+rX "$D"

# sbx TIER ARGS...: an io suite run as the test user; sets rc.
sbx() {
        local tier=$1; shift
        rc=0
        as_user env SBX_HELPER="$SBX_HELPER" timeout -k 5 600 "$SBX_RUN" --tier "$tier" \
                --no-progress --suite io --problems "$D/problems.jsonl" "$@" > "$D/out" 2> "$D/err" || rc=$?
}
# each RESULTS DESCRIPTION [NAME...]: one TAP line per sample io.py checks.
each() {
        local res=$1 what=$2; shift 2
        while IFS= read -r line; do
                case $line in
                ok\ *) ok "$what: ${line#ok }" ;;
                *) not_ok "$what: ${line#not ok }" ;;
                esac
        done < <("$HOST_PY" "$SBX_TEST_ROOT/tests/suites/io.py" check "$res" "$@")
}

tiers="bwrap"
[ -u "$SBX_HELPER" ] && tiers="helper bwrap"
for t in $tiers; do
        mode=--warm; [ "$t" = bwrap ] && mode=--cold
        sbx "$t" $mode --samples "$D/samples.jsonl" --out "$D/$t.jsonl" -j 2 --test-timeout 1 --memory 1G \
                --summary "$D/$t.summary.json"
        is "$t ${mode#--}: the suite ran to its end (rc $rc)" "$rc" 0 || diag "$(tail -5 "$D/err")"
        each "$D/$t.jsonl" "$t ${mode#--}"
done
# the warm run went warm, test after test
check "helper warm: every run went through a zygote but the two checkers of the 20 MB test (too large to copy)" "$HOST_PY" -c '
import json, sys
w = json.load(open(sys.argv[1]))["warm"]
sys.exit(not (w["cold"] == 2 and w["warm"] > 80))' "$D/helper.summary.json"

check "the summary's io section counts the verdicts and the test runs, as the lines do" "$HOST_PY" -c '
import json, sys
io = json.load(open(sys.argv[1]))["io"]
rows = [json.loads(l) for l in open(sys.argv[2])]
want = {}
for r in rows:
    want[r["verdict"]] = want.get(r["verdict"], 0) + 1
assert io["verdicts"] == want, (io, want)
assert io["tests_run"] == sum(r["tests_run"] for r in rows)' "$D/bwrap.summary.json" "$D/bwrap.jsonl"
check "the text summary says the io verdicts" grep -q "io verdicts: accepted" "$D/out"

# The line a sample's verdict is recorded in.
check "a line records the io fields, the comparison and the limit" "$HOST_PY" -c '
import json, sys
r = {json.loads(l)["name"]: json.loads(l) for l in open(sys.argv[1])}
w, o = r["wrong-on-test-1"], r["right"]
assert w["result"].startswith("failed: wrong answer on test 1: line 1") and w["status"] == "ok", w
assert (w["tests_passed"], w["tests_run"], w["tests_total"]) == (1, 2, 3), w
assert o["result"] == "passed" and o["compare"] == "lines" and o["time_limit_s"] == 1, o
assert r["right-slowly"]["result"] == "timed out" and r["syntax-error"]["result"].startswith("failed: compile error")
assert r["checker-loops"]["status"] == "error" and "checker did not finish" in r["checker-loops"]["result"]
assert "ZeroDivisionError" in r["crash-after-answer"]["stderr_tail"]' "$D/bwrap.jsonl"

# --all-tests: every test run and recorded, one letter each.
sbx bwrap --samples "$D/samples.jsonl" --tasks sum --all-tests --test-timeout 1 --memory 1G --out "$D/all.jsonl" -j 2
check "--all-tests: every test's verdict, one letter a test" "$HOST_PY" -c '
import json, sys
r = {json.loads(l)["name"]: json.loads(l) for l in open(sys.argv[1])}
assert r["wrong-on-test-1"]["test_verdicts"] == "AWA" and r["wrong-on-test-1"]["tests_run"] == 3, r["wrong-on-test-1"]
assert r["right"]["test_verdicts"] == "AAA" and r["right"]["passed"]
assert r["wrong"]["test_verdicts"] == "WWW" and r["wrong"]["failed_test"] == 0
assert r["syntax-error"]["verdict"] == "compile_error" and r["syntax-error"]["tests_run"] == 0' "$D/all.jsonl"

# --shard: a sample is the unit; the shards' results merge into the whole.
grep -E '"task_id": "(exact|lines|tokens|floats|lcb|sandboxfusion|sf-float|divisor)"' "$D/samples.jsonl" \
        > "$D/shard-samples.jsonl"
chmod 0644 "$D/shard-samples.jsonl"
for i in 0 1; do
        sbx bwrap --samples "$D/shard-samples.jsonl" --allow-partial --shard "$i/2" --out "$D/shard$i.jsonl" -j 2
done
as_user "$SBX_RUN" merge --json --out "$D/merged.jsonl" "$D/shard0.jsonl" "$D/shard1.jsonl" > "$D/merged.json" 2> "$D/merge.err"
check "--shard 0/2 and 1/2 merged: every sample once, its verdict the unsharded run's" "$HOST_PY" -c '
import json, sys
full = {json.loads(l)["name"]: json.loads(l) for l in open(sys.argv[1])}
merged = [json.loads(l) for l in open(sys.argv[2])]
names = [r["name"] for r in merged]
assert len(names) == len(set(names)) == 16, names
for r in merged:
    assert (r["verdict"], r["failed_test"]) == (full[r["name"]]["verdict"], full[r["name"]]["failed_test"]), r
assert json.load(open(sys.argv[3]))["passed"] == sum(r["passed"] for r in merged)' \
        "$D/bwrap.jsonl" "$D/merged.jsonl" "$D/merged.json"

# The same argv, environment, paths, cwd and stdin's name in every test:
# a cold run in the unshare tier (no private /tmp) can leave what it saw
# where the next test's run reads it, and every test saw the same. (A
# warm run, in any tier, sees the host read-only and /tmp its own: it can
# leave nothing; its run spec is the same as a cold run's.)
cat > "$D/view-samples.jsonl" <<EOF
{"task_id": "marks", "name": "view", "solution": $("$HOST_PY" -c 'import json,sys; print(json.dumps(sys.stdin.read()))' <<PY
import json, os, sys
mine = sys.stdin.read()
view = [sys.argv, sorted(os.environ.items()), os.getcwd(), sorted(os.listdir(".")),
        os.readlink("/proc/self/fd/0"), open("/proc/self/cmdline", "rb").read().decode(), __file__]
with open("$D/views.log", "a") as f:
    f.write(json.dumps(view) + "\n")
print(mine.replace("IN", "OUT"), end="")
PY
)}
EOF
for mode in cold; do
        : > "$D/views.log"; chmod 0666 "$D/views.log"
        sbx unshare --$mode --samples "$D/view-samples.jsonl" --out "$D/view-$mode.jsonl" --all-tests
        check "unshare $mode: the view sample passed its 3 tests" grep -q '"test_verdicts": *"AAA"' "$D/view-$mode.jsonl"
        check "unshare $mode: each test saw the same argv, environment, paths, cwd and stdin name" "$HOST_PY" -c '
import sys
lines = open(sys.argv[1]).read().splitlines()
sys.exit(not (len(lines) == 3 and len(set(lines)) == 1))' "$D/views.log" || diag "$(cat "$D/views.log")"
done

# Options that cannot be right are refused before anything runs.
for bad in "--compare nope" "--checker $D/missing.py" "--io-format nope" "--time-scale 0" "--test-timeout -1"; do
        # shellcheck disable=SC2086
        sbx bwrap --canonical $bad
        check "$bad: refused, exit 2 (rc $rc)" test "$rc" = 2
done
as_user "$SBX_RUN" --suite humaneval --problems "$SBX_DATA/humaneval/HumanEval.jsonl.gz" --canonical \
        --all-tests > /dev/null 2> "$D/err" && rc=0 || rc=$?
check "--all-tests with a suite that is not io: refused, exit 2" \
        bash -c '[ "$1" = 2 ] && grep -q "are for io suites" "$2"' _ "$rc" "$D/err"
# --canonical: a problem's own reference solution (sbx's canonical_solution,
# APPS's first solution); a row without one is named.
printf '%s\n' '{"task_id": "c", "tests": [{"input": "2 3\n", "output": "5\n"}], "canonical_solution": "print(sum(map(int, input().split())))\n"}' \
        > "$D/canon.jsonl"; chmod 0644 "$D/canon.jsonl"
rc=0
as_user "$SBX_RUN" --tier bwrap --no-progress --suite io --problems "$D/canon.jsonl" --canonical \
        --out "$D/canon_results.jsonl" > /dev/null 2>&1 || rc=$?
check "--canonical runs a problem's own reference solution (rc $rc)" grep -q '"verdict": *"accepted"' "$D/canon_results.jsonl"
rc=0
as_user "$SBX_RUN" --suite codecontests --problems "$SBX_DATA/codecontests/code_eval_code_contests.jsonl" \
        --canonical > /dev/null 2> "$D/err" || rc=$?
check "--canonical where the rows carry no solution: exit 2, naming the task and what is missing" \
        bash -c '[ "$1" = 2 ] && grep -q "task 0 has no string \"reference_solution\"" "$2"' _ "$rc" "$D/err"
printf '{"task_id": "x", "prompt": "no tests here"}\n' > "$D/notio.jsonl"; chmod 0644 "$D/notio.jsonl"
rc=0
as_user "$SBX_RUN" --suite io --problems "$D/notio.jsonl" --canonical > /dev/null 2> "$D/err" || rc=$?
check "a row that is no input/output problem: exit 2, naming the file and line" \
        bash -c '[ "$1" = 2 ] && grep -q "notio.jsonl:1: not an input/output problem" "$2"' _ "$rc" "$D/err"
done_testing
