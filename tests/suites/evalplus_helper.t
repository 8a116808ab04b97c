#!/bin/bash
# evalplus's native files in the helper tier. Its limits pass the admin's
# ceilings (the test root's helper.conf: max_cpu 60, max_timeout 120; the
# ground truth asks 600 s, a HumanEval+ sample about 125 s) and the helper
# refuses a run that asks more: such runs get the ceiling, said once, and
# the references still pass (every run was refused before).
. "$(dirname "$0")/../lib/lib.sh"
require_test_root
HEP=$SBX_DATA/humanevalplus/HumanEvalPlus.jsonl.gz
D=$(user_tmpdir)
export SBX_EXTRA_ENV="SBX_CACHE=$D/cache SBX_HELPER=$SBX_HELPER"
$HOST_PY - "$HEP" "$D/p.jsonl" <<'PY'
import gzip, json, sys
with gzip.open(sys.argv[1], "rt") as f, open(sys.argv[2], "w") as out:
    for line in f:
        if json.loads(line)["task_id"] in ("HumanEval/0", "HumanEval/2"):
            out.write(line)
PY
chown -R "$SBX_TEST_USER:" "$D"
as_user "$SBX_RUN" --suite humanevalplus --problems "$D/p.jsonl" --canonical -j 2 \
        --no-progress --out "$D/r.jsonl" > "$D/out.txt" 2>&1
is "the references' run in the helper tier: exit 0" "$?" 0
is "... both pass base and plus, in the helper tier" "$($HOST_PY -c 'import json,sys
print(" ".join("%s:%s/%s" % (r["tier"], r["base_status"], r["plus_status"])
               for r in sorted(map(json.loads, open(sys.argv[1])), key=lambda r: r["sbx_index"])))' "$D/r.jsonl")" \
        "helper:pass/pass helper:pass/pass"
check "... the ceilings are named once" test "$(grep -c "the helper's ceilings (timeout 120 s, cpu 60 s)" "$D/out.txt")" = 1
check "... nothing was refused by the helper" bash -c "! grep -q 'above the ceiling' '$D/r.jsonl' '$D/out.txt'"
done_testing
