#!/bin/bash
# On a host where user namespaces cannot be created, the setuid helper still
# builds its whole sandbox (mount, pid, net, ipc, uts namespaces, caps drop,
# no_new_privs, seccomp, rlimits), says in --probe and in the status JSON
# that process counting fell back from "userns", caps the process count at
# --nproc above what the caller already runs, and contains a fork bomb.
. "$(dirname "$0")/../lib/lib.sh"
. "$(dirname "$0")/hardened.sh"
hardened_setup
new_workspace

NPROC=30
# find_key KEY FILE: the first value of KEY anywhere in the JSON of FILE
# (--probe may nest it); fails when absent or when FILE is not JSON.
find_key() {
        "$HOST_PY" - "$1" "$2" <<'PY'
import json, sys
key, path = sys.argv[1], sys.argv[2]
def walk(v):
    if isinstance(v, dict):
        if key in v:
            return v[key]
        v = list(v.values())
    if isinstance(v, list):
        for x in v:
            r = walk(x)
            if r is not None:
                return r
    return None
r = walk(json.load(open(path)))
sys.exit("no %s in %s" % (key, path)) if r is None else print(r)
PY
}

# --- the control: the same runs with user namespaces available ------------
HX_FLAGS=""
hx_run --workdir "$W" -- /bin/true
ctl_mode=$(jfield nproc_mode 2>/dev/null)
if [ "$rc" -eq 0 ] && [ "$ctl_mode" = userns ]; then
        ok "control: with user namespaces, nproc_mode is userns"
elif [ "$rc" -eq 0 ]; then
        ok "control: with user namespaces, nproc_mode is userns # SKIP this host has none itself (nproc_mode $ctl_mode)"
else
        not_ok "control: the helper runs at all"; show_run
fi

put_fork_payloads "$W"

field() { awk -v f="$1:" '$1 == f { print $2 }' "$T/out"; }

# Each check_* takes the label of the kind of host; HX_FLAGS says which.
# The run works, and both the status and --probe say the fallback is in force.
check_fallback_mode() {
        local label=$1
        hx_run --workdir "$W" -- /bin/true
        is "$label: a run succeeds (rc 0, status exited)" "$rc $(jfield status)" "0 exited"
        mode=$(jfield nproc_mode)
        case $mode in
        rlimit|cgroup) ok "$label: status JSON nproc_mode is the fallback ($mode)" ;;
        *) not_ok "$label: status JSON nproc_mode is the fallback"; show_run ;;
        esac

        rc=0
        as_user "$SBX_HELPER" --probe >"$T/probe" 2>"$T/err" || rc=$?
        is "$label: --probe still says the helper can run (exit 0)" "$rc" 0
        is "$label: --probe reports the same nproc_mode as a run" \
                "$(find_key nproc_mode "$T/probe")" "$mode"
}

# The sandbox is whole: every namespace but the user one is the run's own,
# and the candidate is the caller with nothing more.
check_sandbox_whole() {
        local label=$1 link n inside outside filters
        as_user /usr/bin/readlink $HX_NS_LINKS >"$T/outside"
        hx_run --workdir "$W" -- /usr/bin/readlink $HX_NS_LINKS
        [ "$rc" -eq 0 ] || show_run
        for link in $HX_NS_LINKS; do
                n=${link##*/}
                outside=$(grep "^$n:" "$T/outside") inside=$(grep "^$n:" "$T/out")
                if [ "$n" = user ]; then
                        is "$label: the candidate shares the host's user namespace (the fallback is real)" \
                                "$inside" "$outside"
                elif [ -n "$inside" ] && [ "$inside" != "$outside" ]; then
                        ok "$label: own $n namespace"
                else
                        not_ok "$label: own $n namespace"; diag "inside '$inside' outside '$outside'"
                fi
        done

        hx_run --workdir "$W" -- /bin/cat /proc/self/status
        is "$label: the candidate runs as the caller" "$(field Uid)" \
                "$(id -u "$SBX_TEST_USER")"
        is "$label: no capabilities (CapEff CapPrm CapBnd CapAmb)" \
                "$(field CapEff) $(field CapPrm) $(field CapBnd) $(field CapAmb)" \
                "0000000000000000 0000000000000000 0000000000000000 0000000000000000"
        is "$label: no_new_privs is set" "$(field NoNewPrivs)" 1
        # Our filter plus the helper's: the helper's own is one more layer.
        filters=$(field Seccomp_filters)
        if [ "${filters:-0}" -ge 2 ]; then ok "$label: the helper stacked its seccomp filter ($filters filters)"
        else not_ok "$label: the helper stacked its seccomp filter"; diag "Seccomp_filters '$filters'"; fi
}

# rlimit mode: RLIMIT_NPROC counts every process of the uid, so the helper
# sets it at --nproc above what the caller runs already; forking stops there.
check_nproc_cap() {
        local label=$1 before after soft verdict forks
        before=$(user_nproc_count)
        hx_run --workdir "$W" --nproc $NPROC -- /bin/cat /proc/self/limits
        after=$(user_nproc_count)
        [ "$after" -gt "$before" ] && before=$after
        soft=$(awk '/^Max processes/ { print $3 }' "$T/out")
        if [ "$mode" = rlimit ]; then
                if [ -n "$soft" ] && [ "$soft" -ge $NPROC ] && [ "$soft" -le $((NPROC + before + 8)) ]; then
                        ok "$label: RLIMIT_NPROC is --nproc plus the caller's processes ($soft; $NPROC + ~$before)"
                else
                        not_ok "$label: RLIMIT_NPROC is --nproc plus the caller's processes"
                        diag "soft '$soft', want $NPROC..$((NPROC + before + 8))"; show_run
                fi
        else
                is "$label (cgroup mode): RLIMIT_NPROC is not the limit" "${soft:+set}" set
        fi
        # A bounded fork loop: it must hit EAGAIN near --nproc, not run to 500.
        hx_run --workdir "$W" --nproc $NPROC --timeout 20 -- /usr/bin/python3 -I "$W/forks.py"
        read -r verdict forks < "$T/out"
        if [ "$verdict" = EAGAIN ] && [ "$forks" -ge 1 ] && [ "$forks" -le $((NPROC + 8)) ]; then
                ok "$label: forking stops at the cap ($forks forks with --nproc $NPROC)"
        else
                not_ok "$label: forking stops at the cap"; show_run
        fi
}

# A real fork bomb, under outer limits: the run ends at its timeout and
# nothing of it survives on the host.
check_fork_bomb() {
        local label=$1 start took left
        start=$(date +%s)
        HX_HOSTILE=60 hx_run --workdir "$W" --nproc $NPROC --timeout 5 \
                -- /usr/bin/python3 -I "$W/bomb.py"
        took=$(( $(date +%s) - start ))
        # The outer limit is 60 s: well before it, the helper ended the run.
        if [ "$took" -le 30 ]; then
                ok "$label: the fork bomb run ends by itself (${took}s, rc $rc)"
        else
                not_ok "$label: the fork bomb run ends by itself"; diag "took ${took}s, rc $rc: the outer timeout had to end it"
        fi
        is "$label: the fork bomb is reported as a timeout" "$(jfield status)" timeout
        # Counted by the bomb's own path (unique to this script's workdir), so
        # others using the test account on this machine do not disturb it.
        left=""
        for _ in 1 2 3 4 5 6 7 8 9 10; do
                left=$(user_pids "$W/bomb.py")
                [ -z "$left" ] && break
                sleep 0.5
        done
        if [ -z "$left" ]; then ok "$label: no process of the fork bomb survives the run"
        else not_ok "$label: no process of the fork bomb survives the run"
                diag "$(wc -w <<<"$left") left: $(tr '\n' ' ' <<<"$left" | head -c 200)"; fi
}

# no_userns_checks LABEL HX_FLAGS...: every check, on one kind of host.
no_userns_checks() {
        local label=$1; shift
        HX_FLAGS="$*"
        check_fallback_mode "$label"
        check_sandbox_whole "$label"
        check_nproc_cap "$label"
        check_fork_bomb "$label"
}

# Docker's seccomp profile: clone3 answers ENOSYS (glibc falls back to
# clone), unshare/clone with CLONE_NEWUSER answer EPERM.
no_userns_checks "no-userns (seccomp, clone3 ENOSYS)" --no-userns
# user.max_user_namespaces=0 and the like: clone3 works, only the namespace
# is refused.
no_userns_checks "no-userns (sysctl-like, clone3 allowed)" --no-userns --allow-clone3

done_testing
