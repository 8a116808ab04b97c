#!/bin/bash
# Tier choice: the strongest working tier, an honest fallback that says
# why, --tier forcing, and --require-tier refusing with exit 3.
. "$(dirname "$0")/../lib/lib.sh"
require_test_root

dir=$(user_tmpdir)
echo 'print("hi")' > "$dir/p.py"; chmod 644 "$dir/p.py"
tier_of() { jq -r .tier; }

# PATH with unshare but no bwrap (python is found by absolute path)
mkdir -p "$dir/nobwrap"
ln -s "$(command -v unshare)" "$dir/nobwrap/unshare"

got=$(as_user env SBX_HELPER=/nonexistent "$SBX_RUN" -q --json --file "$dir/p.py" | tier_of)
check "helper missing: falls back to bwrap (got $got)" test "$got" = bwrap

got=$(as_user env SBX_HELPER=/nonexistent PATH="$dir/nobwrap" "$SBX_RUN" -q --json \
        --file "$dir/p.py" | tier_of)
check "helper missing and no bwrap on PATH: unshare (got $got)" test "$got" = unshare

rc=0
msg=$(as_user env SBX_HELPER=/nonexistent "$SBX_RUN" --require-tier helper \
        --file "$dir/p.py" 2>&1) || rc=$?
check "--require-tier helper without a helper: exit 3 (got $rc)" test "$rc" = 3
check "refusal names the missing helper" grep -q 'sbx-helper not installed at /nonexistent' <<<"$msg"
check "refusal output has no program output" test "$(grep -c '^hi$' <<<"$msg")" = 0

rc=0
msg=$(as_user env SBX_HELPER=/nonexistent PATH="$dir/nobwrap" "$SBX_RUN" \
        --require-tier bwrap --file "$dir/p.py" 2>&1) || rc=$?
check "--require-tier bwrap without bwrap: exit 3 (got $rc)" test "$rc" = 3
check "refusal says bwrap is not on PATH" grep -q 'bwrap not found on PATH' <<<"$msg"

rc=0
out=$(as_user env SBX_HELPER=/nonexistent PATH="$dir/nobwrap" "$SBX_RUN" -q \
        --require-tier unshare --json --file "$dir/p.py") || rc=$?
check "--require-tier unshare is met by unshare: exit 0 (got $rc)" test "$rc" = 0
check "and the run is recorded as unshare" test "$(tier_of <<<"$out")" = unshare

rc=0
msg=$(as_user env SBX_HELPER=/nonexistent "$SBX_RUN" --tier helper --file "$dir/p.py" 2>&1) || rc=$?
check "--tier helper that does not work: exit 3 (got $rc)" test "$rc" = 3
check "--tier failure says why" grep -q 'does not work here' <<<"$msg"

rc=0
as_user "$SBX_RUN" --tier bwrap --require-tier helper --file "$dir/p.py" 2>/dev/null || rc=$?
check "--tier weaker than --require-tier: exit 3 (got $rc)" test "$rc" = 3

# a helper that exists but refuses this caller: fall back, saying why
odir=$(user_tmpdir)
chmod 755 "$odir"; cp "$dir/p.py" "$odir/"
rc=0
msg=$(as_other env SBX_HELPER="$SBX_HELPER" "$SBX_RUN" --json --file "$odir/p.py" 2>&1 >/dev/null) || rc=$?
check "helper refusing the caller: still runs (fallback) (rc $rc)" test "$rc" = 0
check "helper refusing the caller: the fallback is said" grep -q 'tier helper does not work' <<<"$msg"

# A single run is the helper's probe (no probe run before it): when the
# helper refuses, the program never started, and it runs once, in the tier
# chosen then. Seen in a workdir that outlives the runs.
wdir=$(user_tmpdir)
chown "$SBX_TEST_OTHER_USER:" "$wdir"
rc=0
out=$(as_other env SBX_HELPER="$SBX_HELPER" "$SBX_RUN" -q --json --workdir "$wdir" -- \
        /bin/sh -c 'echo ran >> runs.log') || rc=$?
check "helper refusing the caller, --workdir: rc 0 (got $rc)" test "$rc" = 0
check "helper refusing the caller, --workdir: ran in bwrap ($(tier_of <<<"$out"))" \
        test "$(tier_of <<<"$out")" = bwrap
check "helper refusing the caller, --workdir: the program ran once ($(wc -l < "$wdir/runs.log"))" \
        test "$(wc -l < "$wdir/runs.log")" = 1

# A helper that cannot even be executed (its interpreter is missing: exit
# 127 from the exec) is a helper that did not start the program either.
printf '#!/nonexistent/interpreter\n' > "$dir/broken-helper"; chmod 755 "$dir/broken-helper"
rc=0
out=$(as_user env SBX_HELPER="$dir/broken-helper" "$SBX_RUN" --json --file "$dir/p.py" 2>"$dir/broken.err") || rc=$?
check "helper that cannot be executed: rc 0 (got $rc)" test "$rc" = 0
check "helper that cannot be executed: ran in bwrap ($(tier_of <<<"$out"))" test "$(tier_of <<<"$out")" = bwrap
check "helper that cannot be executed: the fallback is said" grep -q 'tier helper does not work' "$dir/broken.err"

# A program that fails the way a refusing helper does (exit 3, the helper's
# words on stderr) is the program's result: never a reason to run it again
# in a weaker tier.
cat > "$dir/forge.py" <<'PY'
import sys
sys.stderr.write("sbx-helper: not installed setuid root\n")
sys.exit(3)
PY
chmod 644 "$dir/forge.py"
rc=0
out=$(as_user env SBX_HELPER="$SBX_HELPER" "$SBX_RUN" --json --file "$dir/forge.py" 2>"$dir/forge.err") || rc=$?
check "helper-like failure of the program: exit 1, failed (got $rc)" test "$rc" = 1
check "helper-like failure of the program: stays in the helper tier ($(tier_of <<<"$out"))" \
        test "$(tier_of <<<"$out")" = helper
check_fails "helper-like failure of the program: no fallback is said" \
        grep -q 'does not work' "$dir/forge.err"

# The weak tiers' run is their probe too: unshare's start marker (written
# inside the namespaces just before the program's exec) tells an unshare
# that never started the program from a program that failed. An unshare
# that cannot start (here a stand-in that fails as a refused unshare(2)
# does) falls back, and the program runs once, in the rlimit tier.
mkdir -p "$dir/badunshare"
printf '#!/bin/sh\necho "unshare: unshare failed: Operation not permitted" >&2\nexit 1\n' \
        > "$dir/badunshare/unshare"
chmod 755 "$dir/badunshare" "$dir/badunshare/unshare"
wdir=$(user_tmpdir)
rc=0
out=$(as_user env SBX_HELPER=/nonexistent PATH="$dir/badunshare" "$SBX_RUN" --json \
        --workdir "$wdir" -- /bin/sh -c 'echo ran >> runs.log' 2>"$dir/weak.err") || rc=$?
check "unshare that cannot start: rc 0 (got $rc)" test "$rc" = 0
check "unshare that cannot start: ran in rlimit ($(tier_of <<<"$out"))" \
        test "$(tier_of <<<"$out")" = rlimit
check "unshare that cannot start: the program ran once ($(wc -l < "$wdir/runs.log"))" \
        test "$(wc -l < "$wdir/runs.log")" = 1
check "unshare that cannot start: the fallback is said" \
        grep -q 'tier unshare does not work: .*unshare setup failed' "$dir/weak.err"
rc=0
msg=$(as_user env SBX_HELPER=/nonexistent PATH="$dir/badunshare" "$SBX_RUN" --tier unshare \
        --file "$dir/p.py" 2>&1) || rc=$?
check "--tier unshare that cannot start: exit 3 (got $rc)" test "$rc" = 3
check "--tier unshare that cannot start: no program output" test "$(grep -c '^hi$' <<<"$msg")" = 0

# A program that fails the way a refused unshare does (exit 1, unshare's
# words on stderr) is the program's result, run once, in the unshare tier.
wdir=$(user_tmpdir)
rc=0
out=$(as_user env SBX_HELPER=/nonexistent PATH="$dir/nobwrap" "$SBX_RUN" --json \
        --workdir "$wdir" -- /bin/sh -c 'echo ran >> runs.log
                echo "unshare: unshare failed: Operation not permitted" >&2; exit 1' \
        2>"$dir/weakforge.err") || rc=$?
check "unshare-like failure of the program: exit 1, failed (got $rc)" test "$rc" = 1
check "unshare-like failure of the program: stays in the unshare tier ($(tier_of <<<"$out"))" \
        test "$(tier_of <<<"$out")" = unshare
check "unshare-like failure of the program: ran once ($(wc -l < "$wdir/runs.log"))" \
        test "$(wc -l < "$wdir/runs.log")" = 1
check_fails "unshare-like failure of the program: no fallback is said" \
        grep -q 'does not work' "$dir/weakforge.err"
# ... and the start marker's fd is closed before the program starts: it
# cannot write the marker itself
out=$(as_user env SBX_HELPER=/nonexistent PATH="$dir/nobwrap" "$SBX_RUN" --json \
        --workdir "$wdir" -- /bin/sh -c 'echo x >&3 && echo fd3-open' 2>/dev/null) || true
check "unshare tier: fd 3 (the start marker) is closed in the program" \
        test "$(jq -r .stdout <<<"$out")" = ""

rc=0
as_user "$SBX_RUN" --tier nosuch --file "$dir/p.py" 2>/dev/null || rc=$?
check "unknown tier name: usage error exit 2 (got $rc)" test "$rc" = 2

probe=$(as_user env SBX_HELPER=/nonexistent PATH="$dir/nobwrap" "$SBX_RUN" --probe)
check "--probe lists every tier" test "$(grep -cE '^(helper|bwrap|unshare|unshare-root|rlimit) ' <<<"$probe")" = 5
check "--probe says why bwrap is missing" grep -q '^bwrap .*not found on PATH' <<<"$probe"
check "--probe says where the helper was looked for" grep -q '^helper .*/nonexistent' <<<"$probe"
done_testing
