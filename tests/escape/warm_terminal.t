#!/bin/bash
# terminal.t through a warm suite on a terminal: a suite prints no sample's
# output (it goes to the results file, byte for byte as JSON strings), so
# the property that applies is that nothing a warm sample writes, nor any
# terminal it might find, reaches the caller's terminal: the zygote's own
# stderr is sbx-run's (docs/warm.md), so a sample's stdio must be its own
# pipes, and it must have no controlling terminal to open (/dev/tty) or push
# input into (TIOCSTI). Two samples, run warm with sbx-run on a pty
# (script): inject.py's escape sequences (OSC 52 clipboard, OSC 0 title,
# ESC[8m hidden text, CR), and a probe for a terminal, which then writes the
# same sequences. Assertions: no ESC reaches the terminal, the summary there
# counts both failed, the results keep inject's stderr as written (a
# result has no stdout), the probe found no terminal, both ran warm.
. "$(dirname "$0")/../lib/lib.sh"
. "$(dirname "$0")/../lib/warm.sh"
require_test_root
command -v script >/dev/null || skip_all "script (bsdutils) not installed: no pty to test with"
D=$(user_tmpdir)
chmod 0755 "$D"
warm_suite "$D"
warm_sample "$D/samples.jsonl" inject <<'PY'
import sys
sys.stdout.write("out:\x1b]52;c;ZXZpbA==\x07 title:\x1b]0;pwned\x07 cr:fake\rreal\n")
sys.stdout.flush()
sys.stderr.write("Traceback: the real error\n\x1b[8m\rsbx-run: ok\n")
sys.exit(1)
PY
warm_sample "$D/samples.jsonl" tty <<'PY'
import fcntl, os, sys, termios
try:
    os.close(os.open("/dev/tty", os.O_RDWR | os.O_NOCTTY))
    print("dev-tty: OPENED", file=sys.stderr)
except OSError as e:
    print("dev-tty: refused", file=sys.stderr)
    print("dev-tty errno:", e.strerror, file=sys.stderr)
ttys = []
for fd in range(256):
    try:
        if os.isatty(fd):
            ttys.append(fd)
        fcntl.ioctl(fd, termios.TIOCSTI, b"#")
        print("tiocsti %d: PUSHED" % fd, file=sys.stderr)
    except OSError:
        pass
print("ttys:", ttys, file=sys.stderr)
sys.stderr.write("\x1b]52;c;ZXZpbA==\x07\x1b]0;pwned\x07\x1b[8m\rsbx-run: ok\n")
raise SystemExit(3)
PY
chown -R "$SBX_TEST_USER:" "$D"
ESC=$'\x1b'

home=$(getent passwd "$SBX_TEST_USER" | cut -d: -f6)
sbx_cmd="env SBX_HELPER=$SBX_HELPER $SBX_RUN --tier helper --suite $D/suite.json --samples $D/samples.jsonl"
sbx_cmd+=" -j 1 --warm --out $D/tty.out.jsonl --summary $D/tty.summary.json"
rc=0
(cd / && hostile 120 env -i PATH=/usr/bin:/bin HOME="$home" LANG=C.UTF-8 \
        setpriv --reuid="$SBX_TEST_USER" --regid="$SBX_TEST_USER" --init-groups -- \
        script -qec "$sbx_cmd" /dev/null) >"$D/tty" 2>&1 </dev/null || rc=$?
diag "terminal: $(od -c "$D/tty" | head -n 12 | tr '\n' '|')"
is "the suite runs to its end on a terminal" "$rc" 0
is "both samples ran warm" "$(warm_counts "$D/tty.summary.json")" "2 0 None"
check_fails "terminal: no ESC reaches it (no OSC 52, title, hidden text)" grep -aqF "$ESC" "$D/tty"
check_fails "terminal: no sample's text reaches it (its fake sbx-run line)" grep -aqF 'sbx-run: ok' "$D/tty"
check "terminal: the summary counts both failed" grep -aq '^ *passed 0, failed 2' "$D/tty"
check "results: inject's stderr kept as written (ESC[8m, CR)" grep -qF '\u001b[8m\rsbx-run: ok' "$D/tty.out.jsonl"
out=$(result_of "$D/tty.out.jsonl" tty)
diag "tty probe: $(grep -v '^ \|^Traceback\|^SystemExit' <<<"$out" | tr '\n' ';' | tr -d "$ESC")"
is "the warm sample cannot open a controlling terminal (/dev/tty)" "$(grep '^dev-tty:' <<<"$out")" "dev-tty: refused"
is "no fd of the warm sample is a terminal" "$(grep '^ttys:' <<<"$out")" "ttys: []"
check_fails "TIOCSTI pushes nothing from any fd of the warm sample" grep -q 'PUSHED' <<<"$out"
done_testing
