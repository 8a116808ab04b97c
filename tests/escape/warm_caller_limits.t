#!/bin/bash
# caller-limits.t through a warm suite: an sbx-run started by a caller with
# low hard limits runs its samples warm (no fall back to cold, nor to a
# weaker tier), and each sample's limits are clamped to the caller's hard
# ones, never raised (the zygote's only ever lowers, as the helper's
# limits_set); STACK, MEMLOCK, MSGQUEUE and SIGPENDING are the run's, not
# the caller's. One sample per caller, its limits as it sees them.
# The helper's own per-uid count (rlimit mode) does not apply: a warm
# sample always has a user namespace of its own (docs/warm.md).
. "$(dirname "$0")/../lib/lib.sh"
. "$(dirname "$0")/../lib/warm.sh"
require_test_root
D=$(user_tmpdir)
chmod 0755 "$D"
warm_suite "$D"
warm_sample "$D/samples.jsonl" limits <<'PY'
import resource as r, sys
for name in ('NPROC', 'NOFILE', 'STACK', 'MEMLOCK', 'MSGQUEUE', 'SIGPENDING'):
    print(name, *r.getrlimit(getattr(r, 'RLIMIT_' + name)), file=sys.stderr)
raise SystemExit(3)
PY
chown -R "$SBX_TEST_USER:" "$D"

# caller NAME 'ULIMIT COMMANDS': the suite run warm by a caller with those
# ulimits (a wrapper that sets them, then execs sbx-run), which must end
# with the sample run warm; sets out (the sample's report).
caller() {
        printf '#!/bin/bash\n%s || exit 99\nexec "$@"\n' "$2" > "$D/wrap-$1.sh"
        chmod 0755 "$D/wrap-$1.sh"
        WARM_WRAP=$D/wrap-$1.sh warm_suite_run "$D/$1" --tier helper --suite "$D/suite.json" \
                --samples "$D/samples.jsonl" -j 1 --warm
        is "$1: the suite runs to its end" "$rc" 0
        [ "$rc" -eq 0 ] || diag "$(head -c 600 "$D/$1.err")"
        is "$1: the sample ran warm, in the helper tier" \
                "$(warm_counts "$D/$1.json") $("$HOST_PY" -c 'import json,sys; print(json.load(open(sys.argv[1])).get("tier"))' "$D/$1.json" 2>&1)" \
                "1 0 None helper"
        out=$(result_of "$D/$1.out.jsonl" limits)
}
lim() { awk -v k="$1" '$1 == k { print $2, $3 }' <<<"$out"; }

caller nproc40 'ulimit -u 40'
read -r s h <<< "$(lim NPROC)"
if [ -n "${h:-}" ] && [ "$h" != -1 ] && [ "$h" -le 40 ] && [ "$s" -le 40 ]; then
        ok "nproc40: nproc stays within the caller's hard 40 ($s $h)"
else
        not_ok "nproc40: nproc stays within the caller's hard 40 (got ${s:-?} ${h:-?})"; diag "$out"
fi

# (sbx-run itself needs 68 open files at -j 1: hard 64 is refused before any
# run, warm or cold; 100 is still below the helper's default 200)
caller nofile100 'ulimit -n 100'
is "nofile100: a caller with hard nofile 100: not raised to the default 200" "$(lim NOFILE)" "100 100"

caller softhard 'ulimit -S -s hard && ulimit -S -l hard && ulimit -S -i hard'
is "softhard: RLIMIT_STACK is 8 MiB whatever the caller's" "$(lim STACK)" "8388608 8388608"
is "softhard: RLIMIT_MEMLOCK is 0" "$(lim MEMLOCK)" "0 0"
is "softhard: RLIMIT_MSGQUEUE is 0" "$(lim MSGQUEUE)" "0 0"
is "softhard: RLIMIT_SIGPENDING is 256" "$(lim SIGPENDING)" "256 256"
done_testing
