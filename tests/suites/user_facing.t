#!/bin/bash
# Issue 12's user-facing behaviour through sbx-run itself: the shipped
# problem files without --problems, partial runs flagged, results valid
# JSON whatever the bytes, a truncated .gz named, bigcode and evalplus
# sample forms, stderr tail and exception type, --tasks and --dump, an
# interrupted run (exit 130, partial pass@k), resume's progress count,
# the refusal to run candidates as root, and --help's suite list.
. "$(dirname "$0")/../lib/lib.sh"
require_test_root
HE=$SBX_DATA/humaneval
D=$(user_tmpdir)
export SBX_EXTRA_ENV="SBX_SUITES_DIR=$SBX_DATA"
mk() { cat > "$D/$1"; chown "$SBX_TEST_USER:" "$D/$1"; }
# field FILE EXPR: a Python expression over the JSON object s read from FILE
field() { $HOST_PY -c 'import json,sys; s=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2" 2>&1; }
# sbx NAME ARGS...: sbx-run as the test user, stdout/stderr in $D/NAME.{out,err}, rc set
sbx() {
        local name=$1; shift
        rc=0
        as_user timeout -k 5 300 "$SBX_RUN" "$@" --no-progress > "$D/$name.out" 2> "$D/$name.err" || rc=$?
}

# --- the shipped problem files: no --problems for built-in suites
sbx shipped --suite humaneval --canonical --tasks HumanEval/0,HumanEval/2 \
        --out "$D/shipped.jsonl" --summary "$D/shipped.json"
is "humaneval without --problems: exit 0" "$rc" 0
is "humaneval without --problems: the shipped file is read, and recorded" \
        "$(field "$D/shipped.json" 's["problems_file"]["path"]')" "$SBX_DATA/humaneval/HumanEval.jsonl.gz"
is "the summary records its sha256" "$(field "$D/shipped.json" 's["problems_file"]["sha256"]')" \
        "$(sha256sum < "$SBX_DATA/humaneval/HumanEval.jsonl.gz" | cut -d' ' -f1)"
is "--tasks ran only the two tasks (2/2 passed)" \
        "$(field "$D/shipped.json" '"%d/%d" % (s["passed"], s["samples"])')" "2/2"
is "--tasks: the run is flagged partial (162 tasks not run)" \
        "$(field "$D/shipped.json" '(s["complete"], s["tasks_without_samples"])')" "(False, 162)"
is "the summary holds sbx's version, the limits and the tier" \
        "$(field "$D/shipped.json" '(bool(s["sbx_version"]), s["limits"]["timeout_s"], s["tier"] != "none")')" \
        "(True, 3, True)"

SBX_EXTRA_ENV="SBX_SUITES_DIR=$D/nowhere" sbx missing --suite mbpp --canonical --out "$D/m.jsonl"
check "a missing shipped file: exit 2, naming the path and --problems" \
        test "$rc" = 2 -a -n "$(grep -F "$D/nowhere/mbpp/mbpp.jsonl" "$D/missing.err" | grep -F -- --problems)"
sbx classeval --suite classeval --canonical --out "$D/c.jsonl"
check "classeval without --problems: its licence, where to get it, --problems" \
        test "$rc" = 2 -a -n "$(grep -F 'CC BY-NC' "$D/classeval.err" | grep -F FudanSELab/ClassEval | grep -F -- --problems)"

# --- a partial samples file: flagged, warned, --allow-partial quiet
printf '{"task_id": "HumanEval/0", "completion": "    return False\\n"}\n' | mk partial.jsonl
sbx partial --suite humaneval --samples "$D/partial.jsonl" --summary "$D/partial.json"
is "partial samples: complete false, 163 tasks without a sample" \
        "$(field "$D/partial.json" '(s["complete"], s["tasks_without_samples"])')" "(False, 163)"
check "partial samples: a warning line, pointing at --allow-partial" grep -q 'warning: 163 of 164 tasks.*--allow-partial' "$D/partial.err"
check "partial samples: pass@k is marked PARTIAL" grep -q 'pass@1 = .*PARTIAL' "$D/partial.out"
sbx quiet --suite humaneval --samples "$D/partial.jsonl" --allow-partial --out "$D/q.jsonl"
check "--allow-partial: exit 0, no warning" test "$rc" = 0 -a -z "$(grep 'tasks in' "$D/quiet.err")"

# --- invalid UTF-8 in a sample: the results are still JSON
printf '{"task_id": "test/0", "completion": "    return 1 # \xff\xfe\\n"}\n' | mk badutf8.jsonl
sbx utf8 --suite humaneval --problems "$HE/example_problem.jsonl" --samples "$D/badutf8.jsonl" \
        --out "$D/utf8.jsonl" --summary "$D/utf8.json" --allow-partial
is "invalid UTF-8: exit 0" "$rc" 0
is "invalid UTF-8: Python reads the results back, U+FFFD in place" \
        "$($HOST_PY -c 'import json,sys; print([json.loads(l)["completion"].count("\ufffd") for l in open(sys.argv[1], encoding="utf-8")])' "$D/utf8.jsonl" 2>&1)" "[2]"
is "invalid UTF-8: counted in the summary" "$(field "$D/utf8.json" 's["invalid_utf8_replaced"]')" 2

# --- a truncated .jsonl.gz
head -c 20000 "$HE/HumanEval.jsonl.gz" > "$D/cut.jsonl.gz"; chown "$SBX_TEST_USER:" "$D/cut.jsonl.gz"
sbx cut --suite humaneval --problems "$D/cut.jsonl.gz" --canonical --out "$D/cut.jsonl"
check "a truncated .gz: exit 2, \"gzip stream ended early at line N\", file named" \
        test "$rc" = 2 -a -n "$(grep -E "cut.jsonl.gz: gzip stream ended early at line [0-9]+" "$D/cut.err")"

# --- bigcode generations.json and an evalplus samples directory
$HOST_PY - "$HE/HumanEval.jsonl.gz" "$D" <<'PY'
import gzip, json, os, sys
probs = [json.loads(l) for l in gzip.open(sys.argv[1], "rt")]
gens = [[p["prompt"] + p["canonical_solution"], p["prompt"] + "    pass\n"] for p in probs[:3]]
json.dump(gens, open(os.path.join(sys.argv[2], "generations.json"), "w"))
for p in probs[:2]:
    d = os.path.join(sys.argv[2], "evalplus", p["task_id"].replace("/", "_"))
    os.makedirs(d)
    open(os.path.join(d, "0.py"), "w").write(p["prompt"] + p["canonical_solution"])
PY
chown -R "$SBX_TEST_USER:" "$D/generations.json" "$D/evalplus"
sbx bigcode --suite humaneval --samples "$D/generations.json" --summary "$D/bigcode.json" --allow-partial
is "bigcode generations.json: format named, canonical passes, pass stub fails" \
        "$(field "$D/bigcode.json" '(s["samples_file"]["format"], s["passed"], s["failed"])')" \
        "('bigcode-generations', 3, 3)"
sbx evalplus --suite humaneval --samples "$D/evalplus" --out "$D/evalplus.jsonl" --summary "$D/evalplus.json" --allow-partial
is "evalplus samples directory: format named, 2/2 passed" \
        "$(field "$D/evalplus.json" '(s["samples_file"]["format"], s["passed"], s["samples"])')" \
        "('evalplus-samples-dir', 2, 2)"
echo '["x"]' | mk strings.json
sbx unknown --suite humaneval --samples "$D/strings.json" --out "$D/u.jsonl"
check "an unknown sample format: exit 2, the accepted formats listed" \
        test "$rc" = 2 -a -n "$(grep -F generations.json "$D/unknown.err" | grep -F 'evalplus samples directory')"

# --- a failed result: stderr tail and exception type (a bare assert); --dump
is "a bare failed assert: exception AssertionError, traceback in stderr_tail" \
        "$($HOST_PY -c 'import json,sys
f=[json.loads(l) for l in open(sys.argv[1])][0]
print(f["result"], f["exception"], "Traceback" in f["stderr_tail"] and "assert" in f["stderr_tail"], len(f["stderr_tail"]) <= 2048)' "$D/partial.jsonl_results.jsonl" 2>&1)" \
        "failed:  AssertionError True True"
sbx dump --suite humaneval --canonical --tasks HumanEval/10 --dump "$D/programs"
is "--dump: one program written, nothing run" "$rc/$(ls "$D/programs")" "0/HumanEval_10_10.py"
check "--dump: the program is the prompt, solution and test" grep -q '^check(make_palindrome)' "$D/programs/HumanEval_10_10.py"

# --- --k 5 with fewer samples: a note why
sbx k5 --suite humaneval --problems "$HE/example_problem.jsonl" --samples "$HE/example_samples.jsonl" \
        --out "$D/k5.jsonl" --k 1,7
check "--k 7 with 6 samples per task: a note says why pass@7 is missing" \
        grep -q 'pass@7 not computed: a task has only 6 samples' "$D/k5.out"

# --- interrupted: exit 130, pass@k partial; resume counts earlier passes
{ printf '{"task_id": "test/0", "completion": "    return 1\\n"}\n%.0s' 1 2
  printf '{"task_id": "test/0", "completion": "    import time\\n    time.sleep(100)\\n"}\n'; } | mk slow.jsonl
as_user "$SBX_RUN" --suite humaneval --problems "$HE/example_problem.jsonl" --samples "$D/slow.jsonl" \
        --out "$D/slow_results.jsonl" --timeout 200 -j 1 --no-progress > "$D/int.out" 2> "$D/int.err" &
bg=$!
# -j 1 runs the samples in order: once the two quick ones are written, the
# sleeper is in flight (and the stop handlers long installed)
for _ in $(seq 1200); do
        [ "$(cat "$D/slow_results.jsonl" 2>/dev/null | wc -l)" -ge 2 ] && break
        sleep 0.1
done
# our own sbx-run only: $bg, or its child when the subshell did not exec it
for pid in "$bg" $(pgrep -P "$bg"); do
        [ "$(cat /proc/"$pid"/comm 2>/dev/null)" = sbx-run ] && kill -INT "$pid"
done
rc=0; wait "$bg" || rc=$?
is "SIGINT: exit 130" "$rc" 130
check "SIGINT: the summary says pass@k is partial" grep -q 'PARTIAL' "$D/int.out" "$D/int.err"
rc=0
as_user "$SBX_RUN" --suite humaneval --problems "$HE/example_problem.jsonl" --samples "$D/slow.jsonl" \
        --out "$D/slow_results.jsonl" --timeout 1 -j 1 --resume --progress \
        > "$D/resume.out" 2> "$D/resume.err" || rc=$?
if grep -q '/3 done, 2 passed' "$D/resume.err"; then
        ok "--resume: the progress line counts the earlier lines as passed"
else
        not_ok "--resume: the progress line counts the earlier lines as passed"
        diag "rc=$rc: $(tr '\r' '\n' < "$D/resume.err" | head -n 5)"
fi

# --- root: refused unless --allow-root
printf 'import os\nprint("uid", os.getuid())\n' > "$D/uid.py"; chmod 644 "$D/uid.py"
rc=0; (cd / && "$SBX_RUN" --file "$D/uid.py") > "$D/root.out" 2> "$D/root.err" || rc=$?
check "as root: exit 2, saying --allow-root or a normal user" \
        test "$rc" = 2 -a -n "$(grep -F -- --allow-root "$D/root.err" | grep -F 'normal user')"
check "as root: nothing ran" test ! -s "$D/root.out"
rc=0; (cd / && "$SBX_RUN" -q --allow-root --file "$D/uid.py") > "$D/root2.out" 2>&1 || rc=$?
is "as root with --allow-root: it runs (as uid 0, as asked)" "$rc/$(cat "$D/root2.out")" "0/uid 0"
rc=0; (cd / && echo '{"id":1,"type":"run","code":"import os; print(os.getuid())"}' |
       "$SBX_RUN" --serve) > "$D/root3.out" 2> "$D/root3.err" || rc=$?
check "as root: --serve is refused too (exit 2, nothing ran)" \
        test "$rc" = 2 -a ! -s "$D/root3.out" -a -n "$(grep -F -- --allow-root "$D/root3.err")"

# --- --help: every suite, llama-eval's Sandbox named
"$SBX_RUN" --help > "$D/help.txt"
check "--help lists humanevalplus" grep -q humanevalplus "$D/help.txt"
check "--help names llama-eval's Sandbox, not \"the seed's\"" \
        test -n "$(grep -F "llama-eval's \`Sandbox\`" "$D/help.txt")" -a -z "$(grep -F "the seed's" "$D/help.txt")"
done_testing
