#!/bin/bash
# helper.conf's pids_cgroup: the middle step of the process-count fallback
# (user namespace, else a delegated pids cgroup, else RLIMIT_NPROC above the
# caller's count). A bad value is refused with the file and line; a cgroup
# that cannot be used falls back to rlimit and the status and --probe say
# why; a usable one caps the run and is removed after it.
#
# This script never creates a cgroup of its own: the cgroup checks run only
# against a subtree an admin delegated (SBX_TEST_PIDS_CGROUP, else
# /sys/fs/cgroup/sbx, set up as docs/admin.md says) and skip, saying why,
# when there is none.
. "$(dirname "$0")/../lib/lib.sh"
. "$(dirname "$0")/hardened.sh"
hardened_setup
new_workspace
put "$W/mark.sh" <<SH
: > "$W/ran"
SH

NPROC=30

# A helper of our own, reading its config from a directory this test owns.
build_alt_helper
SBX_HELPER=$alt/libexec/sbx-helper
CONF=$alt/etc/helper.conf

# conf KEY VALUE: the test config with "KEY = VALUE" as its last line.
conf() {
        write_helper_conf "$SBX_REPO/policy/helper.conf" "$CONF" "$SBX_TEST_GROUP"
        printf '%s = %s\n' "$1" "$2" >> "$CONF"
}

# pget KEY.KEY... FILE: one value of a JSON document (null, true, false as such).
pget() {
        "$HOST_PY" - "$1" "$2" <<'PY'
import json, sys
v = json.load(open(sys.argv[2]))
for k in sys.argv[1].split("."):
    v = v.get(k) if isinstance(v, dict) else None
print(json.dumps(v) if not isinstance(v, str) else v)
PY
}

# --- bad values: refused naming the file and line, nothing runs -------------
cgroup_bad_paths_refused pids_cgroup
as_user "$SBX_HELPER" --probe >"$T/probe" 2>/dev/null
is "--probe with a bad pids_cgroup: the config is invalid" "$(pget config.valid "$T/probe")" false

# --- a cgroup that cannot be used: rlimit, and the status says why ------------
# fallback_checks LABEL DIR WORDS: DIR configured, user namespaces refused.
fallback_checks() {
        local label=$1 dir=$2 words=$3 soft
        conf pids_cgroup "$dir"
        HX_FLAGS=--no-userns
        hx_run --workdir "$W" --nproc $NPROC -- /bin/cat /proc/self/limits
        is "$label: the run succeeds" "$rc $(jfield status)" "0 exited"
        is "$label: nproc_mode is rlimit" "$(jfield nproc_mode)" rlimit
        if jfield message | grep -q "pids_cgroup $dir: .*$words.*nproc_mode rlimit"; then
                ok "$label: the status message says why the cgroup was not used"
        else
                not_ok "$label: the status message says why the cgroup was not used"; show_run
        fi
        soft=$(awk '/^Max processes/ { print $3 }' "$T/out")
        if [ -n "$soft" ] && [ "$soft" != unlimited ] && [ "$soft" -ge $NPROC ]; then
                ok "$label: RLIMIT_NPROC is the cap ($soft)"
        else
                not_ok "$label: RLIMIT_NPROC is the cap"; diag "soft '$soft'"
        fi
        as_user "$SBX_HELPER" --probe >"$T/probe" 2>/dev/null
        is "$label: --probe says rlimit and the cgroup is not usable" \
                "$(pget host.nproc_mode "$T/probe") $(pget host.pids_cgroup.path "$T/probe") $(pget host.pids_cgroup.usable "$T/probe")" \
                "rlimit $dir false"
        check "$label: --probe says why" grep -q "$words" <(pget host.pids_cgroup.why_not "$T/probe")
        # With user namespaces the cgroup is not touched and nothing is said.
        HX_FLAGS=""
        hx_run --workdir "$W" -- /bin/true
        if [ "$(jfield nproc_mode)" = userns ]; then
                is "$label, user namespaces allowed: empty message" "[$(jfield message)]" "[]"
        else
                skip "$label, user namespaces allowed: empty message" "this host has no user namespaces itself"
        fi
}

fallback_checks "missing directory" "/sys/fs/cgroup/sbx-test-missing-$$" "No such file or directory"

v1=/sys/fs/cgroup/pids
if [ -d "$v1" ] && [ "$(stat -f -c %T "$v1")" = cgroupfs ]; then
        fallback_checks "cgroup v1 directory" "$v1" "not a cgroup2 directory"
else
        skip "cgroup v1 directory falls back to rlimit" "no cgroup v1 pids hierarchy at $v1 on this host"
fi

# A cgroup2 directory whose children do not get the pids controller.
nopids=$(cgroup2_without pids)
if [ -n "$nopids" ]; then
        fallback_checks "cgroup2 without pids in subtree_control" "$nopids" '"pids" is not in'
else
        skip "cgroup2 without the pids controller falls back to rlimit" \
                "no cgroup2 directory below /sys/fs/cgroup without pids in its subtree_control"
fi

# --- a delegated pids subtree: the run is capped by it, and it is removed ----
deleg=${SBX_TEST_PIDS_CGROUP:-/sys/fs/cgroup/sbx}
why=$(delegated_cgroup_why pids "$deleg" SBX_TEST_PIDS_CGROUP)
runs_left() { find "$deleg" -maxdepth 1 -name 'run-*' -type d 2>/dev/null | wc -l; }
if [ -n "$why" ]; then
        for t in "a run is capped by the pids cgroup (nproc_mode cgroup)" \
                 "forking stops at --nproc in the pids cgroup" "the fork bomb is contained" \
                 "the run's cgroup is removed" "--probe says cgroup"; do
                skip "$t" "$why"
        done
        done_testing
fi

conf pids_cgroup "$deleg"
HX_FLAGS=--no-userns
before=$(runs_left)
hx_run --workdir "$W" --nproc $NPROC -- /bin/sh -c 'cat /proc/self/cgroup; cat /proc/self/limits'
if [ "$rc" -eq 0 ] && [ "$(jfield nproc_mode)" = cgroup ] && [ -z "$(jfield message)" ] &&
   grep -q 'run-' "$T/out" && grep -q '^Max processes *unlimited' "$T/out"; then
        ok "a run is capped by the pids cgroup (nproc_mode cgroup)"
else
        not_ok "a run is capped by the pids cgroup (nproc_mode cgroup)"; show_run
fi
put_fork_payloads "$W"
hx_run --workdir "$W" --nproc $NPROC --timeout 20 -- /usr/bin/python3 -I "$W/forks.py"
read -r verdict forks < "$T/out"
if [ "$verdict" = EAGAIN ] && [ "$forks" -ge 1 ] && [ "$forks" -lt $NPROC ]; then
        ok "forking stops at --nproc in the pids cgroup ($forks forks)"
else
        not_ok "forking stops at --nproc in the pids cgroup"; show_run
fi
HX_HOSTILE=60 hx_run --workdir "$W" --nproc $NPROC --timeout 5 -- /usr/bin/python3 -I "$W/bomb.py"
for _ in 1 2 3 4 5 6 7 8 9 10; do
        [ -z "$(user_pids "$W/bomb.py")" ] && break
        sleep 0.5
done
is "the fork bomb is contained (timeout, nothing left)" "$(jfield status) $(user_pids "$W/bomb.py" | wc -l)" "timeout 0"
is "the run's cgroup is removed" "$(runs_left)" "$before"
as_user "$SBX_HELPER" --probe >"$T/probe" 2>/dev/null
is "--probe says cgroup" "$(pget host.nproc_mode "$T/probe") $(pget host.pids_cgroup.usable "$T/probe")" "cgroup true"
done_testing
