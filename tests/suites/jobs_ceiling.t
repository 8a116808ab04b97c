#!/bin/bash
# -j at its ceiling (SBX_JOBS_MAX in frontend/sandbox/limit.h: 256) on twice as
# many quick samples, from a shell whose soft RLIMIT_NOFILE is the usual
# 1024: sbx-run raises its own soft limit for the pipes -j needs (it
# stopped with "pipe: Too many open files" at -j 260), every sample gets
# its own verdict (a sweep that reaped another run's child left that run
# polling until its backstop: a spurious timeout); -j past the ceiling,
# or past what the hard limit allows, is refused with the limit named.
. "$(dirname "$0")/../lib/lib.sh"
require_test_root
CEILING=256
N=$((2 * CEILING))
D=$(user_tmpdir)

/usr/bin/python3 - "$D" "$N" <<'PY'
import json, os, sys
d, n = sys.argv[1], int(sys.argv[2])
with open(os.path.join(d, "problems.jsonl"), "w") as f:
    f.write(json.dumps({"task_id": "quick/0", "check": "print('done')"}) + "\n")
# 30 s: 256 runs at once share 2 cores; a machine where a fork costs 3 x
# more took over 2 s a sample, a timeout no bug made (a lost run waits out
# the same 30 s and its backstop, and says "timed out").
json.dump({"problems": "problems.jsonl", "timeout": 30, "template": "{completion}\n{check}\n"},
          open(os.path.join(d, "suite.json"), "w"))
# even samples pass, odd ones fail, each with its own number in the message
with open(os.path.join(d, "samples.jsonl"), "w") as f:
    for i in range(n):
        code = "x = %d" % i if i % 2 == 0 else "raise SystemExit('sample %d fails')" % i
        f.write(json.dumps({"task_id": "quick/0", "completion": code, "n": i}) + "\n")
PY
chown -R "$SBX_TEST_USER:" "$D"

# the verdicts in sample order, a letter each: P (passed), F (failed),
# T (timed out), ? (anything else); then how many results, how many samples
verdicts() {
        /usr/bin/python3 - "$1" <<'PY'
import json, sys
rows = sorted((json.loads(l) for l in open(sys.argv[1])), key=lambda r: r["n"])
word = {"passed": "P", "timed out": "T"}
print("".join(word.get(r["result"], "F" if r["result"].startswith("failed") else "?")
              for r in rows), len(rows), len({r["n"] for r in rows}))
PY
}
want=$(/usr/bin/python3 -c 'import sys; n = int(sys.argv[1]); print("".join("PF"[i % 2] for i in range(n)), n, n)' "$N")

# the hard limit must allow what -j needs (4 per run + 64): root raises it
# where it is lower (a container's 1024), the test user lowers its soft one
hard=$(ulimit -Hn)
[ "$hard" = unlimited ] || [ "$hard" -ge 4096 ] || ulimit -Hn 4096
rc=0
as_user bash -c 'ulimit -Sn 1024 && exec timeout -k 5 600 "$@"' sh "$SBX_RUN" \
        --suite "$D/suite.json" --samples "$D/samples.jsonl" -j "$CEILING" \
        --out "$D/results.jsonl" --no-progress > "$D/out.txt" 2> "$D/err.txt" || rc=$?
is "-j $CEILING on $N samples with a soft RLIMIT_NOFILE of 1024 runs to its end" "$rc" 0
[ "$rc" -eq 0 ] || diag "$(head -c 600 "$D/err.txt")"
got=$(verdicts "$D/results.jsonl" 2>&1)
if [ "$got" = "$want" ]; then
        ok "-j $CEILING: each of the $N samples has its own verdict (no spurious timeout)"
else
        not_ok "-j $CEILING: each of the $N samples has its own verdict (no spurious timeout)"
        diag "got  ${got:0:300}" "want ${want:0:300}"
fi

rc=0
as_user bash -c 'ulimit -n 200 && exec "$@"' sh "$SBX_RUN" --suite "$D/suite.json" \
        --samples "$D/samples.jsonl" -j "$CEILING" --out "$D/low.jsonl" --no-progress \
        > "$D/low.out" 2> "$D/low.err" || rc=$?
is "-j $CEILING under a hard RLIMIT_NOFILE of 200 is refused as bad usage" "$rc" 2
check "the refusal names the hard limit and the -j that fits" \
        grep -q -- "hard RLIMIT_NOFILE of 200 (ulimit -Hn): use -j 27 or less" "$D/low.err"
check "nothing ran under the low limit" test ! -s "$D/low.jsonl"

rc=0
as_user "$SBX_RUN" --suite "$D/suite.json" --samples "$D/samples.jsonl" -j $((CEILING + 1)) \
        --out "$D/over.jsonl" --no-progress > "$D/over.out" 2> "$D/over.err" || rc=$?
is "-j $((CEILING + 1)) is refused as bad usage" "$rc" 2
check "the refusal names the ceiling" grep -q -- "$CEILING" "$D/over.err"
check "nothing ran past the ceiling" test ! -s "$D/over.jsonl"
done_testing
