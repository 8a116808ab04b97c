#!/bin/bash
# helper.conf's memory_cgroup: each run in a cgroup of its own below a
# delegated cgroup v2 parent, with memory.max from --memory and no swap, so
# that memory no process is charged for (tmpfs, shm, memfd, page cache) is
# bounded too; the status gives the run's peak and whether the OOM killer
# fired (status memory-limit). A bad value is refused with the file and
# line; a cgroup that cannot be used leaves RLIMIT_AS alone, and the status
# and --probe say why.
#
# This script never creates a cgroup of its own: the cgroup checks run only
# against a subtree an admin delegated (SBX_TEST_MEMORY_CGROUP, else
# /sys/fs/cgroup/sbx, set up as docs/admin.md says) and skip, saying why,
# when there is none.
. "$(dirname "$0")/../lib/lib.sh"
. "$(dirname "$0")/hardened.sh"
hardened_setup
new_workspace
put "$W/mark.sh" <<SH
: > "$W/ran"
SH

build_alt_helper
SBX_HELPER=$alt/libexec/sbx-helper
CONF=$alt/etc/helper.conf

# conf KEY VALUE...: the test config with "KEY = VALUE" lines at its end.
conf() {
        write_helper_conf "$SBX_REPO/policy/helper.conf" "$CONF" "$SBX_TEST_GROUP"
        while [ $# -ge 2 ]; do
                printf '%s = %s\n' "$1" "$2" >> "$CONF"
                shift 2
        done
}

# pget KEY.KEY... FILE: one value of a JSON document, as JSON (null, true,
# false, numbers) or the bare string.
pget() {
        "$HOST_PY" - "$1" "$2" <<'PY'
import json, sys
v = json.loads(open(sys.argv[2]).read().splitlines()[0])
for k in sys.argv[1].split("."):
    v = v.get(k) if isinstance(v, dict) else None
print(json.dumps(v) if not isinstance(v, str) else v)
PY
}

# --- bad values: refused naming the file and line, nothing runs -------------
cgroup_bad_paths_refused memory_cgroup
# A process is in one cgroup: the run's one cgroup holds both controllers.
conf memory_cgroup /sys/fs/cgroup/sbx-m pids_cgroup /sys/fs/cgroup/sbx-p
refused "memory_cgroup and pids_cgroup naming different directories are refused" \
        --workdir "$W" -- /bin/sh "$W/mark.sh"
check "  and the error names $CONF and both keys" grep -q "helper\.conf: memory_cgroup and pids_cgroup" "$T/err"
as_user "$SBX_HELPER" --probe >"$T/probe" 2>/dev/null
is "--probe with a bad memory_cgroup: the config is invalid" "$(pget config.valid "$T/probe")" false

# --- a cgroup that cannot be used: RLIMIT_AS only, and the status says why ---
# fallback_checks LABEL DIR WORDS
fallback_checks() {
        local label=$1 dir=$2 words=$3
        conf memory_cgroup "$dir"
        hx_run --workdir "$W" --memory 64M -- /bin/cat /proc/self/limits
        is "$label: the run succeeds" "$rc $(jfield status)" "0 exited"
        if jfield message | grep -q "memory_cgroup $dir: .*$words.*: RLIMIT_AS only"; then
                ok "$label: the status message says why the cgroup was not used"
        else
                not_ok "$label: the status message says why the cgroup was not used"; show_run
        fi
        is "$label: memory_peak null, oom_killed false" \
                "$(pget memory_peak "$T/status.json") $(pget oom_killed "$T/status.json")" "null false"
        check "$label: RLIMIT_AS is still --memory" grep -Eq '^Max address space +67108864 ' "$T/out"
        as_user "$SBX_HELPER" --probe >"$T/probe" 2>/dev/null
        is "$label: --probe says the memory cgroup is not usable" \
                "$(pget host.memory.cgroup "$T/probe") $(pget host.memory.memory_cgroup.path "$T/probe") $(pget host.memory.memory_cgroup.usable "$T/probe")" \
                "false $dir false"
        check "$label: --probe says why" grep -q "$words" <(pget host.memory.memory_cgroup.why_not "$T/probe")
        is "$label: --probe lists what is not bounded" \
                "$("$HOST_PY" -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["host"]["memory"]["not_bounded"]))' "$T/probe")" 3
}

fallback_checks "missing directory" "/sys/fs/cgroup/sbx-test-missing-$$" "No such file or directory"

v1=/sys/fs/cgroup/memory
if [ -d "$v1" ] && [ "$(stat -f -c %T "$v1")" = cgroupfs ]; then
        fallback_checks "cgroup v1 directory" "$v1" "not a cgroup2 directory"
else
        skip "cgroup v1 directory: RLIMIT_AS only" "no cgroup v1 memory hierarchy at $v1 on this host"
fi

# A cgroup2 directory whose children do not get the memory controller.
nomem=$(cgroup2_without memory)
if [ -n "$nomem" ]; then
        fallback_checks "cgroup2 without memory in subtree_control" "$nomem" '"memory" is not in'
else
        skip "cgroup2 without the memory controller: RLIMIT_AS only" \
                "no cgroup2 directory below /sys/fs/cgroup without memory in its subtree_control"
fi

# --- a delegated memory subtree: the run is bounded by it, then removed -----
deleg=${SBX_TEST_MEMORY_CGROUP:-/sys/fs/cgroup/sbx}
why=$(delegated_cgroup_why memory "$deleg" SBX_TEST_MEMORY_CGROUP)
runs_left() { find "$deleg" -maxdepth 1 -name 'run-*' -type d 2>/dev/null | wc -l; }
if [ -n "$why" ]; then
        for t in "a run is in its own memory cgroup (memory_peak, no message)" \
                 "the candidate's oom_score_adj is 1000" \
                 "256 MB in /dev/shm under --memory 64M: status memory-limit, oom_killed" \
                 "the run's peak stays within --memory" "the run's cgroup is removed" \
                 "--memory none: the run still gets a cgroup, unbounded" "--probe says the memory cgroup is usable"; do
                skip "$t" "$why"
        done
        done_testing
fi

conf memory_cgroup "$deleg"
before=$(runs_left)
hx_run --workdir "$W" --memory 64M -- /bin/cat /proc/self/cgroup /proc/self/oom_score_adj
peak=$(pget memory_peak "$T/status.json")
if [ "$rc" -eq 0 ] && [ -z "$(jfield message)" ] && grep -q '/run-' "$T/out" &&
   [ "$peak" != null ] && [ "$peak" -gt 0 ]; then
        ok "a run is in its own memory cgroup (memory_peak $peak, no message)"
else
        not_ok "a run is in its own memory cgroup (memory_peak, no message)"; show_run
fi
# The OOM killer takes the candidate's tree first: init stays to report.
if grep -qx 1000 "$T/out"; then
        ok "the candidate's oom_score_adj is 1000"
else
        not_ok "the candidate's oom_score_adj is 1000"; show_run
fi
# Page cache of a tmpfs file: charged to no process's RLIMIT_AS, only to the cgroup.
HX_HOSTILE=60 hx_run --workdir "$W" --memory 64M --tmpfs-size 400M --timeout 30 -- \
        /bin/dd if=/dev/zero of=/dev/shm/fill bs=1M count=256
if [ "$(jfield status) $(pget oom_killed "$T/status.json") $(jfield signal)" = "memory-limit true 9" ]; then
        ok "256 MB in /dev/shm under --memory 64M: status memory-limit, oom_killed"
else
        not_ok "256 MB in /dev/shm under --memory 64M: status memory-limit, oom_killed"; show_run
fi
peak=$(pget memory_peak "$T/status.json")
if [ "$peak" = null ]; then
        skip "the run's peak stays within --memory" "this kernel has no memory.peak"
else
        check "the run's peak stays within --memory ($peak)" [ "$peak" -le 67108864 ]
fi
is "the run's cgroup is removed" "$(runs_left)" "$before"
conf memory_cgroup "$deleg" max_memory none
hx_run --workdir "$W" --memory none -- /bin/true
is "--memory none: the run still gets a cgroup, unbounded" \
        "$rc $(jfield status) $(pget oom_killed "$T/status.json") [$(jfield message)]" "0 exited false []"
as_user "$SBX_HELPER" --probe >"$T/probe" 2>/dev/null
is "--probe says the memory cgroup is usable" \
        "$(pget host.memory.cgroup "$T/probe") $(pget host.memory.memory_cgroup.usable "$T/probe")" "true true"
done_testing
