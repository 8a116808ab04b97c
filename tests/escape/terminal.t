#!/bin/bash
# Terminal injection (issue 14, item 7): a candidate's output reaches the
# caller's terminal with its control characters shown escaped, never acted
# on (OSC 52 sets the clipboard, OSC 0 the title, ESC[8m hides text, CR
# overwrites a line); into a pipe or file it stays byte for byte. The
# summary line, which quotes the last stderr line, is escaped always.
. "$(dirname "$0")/../lib/lib.sh"
require_test_root
command -v script >/dev/null || skip_all "script (bsdutils) not installed: no pty to test with"
new_workspace
put "$W/inject.py" <<'PY'
import sys
sys.stdout.write("out:\x1b]52;c;ZXZpbA==\x07 title:\x1b]0;pwned\x07 cr:fake\rreal\n")
sys.stdout.flush()
sys.stderr.write("Traceback: the real error\n\x1b[8m\rsbx-run: ok\n")
sys.exit(1)
PY
chmod 0644 "$W/inject.py"
ESC=$'\x1b'
sbx_cmd="env SBX_HELPER=$SBX_HELPER $SBX_RUN --file $W/inject.py"

# Into pipes: the output as written, the summary line escaped.
as_user $sbx_cmd >"$T/out" 2>"$T/err" </dev/null
summary=$(grep -a '^sbx-run: ' "$T/err" | tail -n1)
diag "summary: $summary"
check "pipe: stdout keeps the program's bytes (OSC 52 as written)" grep -aqF "${ESC}]52;c;" "$T/out"
check_fails "pipe: the summary line holds no ESC" grep -aqF "$ESC" <<<"$summary"
check "pipe: the summary line shows ESC[8m escaped" grep -aqF '\x1b[8m' <<<"$summary"
check "pipe: the summary line shows the CR escaped" grep -aqF '\r' <<<"$summary"
check_fails "pipe: the summary line has no raw CR" grep -aq $'\r' <<<"$summary"

# Onto a terminal (script gives it a pty): nothing of the program's is
# acted on. script's own output is the terminal's bytes.
as_user script -qec "$sbx_cmd" /dev/null >"$T/tty" 2>&1 </dev/null
diag "terminal: $(od -c "$T/tty" | head -n 12 | tr '\n' '|')"
check_fails "terminal: no ESC reaches it (no OSC 52, title, hidden text)" grep -aqF "$ESC" "$T/tty"
check "terminal: OSC 52 shown escaped" grep -aqF '\x1b]52;c;ZXZpbA==\x07' "$T/tty"
check "terminal: the title sequence shown escaped" grep -aqF '\x1b]0;pwned\x07' "$T/tty"
check "terminal: the program's CR shown escaped, its line not overwritten" grep -aqF 'cr:fake\rreal' "$T/tty"
check "terminal: the real error line still shows" grep -aqF 'Traceback: the real error' "$T/tty"
check "terminal: the summary line names the failure" grep -aq '^sbx-run: .*\[failed' "$T/tty"
done_testing
