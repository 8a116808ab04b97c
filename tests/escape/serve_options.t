#!/bin/bash
# A --serve suite request runs `sbx-run --suite` as a child with every
# option the server was started with: none is dropped, however many there
# are. The child's argv was a fixed 64 words, of which the server's options
# got at most 47: a server started with 23 --env pairs and then --tier
# unshare --memory 64M ran the suite in the helper tier with neither, and
# 24 pairs made --suite the value of an --env. Here servers with 23, 24 and
# 40 pairs, the tier and the memory limit after them, run a suite whose
# sample passes only where it sees every pair and its --memory, and whose
# summary must name the tier asked for.
. "$(dirname "$0")/../lib/lib.sh"
. "$(dirname "$0")/../lib/warm.sh"
require_test_root
D=$(user_tmpdir)
chmod 0755 "$D"
home=$(getent passwd "$SBX_TEST_USER" | cut -d: -f6)
warm_suite "$D" 20
tier=unshare
as_user "$SBX_RUN" -q --tier unshare --workdir "$D" -- /bin/true >/dev/null 2>&1 || tier=rlimit

for pairs in 23 24 40; do
        warm_sample "$D/s$pairs.jsonl" "env$pairs" <<PY
import os, resource, sys
missing = [i for i in range(1, $pairs + 1) if os.environ.get('SBXE%d' % i) != 'v%d' % i]
soft = resource.getrlimit(resource.RLIMIT_AS)[0]
if missing or soft == resource.RLIM_INFINITY or soft > 96 << 20:
    sys.exit('missing %s, RLIMIT_AS %s' % (missing, soft))
PY
        envs=()
        for i in $(seq "$pairs"); do envs+=(--env "SBXE$i=v$i"); done
        chown -R "$SBX_TEST_USER:" "$D"
        printf '{"type":"suite","id":1,"suite":"%s","samples":"%s"}\n' "$D/suite.json" "$D/s$pairs.jsonl" \
                > "$D/req$pairs.jsonl"
        rc=0
        hostile 120 setpriv --reuid="$SBX_TEST_USER" --regid="$SBX_TEST_USER" --init-groups -- \
                env -i PATH=/usr/bin:/bin HOME="$home" LANG=C.UTF-8 SBX_HELPER="$SBX_HELPER" \
                "$SBX_RUN" --serve "${envs[@]}" --tier "$tier" --memory 64M \
                < "$D/req$pairs.jsonl" > "$D/out$pairs.jsonl" 2> "$D/err$pairs" || rc=$?
        is "$pairs --env pairs, then --tier $tier --memory 64M: the server ends cleanly" "$rc" 0
        got=$("$HOST_PY" - "$D/out$pairs.jsonl" <<'PY' 2>&1
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
summary = [l['summary'] for l in lines if l.get('type') == 'summary']
records = [l['record'] for l in lines if l.get('type') == 'record']
errors = [l['error'] for l in lines if l.get('type') == 'error']
if errors or not summary:
    print('error:', errors or 'no summary')
else:
    print(summary[0].get('session_tier'), ' '.join('passed' if r['passed'] else r.get('stderr_tail', r['result'])
                                                   for r in records))
PY
)
        is "$pairs --env pairs: the suite ran in tier $tier, and its sample saw every pair and --memory" \
                "$got" "$tier passed"
        [ "$got" = "$tier passed" ] || diag "$(head -c 600 "$D/err$pairs")"
done
done_testing
