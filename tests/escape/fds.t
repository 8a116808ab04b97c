#!/bin/bash
# No fd of the caller leaks into the sandbox (a leaked fd is a way out of
# every mount and namespace), and the status fd cannot be forged.
. "$(dirname "$0")/../lib/lib.sh"
require_test_root
new_workspace
home=$(getent passwd "$SBX_TEST_USER" | cut -d: -f6)
echo SBX-SECRET > "$home/fd-secret"; chown "$SBX_TEST_USER:" "$home/fd-secret"; chmod 600 "$home/fd-secret"
at_exit 'rm -f "$home/fd-secret"'
py=$(payload list_fds.py)

# fd 5: a file in the caller's home; fd 9: the caller's home directory.
put "$W/wrap.sh" <<SH
exec 5<"$home/fd-secret" 9<"$home"
exec "\$@"
SH
rc=0
as_user sh -c 'exec 3>"$1/status.json" >"$1/out" 2>"$1/err" </dev/null; shift; exec sh "$@"' sh "$T" \
        "$W/wrap.sh" "$SBX_HELPER" --status-fd 3 --workdir "$W" -- /usr/bin/python3 -I "$py" || rc=$?
[ "$rc" -eq 0 ] || show_run
is "only fds 0 1 2 are open in the candidate" "$(awk '{ print $1 }' "$T/out" | tr '\n' ' ')" "0 1 2 "
check_fails "the caller's fd 5 (a home file) is not inherited" grep -q fd-secret "$T/out"
check_fails "the status file is not reachable from inside" grep -q status.json "$T/out"

HRUN_HOSTILE=30 hrun --workdir "$W" --timeout 10 -- /usr/bin/python3 -I "$(payload forge_status.py)"
diag "forger: $(head -n1 "$T/out" | head -c 300)"
is "forged status: the helper reports exit_code 1" "$(jfield exit_code)" 1
is "forged status: exactly one JSON line on the status fd" "$(wc -l < "$T/status.json")" 1
is "forged status: rc 1" "$rc" 1
is "forged status: the memory of init and its parent does not open" "$(sed -n 2p "$T/out")" "memory opened: none"
done_testing
