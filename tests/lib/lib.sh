# shellcheck shell=bash
# Shared TAP helpers for the integration tests (sourced by tests/*/*.t).
#
# tests/run-integration.sh prepares, as root, a fresh root-owned,
# world-readable directory and exports:
#   SBX_TEST_ROOT        the directory: bin/sbx-run, libexec/sbx-helper
#                        (setuid root, built to read etc/helper.conf here),
#                        etc/helper.conf, data/ (the repo's suites/, plus
#                        classeval/ and humaneval/model_samples/ from
#                        $SBX_TEST_DATA when there),
#                        tests/ (a copy of this tests/ tree)
#   SBX_HELPER           $SBX_TEST_ROOT/libexec/sbx-helper
#   SBX_RUN              $SBX_TEST_ROOT/bin/sbx-run
#   SBX_TEST_USER        unprivileged user in the helper's allowed group
#   SBX_TEST_OTHER_USER  unprivileged user NOT in the allowed group
#   SBX_TEST_GROUP       the allowed group
#   SBX_DATA             $SBX_TEST_ROOT/data
# Scripts run as root and drop to the test user with as_user.

set -u
_tap_n=0
_tap_failed=0

plan() { echo "1..$1"; }
ok() { _tap_n=$((_tap_n + 1)); echo "ok $_tap_n - $*"; }
not_ok() { _tap_n=$((_tap_n + 1)); _tap_failed=$((_tap_failed + 1)); echo "not ok $_tap_n - $*"; }
diag() { printf '# %s\n' "$@" >&2; }
# skip_all REASON: the whole script is skipped, with the reason printed.
skip_all() { echo "1..0 # SKIP $*"; exit 0; }
skip() { _tap_n=$((_tap_n + 1)); echo "ok $_tap_n # SKIP $*"; }
# check DESCRIPTION CMD...: ok when CMD exits 0.
check() { local d=$1; shift; if "$@"; then ok "$d"; else not_ok "$d"; fi; }
# check_fails DESCRIPTION CMD...: ok when CMD exits non-zero.
check_fails() { local d=$1; shift; if "$@"; then not_ok "$d"; else ok "$d"; fi; }
done_testing() { echo "1..$_tap_n"; [ "$_tap_failed" -eq 0 ]; exit $?; }

# users_outside_run_integration REPO: a test that also runs by hand (it
# needs no installed helper): there, as root, the test users are made
# (tests/lib/setup-root.sh); not as root, it is skipped, saying why.
users_outside_run_integration() {
        [ -z "${SBX_TEST_ROOT:-}" ] || return 0
        [ "$(id -u)" -eq 0 ] || skip_all "needs root (to make the test user) or tests/run-integration.sh"
        . "$1/tests/lib/setup-root.sh"
        setup_users
}

# Every test script needs the prepared root; outside run-integration.sh
# there is nothing to test against, and that is said, not hidden.
require_test_root() {
        [ -n "${SBX_TEST_ROOT:-}" ] && [ -d "$SBX_TEST_ROOT" ] ||
                skip_all "SBX_TEST_ROOT not set: run through tests/run-integration.sh (make check)"
}

# require_data FILE...: data sbx does not ship (ClassEval, real model
# outputs) comes from $SBX_TEST_DATA; without it the script is skipped, and
# says so. Shipped data (suites/) is never skipped for: its absence fails.
require_data() {
        local f
        for f in "$@"; do
                [ -r "$f" ] || skip_all "${f#"$SBX_DATA"/} is not shipped with sbx and SBX_TEST_DATA has no copy (make check-full with SBX_TEST_DATA=/path/to/shared/suites)"
        done
}

# have_toolchain CMD...: 0 when every CMD is on sbx's tool path
# (/usr/local/bin:/usr/bin:/bin, Debian's toolchains: make deps installs
# them). Else 1, after a skip line saying which is missing, or, with
# CI=true (CI installs every toolchain: .ci/run), after a failure.
have_toolchain() {
        local c missing=""
        for c in "$@"; do
                PATH=/usr/local/bin:/usr/bin:/bin command -v "$c" >/dev/null || missing="$missing $c"
        done
        [ -z "$missing" ] && return 0
        if [ "${CI:-}" = true ]; then
                not_ok "toolchain:$missing installed (CI=true: .ci/run installs every toolchain)"
        else
                skip "toolchain:$missing not installed (make deps installs it)"
        fi
        return 1
}

# as_user CMD...: runs CMD as the unprivileged test user with a clean
# environment (PATH, HOME, LANG only), from a directory it may enter.
as_user_named() {
        local user=$1; shift
        local home; home=$(getent passwd "$user" | cut -d: -f6)
        (cd / && env -i PATH=/usr/bin:/bin HOME="$home" LANG=C.UTF-8 \
                ${SBX_EXTRA_ENV:-} \
                setpriv --reuid="$user" --regid="$user" --init-groups -- "$@")
}
as_user() { as_user_named "$SBX_TEST_USER" "$@"; }
as_other() { as_user_named "$SBX_TEST_OTHER_USER" "$@"; }

# Cleanup on exit: at_exit CMD queues a command; scratch dirs of this script
# (named after its pid, which command substitutions share) are removed last.
_sbx_script_pid=$$
_sbx_exit_cmds=()
at_exit() { _sbx_exit_cmds+=("$1"); }
_sbx_cleanup() {
        local c
        for c in "${_sbx_exit_cmds[@]}"; do eval "$c" || true; done
        rm -rf /tmp/sbx-t."$_sbx_script_pid".*
}
trap _sbx_cleanup EXIT

# A fresh scratch dir owned by the test user, removed when the script ends
# (also when called as d=$(user_tmpdir)).
user_tmpdir() {
        local d; d=$(mktemp -d "/tmp/sbx-t.$_sbx_script_pid.XXXXXX")
        chown "$SBX_TEST_USER:" "$d"
        echo "$d"
}

# Outer limits for hostile tests: a regression fails the test instead of
# taking the machine down. hostile SECONDS CMD...
hostile() {
        local secs=$1; shift
        (ulimit -v 8388608; ulimit -u 4096 2>/dev/null || true
         timeout -k 5 "$secs" "$@")
}

# ---- Running the installed helper as the test user -------------------------
# The host python, never a pyenv or venv one: tests read JSON with it.
HOST_PY=/usr/bin/python3

# new_workspace: sets T (a scratch dir owned by the test user) and W (T/work,
# the workdir given to the helper). Status, stdout and stderr go to T.
new_workspace() {
        T=$(user_tmpdir)
        chmod 0755 "$T"
        mkdir -m 0755 "$T/work" && chown "$SBX_TEST_USER:" "$T/work"
        W=$T/work
}

# race_bind_target RUNS DIR SCRATCH FN: FN 1 .. FN RUNS, while a racer (as
# the test user) removes and re-creates DIR/f all along; after each run
# every root-owned file under DIR, and any the racer met, goes to
# SCRATCH/found. Sets raced_ok: how many FN calls returned 0.
race_bind_target() {
        local runs=$1 dir=$2 s=$3 fn=$4 racer i
        cp "$(dirname "${BASH_SOURCE[0]}")/mountpoint-racer.py" "$s/race.py"
        chmod 0644 "$s/race.py"
        : > "$s/found"; chown "$SBX_TEST_USER:" "$s/found"
        as_user touch "$dir/f"
        as_user "$HOST_PY" -I "$s/race.py" "$dir" "$s/stop" "$s/found" &
        racer=$!
        at_exit "touch $s/stop; kill $racer 2>/dev/null"
        raced_ok=0
        for i in $(seq "$runs"); do
                "$fn" "$i" && raced_ok=$((raced_ok + 1))
                find "$dir" -user root -exec sh -c 'echo "left root-owned: $1" >> "$2"' sh {} "$s/found" \;
        done
        touch "$s/stop"; wait "$racer"
}

# put FILE: writes stdin to FILE, owned by the test user (program text goes
# into files in the workdir, never onto argv).
put() { cat > "$1" && chown "$SBX_TEST_USER:" "$1"; }

# hrun [HELPER OPTIONS] -- PROGRAM [ARG]...: runs $SBX_HELPER as the test
# user with --status-fd 3 to $T/status.json, stdout to $T/out, stderr to
# $T/err, stdin from ${HRUN_STDIN:-/dev/null}; sets rc. HRUN_AS=other runs
# as the user outside the group; HRUN_HELPER picks another helper binary;
# HRUN_NOSTATUS=1 leaves out --status-fd (for --probe, --version);
# HRUN_HOSTILE=SECONDS runs it under `hostile` (outer timeout and ulimits).
hrun() {
        local user=$SBX_TEST_USER status=(--status-fd 3) outer=()
        [ "${HRUN_AS:-}" = other ] && user=$SBX_TEST_OTHER_USER
        [ "${HRUN_NOSTATUS:-0}" = 1 ] && status=()
        [ -n "${HRUN_HOSTILE:-}" ] && outer=(hostile "$HRUN_HOSTILE")
        local home; home=$(getent passwd "$user" | cut -d: -f6)
        rc=0
        : > "$T/status.json"; : > "$T/out"; : > "$T/err"
        chown "$user:" "$T/status.json" "$T/out" "$T/err"
        (cd / && "${outer[@]}" env -i PATH=/usr/bin:/bin HOME="$home" LANG=C.UTF-8 \
                ${SBX_EXTRA_ENV:-} \
                setpriv --reuid="$user" --regid="$user" --init-groups -- \
                sh -c 'exec 3>"$1/status.json" >"$1/out" 2>"$1/err" <"$2"; shift 2; exec "$@"' \
                sh "$T" "${HRUN_STDIN:-/dev/null}" "${HRUN_HELPER:-$SBX_HELPER}" \
                "${status[@]}" "$@") || rc=$?
}

# jfield KEY [FILE]: prints one field of the status JSON (FILE defaults to
# $T/status.json). Fails unless FILE holds exactly one line of valid JSON.
jfield() {
        "$HOST_PY" - "$1" "${2:-$T/status.json}" <<'PY'
import json, sys
key, path = sys.argv[1], sys.argv[2]
lines = open(path).read().splitlines()
if len(lines) != 1:
    sys.exit("status: %d lines, want 1" % len(lines))
v = json.loads(lines[0]).get(key)
if v is None:
    sys.exit("status: no field %s" % key)
print(str(v).lower() if isinstance(v, bool) else v)
PY
}

# is TESTNAME GOT WANT: ok when the strings are equal, else prints both
# and returns 1 (so that `is ... || diag MORE` can say more).
is() {
        if [ "$2" = "$3" ]; then ok "$1"; else not_ok "$1"; diag "got '$2', want '$3'"; return 1; fi
}

# show_run: diagnostics for a failed check (exit code, stderr, status).
show_run() {
        diag "rc=$rc" "stderr: $(head -c 600 "$T/err")" "stdout: $(head -c 600 "$T/out")" \
                "status: $(head -c 600 "$T/status.json")"
}

# refused DESCRIPTION [HELPER ARGS]: the helper must exit 3, say why on
# stderr as "sbx-helper: ...", and not run the program (which would create
# $W/ran).
refused() {
        local d=$1; shift
        rm -f "$W/ran"
        hrun "$@"
        if [ "$rc" -eq 3 ] && grep -q '^sbx-helper: ' "$T/err" && [ ! -e "$W/ran" ]; then
                ok "$d"; diag "  $(head -n1 "$T/err")"
        else
                not_ok "$d"; show_run
        fi
}

# payload NAME: copies tests/escape/payloads/NAME into the workdir, owned by
# the test user, and prints its path there.
payload() {
        local src; src=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/escape/payloads/$1
        install -o "$SBX_TEST_USER" -m 0644 "$src" "$W/$1" && echo "$W/$1"
}

# user_pids PATTERN: pids of the test user's processes whose command line
# matches PATTERN (a marker unique to the test, so nothing else is counted).
user_pids() { pgrep -u "$SBX_TEST_USER" -f "$1" || true; }

# host_listener ABSTRACT LOG: a listener on the host, run as root: TCP on
# every address (an ephemeral port) and the abstract unix socket ABSTRACT;
# each connection appends "tcp" or "unix" to LOG. Sets listener (its pid,
# killed at exit) and port (empty when it did not come up).
host_listener() {
        local abstract=$1 log=$2
        "$HOST_PY" - "$abstract" "$log" <<'PY' &
import socket, sys, threading
abstract, log = sys.argv[1], sys.argv[2]
tcp = socket.socket(); tcp.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
tcp.bind(('0.0.0.0', 0)); tcp.listen(8)
uds = socket.socket(socket.AF_UNIX); uds.bind('\0' + abstract); uds.listen(8)
def serve(s, name):
    while True:
        c, _ = s.accept()
        with open(log, 'a') as f: f.write(name + '\n')
        c.close()
threading.Thread(target=serve, args=(uds, 'unix'), daemon=True).start()
with open(log + '.port', 'w') as f: f.write(str(tcp.getsockname()[1]))
serve(tcp, 'tcp')
PY
        listener=$!
        at_exit "kill $listener 2>/dev/null"
        for _ in $(seq 50); do [ -s "$log.port" ] && break; sleep 0.1; done
        port=$(cat "$log.port" 2>/dev/null)
}

# build_alt_helper: a helper of the test's own, built to read its config
# from $alt/etc/helper.conf, a directory the test controls (removed at
# exit); sets alt. Its build is a test: a failure ends the script.
build_alt_helper() {
        alt=$(mktemp -d /tmp/sbx-alt.XXXXXX); chmod 0755 "$alt"
        at_exit "rm -rf $alt"
        . "$SBX_TEST_ROOT/tests/lib/setup-root.sh"
        mkdir -p "$alt/etc"
        (build_helper "$SBX_REPO" "$alt" "$alt/etc/helper.conf") >/dev/null 2>&1
        if [ -u "$alt/libexec/sbx-helper" ]; then
                ok "a helper with its config in $alt builds"
        else
                not_ok "a helper with its config in $alt builds"; done_testing
        fi
}
