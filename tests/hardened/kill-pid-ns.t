#!/bin/bash
# A host whose seccomp profile kills (SIGSYS), rather than refuses, a
# process that asks for a pid namespace: the helper dies at its clone with
# no status line. A single sbx-run is the helper's probe, so that death must
# read as "the sandbox never came up": the run falls back, says why, and
# runs once in a tier that works here; --require-tier helper refuses. The
# same for bwrap, whose --json-status-fd reports the program's start.
. "$(dirname "$0")/../lib/lib.sh"
. "$(dirname "$0")/hardened.sh"
hardened_setup
new_workspace
SBX_EXTRA_ENV="SBX_HELPER=$SBX_HELPER"
KILL=--kill-pid-ns

put "$W/count.py" <<PY
with open("$W/runs.log", "a") as f:
    f.write("ran\n")
print("hello")
PY

# --- control: the same tool without the restriction -----------------------
sbx "" --workdir "$W" --json -- python3 "$W/count.py"
is "control: a run uses the helper" "$rc $(jfield tier "$T/out" 2>&1)" "0 helper"
rm -f "$W/runs.log"

# --- the helper is killed at its clone ------------------------------------
HX_FLAGS=$KILL hx_run --timeout 10 -- /bin/true
is "kill-pid-ns: the helper itself dies of SIGSYS (rc 128 + 31)" "$rc" 159

sbx "$KILL" --workdir "$W" --json -- python3 "$W/count.py"
tier=$(jfield tier "$T/out" 2>&1)
if [ "$rc" -eq 0 ] && [ "$tier" != helper ] && [ "$tier" != bwrap ]; then
        ok "kill-pid-ns: the run falls back past the helper and bwrap (tier $tier)"
else
        not_ok "kill-pid-ns: the run falls back past the helper and bwrap"; show_run
fi
if grep -q 'tier helper does not work: .*killed by Bad system call' "$T/err"; then
        ok "kill-pid-ns: the fallback is said, naming the signal"
else
        not_ok "kill-pid-ns: the fallback is said, naming the signal"; diag "stderr: $(head -c 400 "$T/err")"
fi
if grep -q 'tier bwrap does not work: .*killed by Bad system call' "$T/err"; then
        ok "kill-pid-ns: bwrap's fallback is said too, naming the signal"
else
        not_ok "kill-pid-ns: bwrap's fallback is said too, naming the signal"; diag "stderr: $(head -c 400 "$T/err")"
fi
is "kill-pid-ns: the program ran once" "$(cat "$W/runs.log" 2>/dev/null | wc -l)" 1

# Without a helper, bwrap is the first tier, and its run is its probe: bwrap
# dies before it reports the program's start, so the program never ran.
rm -f "$W/runs.log"
SBX_EXTRA_ENV="SBX_HELPER=/nonexistent" sbx "$KILL" --workdir "$W" --json -- python3 "$W/count.py"
tier=$(jfield tier "$T/out" 2>&1)
if [ "$rc" -eq 0 ] && [ "$tier" = unshare ] && grep -q 'tier bwrap does not work' "$T/err" &&
   ! grep -q 'tier helper' "$T/err"; then
        ok "kill-pid-ns, no helper: the bwrap run falls back to unshare, saying so"
else
        not_ok "kill-pid-ns, no helper: the bwrap run falls back to unshare, saying so"; show_run
fi
is "kill-pid-ns, no helper: the program ran once" "$(cat "$W/runs.log" 2>/dev/null | wc -l)" 1

sbx "$KILL" --require-tier helper --workdir "$W" --json -- python3 "$W/count.py"
is "kill-pid-ns: --require-tier helper refuses (exit 3)" "$rc" 3
is "kill-pid-ns: --require-tier helper: nothing else ran" "$(cat "$W/runs.log" 2>/dev/null | wc -l)" 1
done_testing
