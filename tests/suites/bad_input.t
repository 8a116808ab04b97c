#!/bin/bash
# Malformed input is an error (exit 2) whose message names the file and the
# line; nothing crashes, hangs, or drops samples silently.
. "$(dirname "$0")/../lib/lib.sh"
require_test_root
HE=$SBX_DATA/humaneval
D=$(user_tmpdir)

good='{"task_id": "test/0", "completion": "    return 1"}'
mk() { cat > "$D/$1"; chown "$SBX_TEST_USER:" "$D/$1"; }

# refuses NAME EXPECTED-TEXT SBX-RUN-ARGS...: exit 2, and the message
# contains EXPECTED-TEXT (file:line), within 60 s.
refuses() {
        local name=$1 want=$2; shift 2
        local rc=0
        as_user timeout -k 5 60 "$SBX_RUN" "$@" --out "$D/out.jsonl" --no-progress \
                > "$D/stdout" 2> "$D/stderr" || rc=$?
        if [ "$rc" -eq 2 ] && grep -qF -- "$want" "$D/stderr"; then
                ok "$name"; diag "  $(head -n1 "$D/stderr")"
        else
                not_ok "$name"; diag "rc=$rc, want 2 and '$want'" "stderr: $(head -c 400 "$D/stderr")"
        fi
}
samples() { refuses "$1" "$2" --suite humaneval --problems "$HE/example_problem.jsonl" --samples "$D/$3"; }

printf '%s\n{"task_id": "test/0", "completion": \n%s\n' "$good" "$good" | mk badjson.jsonl
samples "a bad JSON line names file and line" "badjson.jsonl:2: invalid JSON" badjson.jsonl

printf '%s\n\n{"task_id": "test/0"}\n' "$good" | mk nocompletion.jsonl
samples "a missing completion names the line (blank lines counted)" \
        'nocompletion.jsonl:3: missing field "completion"' nocompletion.jsonl

printf '{"completion": "x"}\n' | mk notask.jsonl
samples "a missing task_id names the line" 'notask.jsonl:1: missing or empty field "task_id"' notask.jsonl

printf '%s\n{"task_id": "HumanEval/0", "completion": "    return 1"}\n' "$good" | mk unknown.jsonl
samples "a sample for an unknown task is an error, not dropped" \
        'unknown.jsonl:2: unknown task_id "HumanEval/0"' unknown.jsonl

: | mk empty.jsonl
samples "an empty samples file is an error" "empty.jsonl: empty file" empty.jsonl

printf '\n  \n' | mk blank.jsonl
samples "a file of blank lines is empty" "blank.jsonl: empty file" blank.jsonl

printf '[1, 2]\n' | mk array.jsonl
samples "a JSON array of non-objects is the wrong format" "array.jsonl: element 1: expected a JSON object" array.jsonl

printf '"just a string"\n' | mk string.jsonl
samples "a line that is not an object" "string.jsonl:1: expected a JSON object" string.jsonl

head -c 3000 /bin/sh | mk junk.jsonl
refuses "binary junk is refused with file and line" "junk.jsonl:" \
        --suite humaneval --problems "$HE/example_problem.jsonl" --samples "$D/junk.jsonl"

/usr/bin/python3 -c 'import sys; sys.stdout.write("{\"task_id\": \"test/0\", \"completion\": \"" + "x" * (65 << 20) + "\"}\n")' | mk huge.jsonl
samples "a line over 64 MiB is refused with its number" "huge.jsonl:1: line longer than" huge.jsonl

printf '%s\n%s\n' "$(head -n1 "$HE/example_problem.jsonl")" "$(head -n1 "$HE/example_problem.jsonl")" | mk dup_problems.jsonl
refuses "duplicate task ids in the problems are refused, with both lines" \
        'dup_problems.jsonl:2: duplicate task_id "test/0" (first at line 1)' \
        --suite humaneval --problems "$D/dup_problems.jsonl" --canonical

printf '{"task_id": "test/0", "prompt": "def f():\\n"}\n' | mk noprompt_fields.jsonl
refuses "a problem without its suite's fields names the line and field" \
        'noprompt_fields.jsonl:1: missing field "test"' \
        --suite humaneval --problems "$D/noprompt_fields.jsonl" --canonical

printf 'not gzip at all' | mk bad.jsonl.gz
refuses "a .gz that is not gzip is refused" "bad.jsonl.gz" \
        --suite humaneval --problems "$D/bad.jsonl.gz" --canonical

refuses "a missing samples file is named" "$D/nonexistent.jsonl" \
        --suite humaneval --problems "$HE/example_problem.jsonl" --samples "$D/nonexistent.jsonl"

refuses "an unknown suite name is refused" 'unknown suite "nosuch"' \
        --suite nosuch --problems "$HE/example_problem.jsonl" --canonical

printf '{"template": "{prompt}{completion}", "timeout": "3"}\n' | mk badsuite.json
refuses "a custom suite with a bad field names the suite file" \
        "badsuite.json: \"timeout\" must be seconds" \
        --suite "$D/badsuite.json" --problems "$HE/example_problem.jsonl" --canonical

printf '{"template": "{prompt}", "tiemout": 3}\n' | mk typo.json
refuses "a custom suite with an unknown key names it" 'typo.json: unknown key "tiemout"' \
        --suite "$D/typo.json" --problems "$HE/example_problem.jsonl" --canonical

printf '{"template": "{prompt}{completion}\\n{nosuchfield}", "canonical_field": "canonical_solution"}\n' | mk nofield.json
refuses "a template field the problem lacks names suite file and task" \
        "nofield.json (task test/0): template field {nosuchfield} is not in the problem" \
        --suite "$D/nofield.json" --problems "$HE/example_problem.jsonl" --canonical

is "no results file was left by refused inputs" "$(test -e "$D/out.jsonl" && echo exists)" ""
done_testing
