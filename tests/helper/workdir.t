#!/bin/bash
# Paths the caller names: the workdir must be the caller's own real
# directory, reached without symlinks or dot components; --ro-bind takes only
# paths under an allowed prefix or owned by the caller.
. "$(dirname "$0")/../lib/lib.sh"
require_test_root
new_workspace
put "$W/mark.sh" <<SH
: > "$W/ran"
SH
mark=(/bin/sh "$W/mark.sh")

put "$W/pwd.sh" <<'SH'
pwd; echo "$HOME"
SH
hrun --workdir "$W" -- /bin/sh "$W/pwd.sh"
is "the candidate starts in the workdir, HOME is the workdir" "$(cat "$T/out" | tr '\n' ' ')" "$W $W "

ln -s "$W" "$T/link"
refused "a workdir that is a symlink is refused" --workdir "$T/link" -- "${mark[@]}"
ln -s "$T" "$T/parentlink"
refused "a workdir reached through a symlink component is refused" \
        --workdir "$T/parentlink/work" -- "${mark[@]}"
refused "a workdir with .. is refused" --workdir "$W/../work" -- "${mark[@]}"
refused "a workdir with . is refused" --workdir "$T/./work" -- "${mark[@]}"
refused "a relative workdir is refused" --workdir "work" -- "${mark[@]}"
put "$T/file" </dev/null
refused "a workdir that is a file is refused" --workdir "$T/file" -- "${mark[@]}"
mkdir -m 0777 "$T/rootdir"
refused "a workdir owned by root (even mode 0777) is refused" --workdir "$T/rootdir" -- "${mark[@]}"
other_home=$(getent passwd "$SBX_TEST_OTHER_USER" | cut -d: -f6)
refused "another user's directory is refused" --workdir "$other_home" -- "${mark[@]}"
refused "/ as workdir is refused" --workdir / -- "${mark[@]}"
refused "/etc as workdir is refused" --workdir /etc -- "${mark[@]}"
refused "a missing workdir is refused" --workdir "$T/missing" -- "${mark[@]}"

# --ro-bind: allowed prefixes in the test config are $SBX_TEST_ROOT/data and
# $SBX_TEST_ROOT/share; $SBX_TEST_ROOT/etc is root's and outside them.
refused "--ro-bind of a root file outside the prefixes is refused" \
        --workdir "$W" --ro-bind "$SBX_TEST_ROOT/etc/helper.conf" -- "${mark[@]}"
refused "--ro-bind of /root is refused" --workdir "$W" --ro-bind /root -- "${mark[@]}"
refused "--ro-bind escaping a prefix with .. is refused" \
        --workdir "$W" --ro-bind "$SBX_TEST_ROOT/data/../etc" -- "${mark[@]}"
mkdir -p "$SBX_TEST_ROOT/data-evil"
refused "--ro-bind of a sibling sharing the prefix's name is refused" \
        --workdir "$W" --ro-bind "$SBX_TEST_ROOT/data-evil" -- "${mark[@]}"
rmdir "$SBX_TEST_ROOT/data-evil"
# The caller owns the symlink, not what it points to: following it would
# bind root's directory into the sandbox.
ln -s /root "$T/evil" && chown -h "$SBX_TEST_USER:" "$T/evil"
refused "--ro-bind of a caller-owned symlink to /root is refused" \
        --workdir "$W" --ro-bind "$T/evil" -- "${mark[@]}"
refused "--ro-bind of another user's home is refused" \
        --workdir "$W" --ro-bind "$other_home" -- "${mark[@]}"
refused "a relative --ro-bind is refused" --workdir "$W" --ro-bind data -- "${mark[@]}"

# Allowed binds are visible and read-only.
mkdir -p "$T/ro" && echo caller-data > "$T/ro/f" && chown -R "$SBX_TEST_USER:" "$T/ro"
echo admin-data > "$SBX_TEST_ROOT/share/ro-bind-test"
put "$W/ro.sh" <<SH
cat "$T/ro/f" "$SBX_TEST_ROOT/share/ro-bind-test"
if echo x > "$T/ro/f"; then echo WROTE; fi 2>/dev/null
if echo x > "$T/ro/new"; then echo CREATED; fi 2>/dev/null
SH
hrun --workdir "$W" --ro-bind "$T/ro" --ro-bind "$SBX_TEST_ROOT/share/ro-bind-test" -- /bin/sh "$W/ro.sh"
is "allowed --ro-bind paths are visible inside" "$(head -n2 "$T/out" | tr '\n' ' ')" "caller-data admin-data "
check_fails "a caller-owned --ro-bind is read-only" grep -q WROTE "$T/out"
check_fails "no file can be created in a --ro-bind dir" grep -q CREATED "$T/out"
is "the host file is unchanged" "$(cat "$T/ro/f")" caller-data
rm -f "$SBX_TEST_ROOT/share/ro-bind-test"
done_testing
