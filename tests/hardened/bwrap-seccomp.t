#!/bin/bash
# The bwrap tier never runs without the seccomp filter (issue 14, item 5).
# On a host whose own filter denies memfd_create (harden-exec --no-memfd),
# sbx-run hands bwrap the program in an unlinked file instead, and inside
# unshare(CLONE_NEWUSER) and io_uring_setup still fail; where no such file
# can be made either (--no-tmpfile), the bwrap tier does not work, says why,
# and --tier bwrap refuses to run.
. "$(dirname "$0")/../lib/lib.sh"
. "$(dirname "$0")/hardened.sh"
hardened_setup
[ -x "${SBX_TRY_SYSCALL:-}" ] || skip_all "SBX_TRY_SYSCALL not built (tests/tests.mk builds it)"
command -v bwrap >/dev/null || skip_all "bwrap not installed (apt install bubblewrap)"
new_workspace
install -o "$SBX_TEST_USER" -m 0755 "$SBX_TRY_SYSCALL" "$W/try-syscall"
tmp=$(user_tmpdir)
SBX_EXTRA_ENV="SBX_HELPER=$SBX_HELPER TMPDIR=$tmp"
EPERM=1

# bprobe HX_FLAGS NAME: the prober in the bwrap tier; sets rc to its errno.
bprobe() {
        sbx "$1" -q --tier bwrap --json --workdir "$W" --timeout 10 -- "$W/try-syscall" "$2"
        local got; got=$(jq -r '.returncode // empty' "$T/out" 2>/dev/null)
        rc=${got:-255}
        diag "$2 under harden-exec $1: $(jq -r .stdout "$T/out" 2>/dev/null) rc=$rc $(head -c 300 "$T/err")"
}

# The control: memfd_create works for the prober outside, and the filter is on.
HX_FLAGS="--no-memfd" as_user "$W/try-syscall" memfd_create >/dev/null 2>&1
is "control: harden-exec --no-memfd denies memfd_create on the host" "$?" $EPERM

probe_json "--no-memfd"
is "no memfd: --probe: bwrap works (the program goes in an unlinked file)" "$(verdict bwrap)" yes
check "no memfd: --probe JSON says bwrap has its seccomp filter" \
        grep -q '"tier":"bwrap","works":true,"seccomp":true' "$T/probe.json"
for p in unshare io_uring_setup; do
        bprobe "--no-memfd" $p
        is "no memfd: bwrap tier: $p is still denied" "$rc" $EPERM
done

probe_json "--no-memfd --no-tmpfile"
why=$(reason bwrap)
if [ "$(verdict bwrap)" = no ] && printf '%s' "$why" | grep -q seccomp; then
        ok "no memfd, no unlinked file: --probe: bwrap does not work ($why)"
else
        not_ok "no memfd, no unlinked file: --probe: bwrap does not work, naming seccomp"
        diag "got: $(grep '^bwrap ' "$T/tiers")"
fi
sbx "--no-memfd --no-tmpfile" --probe
check_fails "no memfd, no unlinked file: --probe never says bwrap works without seccomp" \
        grep -qi "without seccomp" "$T/out"
rm -f "$W/ran"
sbx "--no-memfd --no-tmpfile" -q --tier bwrap --workdir "$W" -- /bin/touch "$W/ran"
if [ "$rc" -eq 3 ] && [ ! -e "$W/ran" ]; then
        ok "no memfd, no unlinked file: --tier bwrap refuses (exit 3) and runs nothing"
else
        not_ok "no memfd, no unlinked file: --tier bwrap refuses (exit 3) and runs nothing"
        diag "rc=$rc ran=$([ -e "$W/ran" ] && echo yes || echo no) $(head -c 300 "$T/err")"
fi
done_testing
