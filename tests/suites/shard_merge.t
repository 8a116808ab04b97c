#!/bin/bash
# --shard I/N runs a stable subset (sample index mod N == I); merge combines
# the shards into the same results and summary as one run, and refuses
# overlapping, missing, incomplete or foreign shards, naming which.
. "$(dirname "$0")/../lib/lib.sh"
require_test_root
HE=$SBX_DATA/humaneval
D=$(user_tmpdir)

/usr/bin/python3 - "$D/samples.jsonl" "$D/other.jsonl" <<'PY'
import json, sys
codes = ["    return 1", "    return 2", "  return 1", "    return None", "\treturn 1",
         "    raise ValueError('no')", "    return 1", "    return 0"]
for path, cs in ((sys.argv[1], codes), (sys.argv[2], codes[:5])):
    with open(path, "w") as f:
        for c in cs:
            f.write(json.dumps({"task_id": "test/0", "completion": c}) + "\n")
PY
chown "$SBX_TEST_USER:" "$D/samples.jsonl" "$D/other.jsonl"
run() { as_user "$SBX_RUN" --suite humaneval --problems "$HE/example_problem.jsonl" --no-progress "$@"; }

run --samples "$D/samples.jsonl" --out "$D/full.jsonl" --json > "$D/full.json" 2>/dev/null
for i in 0 1 2; do
        run --samples "$D/samples.jsonl" --shard "$i/3" --out "$D/s$i.jsonl" > /dev/null 2>&1
done
is "shard 0/3 holds samples 0, 3, 6" \
        "$(/usr/bin/python3 -c 'import json,sys; print([json.loads(l)["sbx_index"] for l in open(sys.argv[1])])' "$D/s0.jsonl")" \
        "[0, 3, 6]"
is "shard 2/3 holds samples 2, 5" \
        "$(/usr/bin/python3 -c 'import json,sys; print([json.loads(l)["sbx_index"] for l in open(sys.argv[1])])' "$D/s2.jsonl")" \
        "[2, 5]"

as_user "$SBX_RUN" merge "$D/s2.jsonl" "$D/s0.jsonl" "$D/s1.jsonl" --out "$D/merged.jsonl" \
        > "$D/merge.out" 2> "$D/merge.err"
is "merge of 3 shards: exit 0" "$?" 0
cmp_fields() {
        /usr/bin/python3 - "$1" "$2" <<'PY'
import json, sys
a = [json.loads(l) for l in open(sys.argv[1])]
b = [json.loads(l) for l in open(sys.argv[2])]
key = lambda r: (r["sbx_index"], r["task_id"], r["completion"], r["result"], r["passed"])
print(len(a) == len(b) and [key(r) for r in a] == [key(r) for r in b])
PY
}
is "merged = one unsharded run (order, samples, verdicts)" "$(cmp_fields "$D/merged.jsonl" "$D/full.jsonl")" True
full_p1=$(/usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["pass_at_k"]["pass@1"])' "$D/full.json")
grep -q "pass@1 = $(printf '%.4f' "$full_p1")" "$D/merge.out" && ok "merge recomputes the same pass@1 ($full_p1)" ||
        { not_ok "merge recomputes the same pass@1 ($full_p1)"; diag "$(cat "$D/merge.out" "$D/merge.err")"; }

# merge_refuses NAME TEXT FILES...: exit 2 and TEXT in the message.
merge_refuses() {
        local name=$1 want=$2; shift 2
        local rc=0
        as_user "$SBX_RUN" merge "$@" > /dev/null 2> "$D/err" || rc=$?
        if [ "$rc" -eq 2 ] && grep -qF -- "$want" "$D/err"; then
                ok "$name"; diag "  $(head -n1 "$D/err")"
        else
                not_ok "$name"; diag "rc=$rc, want 2 and '$want'" "$(head -c 400 "$D/err")"
        fi
}
merge_refuses "a shard given twice is refused, naming both files" \
        "overlapping shards: $D/s0.jsonl and $D/s0.jsonl are both shard 0/3" \
        "$D/s0.jsonl" "$D/s0.jsonl" "$D/s1.jsonl" "$D/s2.jsonl"
merge_refuses "a missing shard is refused, naming it" "missing shard 1/3" "$D/s0.jsonl" "$D/s2.jsonl"
head -n 1 "$D/s0.jsonl" > "$D/s0-short.jsonl"; chown "$SBX_TEST_USER:" "$D/s0-short.jsonl"
merge_refuses "an incomplete shard is refused, with its counts" \
        "$D/s0-short.jsonl: shard 0/3 has 1 of 3 results" "$D/s0-short.jsonl" "$D/s1.jsonl" "$D/s2.jsonl"
run --samples "$D/other.jsonl" --shard 1/3 --out "$D/o1.jsonl" > /dev/null 2>&1
merge_refuses "a shard of another samples file is refused" \
        "$D/o1.jsonl: results of another suite or samples file" "$D/s0.jsonl" "$D/o1.jsonl" "$D/s2.jsonl"
run --samples "$D/samples.jsonl" --shard 1/2 --out "$D/h1.jsonl" > /dev/null 2>&1
merge_refuses "shards of different N are refused" "shard 1/2, but" "$D/s0.jsonl" "$D/h1.jsonl" "$D/s2.jsonl"
printf '{"task_id": "test/0"}\n' > "$D/plain.jsonl"; chown "$SBX_TEST_USER:" "$D/plain.jsonl"
merge_refuses "a file that is not sbx-run results is refused" "not an sbx-run results file" "$D/plain.jsonl"
done_testing
