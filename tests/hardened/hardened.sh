# Shared by tests/hardened/*.t (sourced after tests/lib/lib.sh): builds
# harden-exec, the tool that simulates a hardened host for one process tree
# (no user namespaces: a seccomp filter; no CAP_SYS_ADMIN: the bounding
# set), and runs the test user under it. Nothing on the machine changes: no
# sysctl, no cgroup, no other process.

HX_SRC=$(cd "$(dirname "$0")" && pwd)/harden-exec.c

# hardened_setup: every hardened test needs the prepared root, root itself
# (only root may install a filter without no_new_privs) and a C compiler
# with libseccomp; a missing one is said, never hidden.
hardened_setup() {
        require_test_root
        [ "$(id -u)" -eq 0 ] || skip_all "needs root: harden-exec installs its filter as root"
        HX_DIR=$(mktemp -d /tmp/sbx-hx.XXXXXX) || { printf '1..1\nnot ok 1 - mktemp\n'; exit 1; }
        chmod 0755 "$HX_DIR"
        # lib.sh has its own EXIT trap (the workspaces): keep it, run it after ours.
        _hx_prev_exit=""
        if [ -n "$(trap -p EXIT)" ]; then
                eval "set -- $(trap -p EXIT)"
                _hx_prev_exit=$3
        fi
        trap '_hx_cleanup' EXIT
        HARDEN_EXEC=$HX_DIR/harden-exec
        if ! cc -O2 -Wall -Wextra -Werror -o "$HARDEN_EXEC" "$HX_SRC" -lseccomp 2>"$HX_DIR/cc.err"; then
                # CI installs gcc and libseccomp-dev: a failed build is a
                # failure there, not a reason to skip.
                echo "1..1"
                echo "not ok 1 - build harden-exec (cc ... -lseccomp)"
                sed 's/^/# /' "$HX_DIR/cc.err" >&2
                exit 1
        fi
}

_hx_cleanup() {
        rm -rf "$HX_DIR"
        eval "$_hx_prev_exit"
}

# hx_as_named USER HX_FLAGS... -- CMD...: as lib.sh's as_user_named, but
# through harden-exec with the given restrictions (none is the control).
hx_as_named() {
        local user=$1; shift
        local home; home=$(getent passwd "$user" | cut -d: -f6)
        (cd / && env -i PATH=/usr/bin:/bin HOME="$home" LANG=C.UTF-8 \
                ${SBX_EXTRA_ENV:-} "$HARDEN_EXEC" --user "$user" "$@")
}

# HX_FLAGS (e.g. "--no-userns") puts as_user and as_other under harden-exec;
# empty runs the control through the same tool.
HX_FLAGS=""
as_user() { hx_as_named "$SBX_TEST_USER" $HX_FLAGS -- "$@"; }
as_other() { hx_as_named "$SBX_TEST_OTHER_USER" $HX_FLAGS -- "$@"; }

# hx_run [HELPER OPTIONS] -- PROGRAM [ARG]...: lib.sh's hrun under
# harden-exec $HX_FLAGS: $SBX_HELPER as the test user, --status-fd 3 to
# $T/status.json, stdout to $T/out, stderr to $T/err; sets rc.
# HX_HOSTILE=SECONDS runs it under lib.sh's `hostile`.
hx_run() {
        local home outer=()
        home=$(getent passwd "$SBX_TEST_USER" | cut -d: -f6)
        [ -n "${HX_HOSTILE:-}" ] && outer=(hostile "$HX_HOSTILE")
        rc=0
        : > "$T/status.json"; : > "$T/out"; : > "$T/err"
        chown "$SBX_TEST_USER:" "$T/status.json" "$T/out" "$T/err"
        (cd / && exec 3>"$T/status.json" >"$T/out" 2>"$T/err" </dev/null &&
         "${outer[@]}" env -i PATH=/usr/bin:/bin HOME="$home" LANG=C.UTF-8 \
                "$HARDEN_EXEC" $HX_FLAGS --user "$SBX_TEST_USER" -- \
                "$SBX_HELPER" --status-fd 3 "$@") || rc=$?
}

# The namespaces a sandbox must own, and the one it may not get here.
HX_NS_LINKS="/proc/self/ns/mnt /proc/self/ns/pid /proc/self/ns/net /proc/self/ns/ipc /proc/self/ns/uts /proc/self/ns/user"

# user_nproc_count: processes the test user owns right now, on the host.
user_nproc_count() {
        local uid; uid=$(id -u "$SBX_TEST_USER")
        ps -e -o uid= | awk -v u="$uid" '$1 == u { n++ } END { print n + 0 }'
}

# --- sbx-run under the simulation ---------------------------------------------
PROBE_TIERS=$(cd "$(dirname "$0")" && pwd)/probe-tiers.py

# sbx HX_FLAGS ARGS...: sbx-run as the test user under harden-exec HX_FLAGS
# ("" for none); stdout to $T/out, stderr to $T/err, exit status in rc.
sbx() {
        local flags=$1; shift
        rc=0
        HX_FLAGS=$flags as_user "$SBX_RUN" "$@" >"$T/out" 2>"$T/err" || rc=$?
}

# probe_json HX_FLAGS: runs sbx-run --probe --json and leaves one line per
# tier, "NAME yes|no REASON", in $T/tiers (read with verdict and reason).
probe_json() {
        sbx "$1" --probe --json
        cp "$T/out" "$T/probe.json"
        "$HOST_PY" "$PROBE_TIERS" "$T/probe.json" >"$T/tiers" 2>>"$T/err" ||
                diag "probe JSON: $(head -c 600 "$T/probe.json")" "$(tail -n 3 "$T/err")"
}
verdict() { awk -v t="$1" '$1 == t { print $2 }' "$T/tiers"; }
reason() { awk -v t="$1" '$1 == t { $1 = ""; $2 = ""; sub(/^ +/, ""); print }' "$T/tiers"; }

# put_fork_payloads DIR: DIR/forks.py forks up to 500 sleepers and prints
# "EAGAIN N" when the cap stops it (else "UNLIMITED N"); DIR/bomb.py forks
# without end.
put_fork_payloads() {
        put "$1/forks.py" <<'PY'
import os, time
n = 0
try:
    while n < 500:
        if os.fork() == 0:
            time.sleep(30)
            os._exit(0)
        n += 1
except BlockingIOError:
    print("EAGAIN", n)
else:
    print("UNLIMITED", n)
PY
        put "$1/bomb.py" <<'PY'
import os
while True:
    try:
        os.fork()
    except OSError:
        pass
PY
}

# The helper's cgroup keys (pids_cgroup, memory_cgroup): what pids-cgroup.t
# and memory-cgroup.t share. skip NAME WHY: a check that cannot run here.
skip() { ok "$1 # skip $2"; }

# cgroup_bad_paths_refused KEY: each bad value of KEY in helper.conf is
# refused naming the file, the line and the key (conf KEY VALUE writes it).
cgroup_bad_paths_refused() {
        local key=$1 bad n long
        long=/sys/fs/cgroup/$(printf 'x%.0s' $(seq 1 260))
        for bad in relative/sbx /tmp/sbx /sys/fs/cgroup /sys/fs/cgroupx /sys/fs/cgroup/../../etc \
                   /sys/fs/cgroup/sbx/.. /sys/fs/cgroup/a..b "$long"; do
                conf "$key" "$bad"
                n=$(wc -l < "$CONF")
                refused "$key = ${bad:0:40} is refused" --workdir "$W" -- /bin/sh "$W/mark.sh"
                check "  and the error names $CONF:$n and the key" grep -q "helper\.conf:$n: $key" "$T/err"
        done
}

# cgroup2_without CONTROLLER: a cgroup2 directory below /sys/fs/cgroup whose
# children do not get CONTROLLER, or nothing.
cgroup2_without() {
        local d
        for d in /sys/fs/cgroup/unified; do
                if [ "$(stat -f -c %T "$d" 2>/dev/null)" = cgroup2fs ] &&
                   ! grep -qw "$1" "$d/cgroup.subtree_control" 2>/dev/null; then
                        echo "$d"; return
                fi
        done
}

# delegated_cgroup_why CONTROLLER DIR VAR: why DIR is no delegated cgroup2
# subtree with CONTROLLER (empty when it is one; VAR names the override).
delegated_cgroup_why() {
        local ctl=$1 dir=$2 var=$3
        if [ ! -d "$dir" ]; then
                echo "no delegated $ctl cgroup: $dir does not exist (set $var, see docs/admin.md)"
        elif [ "$(stat -f -c %T "$dir")" != cgroup2fs ]; then
                echo "$dir is not on cgroup2 (this host: $(stat -f -c %T /sys/fs/cgroup) at /sys/fs/cgroup)"
        elif ! grep -qw "$ctl" "$dir/cgroup.subtree_control"; then
                echo "$ctl is not in $dir/cgroup.subtree_control"
        fi
}
