#!/bin/bash
# sbx-run never binds the caller's home or /run/user/UID whole (issue 14,
# item 12): a bound directory keeps its sockets connectable (ssh-agent,
# D-Bus) and its files readable. An interpreter installed straight into
# $HOME (install root = $HOME) or an explicit --ro-bind of $HOME or of an
# ancestor is refused, exit 2, nothing runs; a directory of its own works.
. "$(dirname "$0")/../lib/lib.sh"
require_test_root
new_workspace
home=$(getent passwd "$SBX_TEST_USER" | cut -d: -f6)
[ -d "$home" ] || skip_all "the test user has no home directory ($home)"
sub=$(mktemp -d "$home/sbx-t.XXXXXX"); at_exit "rm -rf $sub"
chown "$SBX_TEST_USER:" "$sub"
# an interpreter whose install root is the home itself: $HOME/bin/python3
mkdir -p "$home/bin"; made_bin=0
[ -e "$home/bin/python3" ] || { ln -s /usr/bin/python3 "$home/bin/python3"; made_bin=1; }
[ $made_bin = 1 ] && at_exit "rm -f $home/bin/python3"

sbx() { rc=0; as_user env SBX_HELPER="$SBX_HELPER" "$SBX_RUN" -q "$@" >"$T/out" 2>"$T/err" </dev/null || rc=$?; }
refused_bind() { # DESCRIPTION ARGS...
        local d=$1; shift
        rm -f "$W/ran"
        sbx "$@" --workdir "$W" -- /bin/touch "$W/ran"
        if [ "$rc" -ne 0 ] && [ ! -e "$W/ran" ] && grep -q "refusing to bind" "$T/err"; then
                ok "$d"; diag "  $(head -n1 "$T/err")"
        else
                not_ok "$d"; diag "rc=$rc $(head -c 400 "$T/err")"
        fi
}
# its runtime directory: made for the test when the user has none
uid=$(id -u "$SBX_TEST_USER"); rundir=/run/user/$uid
if [ ! -d "$rundir" ] && mkdir -m 0700 "$rundir" 2>/dev/null; then
        chown "$SBX_TEST_USER:" "$rundir"; at_exit "rm -rf $rundir"
fi
mkdir -p "$rundir/sbx-t.$$" && chown "$SBX_TEST_USER:" "$rundir/sbx-t.$$"; at_exit "rm -rf $rundir/sbx-t.$$"

for tier in helper bwrap; do
        refused_bind "$tier: --ro-bind /run/user/UID refused" --tier $tier --ro-bind "$rundir"
        refused_bind "$tier: --ro-bind of a directory in /run/user/UID refused" --tier $tier --ro-bind "$rundir/sbx-t.$$"
        refused_bind "$tier: --ro-bind \$HOME refused" --tier $tier --ro-bind "$home"
        refused_bind "$tier: --ro-bind of an ancestor of \$HOME refused" --tier $tier --ro-bind "$(dirname "$home")"
        refused_bind "$tier: an interpreter installed into \$HOME (binding it whole) refused" \
                --tier $tier --python "$home/bin/python3"
        if ! as_user env SBX_HELPER="$SBX_HELPER" "$SBX_RUN" -q --tier $tier --workdir "$W" -- /bin/true \
                >/dev/null 2>&1; then
                ok "# SKIP $tier: a directory of its own is bound (the $tier tier does not work here)"
                continue
        fi
        rm -f "$W/ran"
        sbx --tier $tier --ro-bind "$sub" --workdir "$W" -- /bin/touch "$W/ran"
        check "$tier: a directory of its own under \$HOME is bound" test -e "$W/ran"
done
done_testing
