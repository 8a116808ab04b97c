#!/bin/bash
# stdio-binds.t through a warm suite: what the caller hands a --warm session
# is checked as for a cold one. No --ro-bind of a socket or FIFO, never
# $HOME or /run/user/UID (or a directory above them) whole: the suite does
# not run a sample with it, warm or cold, and says why. fds 0-2: a suite's
# samples never get the caller's stdin (a warm one's fd 0 is /dev/null, not
# the zygote's control socket, whatever sbx-run's own fd 0 is: a directory,
# refused by the helper in stdio-binds.t, or a file), so what applies is
# that each sample's fd 0 is /dev/null, with no way up from it
# (/proc/self/fd/0/..), and that it ran warm. (--workdir is not a suite
# option: a suite's workdir is always private.)
. "$(dirname "$0")/../lib/lib.sh"
. "$(dirname "$0")/../lib/warm.sh"
require_test_root
D=$(user_tmpdir)
chmod 0755 "$D"
home=$(getent passwd "$SBX_TEST_USER" | cut -d: -f6)
warm_suite "$D"
warm_sample "$D/samples.jsonl" stdin <<'PY'
import os, sys
print("RAN", file=sys.stderr)
print("fd0", os.readlink("/proc/self/fd/0"), file=sys.stderr)
try:
    print("up:", os.listdir("/proc/self/fd/0/.."), file=sys.stderr)
except OSError as e:
    print("up:", e.strerror, file=sys.stderr)
raise SystemExit(3)
PY
S=$D/sockdir; mkdir -m 0755 "$S"
chown -R "$SBX_TEST_USER:" "$D"
as_user "$HOST_PY" -c 'import socket,sys; s=socket.socket(socket.AF_UNIX); s.bind(sys.argv[1])' "$S/sock"
as_user mkfifo "$S/fifo"
ru=/run/user/$(id -u "$SBX_TEST_USER")
if [ ! -e "$ru" ]; then
        mkdir -p /run/user && mkdir -m 0700 "$ru" && chown "$SBX_TEST_USER:" "$ru" && at_exit "rmdir $ru"
fi

# refused_warm NAME DESCRIPTION PATH: the suite with --ro-bind PATH --warm
# fails, says why, and its sample never ran.
refused_warm() {
        local name=$1 d=$2 path=$3
        warm_suite_run "$D/$name" --tier helper --suite "$D/suite.json" --samples "$D/samples.jsonl" \
                -j 1 --warm --ro-bind "$path"
        local ran; ran=$(grep -c RAN "$D/$name.out.jsonl" 2>/dev/null)
        if [ "$rc" -ne 0 ] && [ "${ran:-0}" -eq 0 ] && grep -q '^sbx-\(run\|helper\): ' "$D/$name.err"; then
                ok "$d"; diag "  $(grep -m1 '^sbx-' "$D/$name.err" | head -c 300)"
        else
                not_ok "$d"; diag "rc=$rc, ran ${ran:-0}: $(head -c 600 "$D/$name.err")"
        fi
}
refused_warm sock "--warm: --ro-bind of a unix socket is refused" "$S/sock"
refused_warm fifo "--warm: --ro-bind of a FIFO is refused" "$S/fifo"
refused_warm home "--warm: --ro-bind of \$HOME is refused" "$home"
refused_warm above "--warm: --ro-bind of a directory above \$HOME is refused" "$(dirname "$home")"
refused_warm run-user "--warm: --ro-bind of /run/user/UID is refused" "$ru"

# fd0 NAME STDIN: the suite run warm with STDIN as sbx-run's fd 0
fd0() {
        WARM_STDIN=$2 warm_suite_run "$D/$1" --tier helper --suite "$D/suite.json" \
                --samples "$D/samples.jsonl" -j 1 --warm
        is "$1: the suite runs to its end" "$rc" 0
        [ "$rc" -eq 0 ] || diag "$(head -c 600 "$D/$1.err")"
        is "$1: the sample ran warm" "$(warm_counts "$D/$1.json")" "1 0 None"
        local out; out=$(result_of "$D/$1.out.jsonl" stdin)
        diag "$1: $(tr '\n' ';' <<<"$out")"
        is "$1: the sample's fd 0 is /dev/null" "$(awk '$1 == "fd0" { print $2 }' <<<"$out")" /dev/null
        is "$1: no way up from its fd 0" "$(grep '^up:' <<<"$out")" "up: Not a directory"
}
fd0 stdin-home "$home"
put "$D/in.txt" <<< "hello"
fd0 stdin-file "$D/in.txt"
done_testing
