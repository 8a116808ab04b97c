#!/bin/bash
# sbx-run on a host without user namespaces: --probe says bwrap, unshare and
# unshare-root cannot work and why, in one line each; the helper tier still
# works, so --require-tier helper runs single programs and whole suites
# there; without a usable helper, --require-tier helper fails closed (exit 3,
# nothing runs), and without --require-tier the weaker tier used is recorded.
. "$(dirname "$0")/../lib/lib.sh"
. "$(dirname "$0")/hardened.sh"
hardened_setup
new_workspace
# Docker's shape of "no user namespaces" (clone3 ENOSYS) by default;
# SBX_HX_NOUSERNS="--no-userns --allow-clone3" tries the sysctl-like one.
NOUSERNS=${SBX_HX_NOUSERNS:---no-userns}

if [ ! -x "${SBX_RUN:-}" ]; then
        not_ok "sbx-run is installed in the test root ($SBX_RUN)"
        done_testing
fi
SBX_EXTRA_ENV="SBX_HELPER=$SBX_HELPER"

# --- control ---------------------------------------------------------------
probe_json ""
if [ "$(verdict helper)" = yes ] && [ "$(verdict bwrap)" = yes ]; then
        ok "control: --probe finds the helper and bwrap working"
else
        not_ok "control: --probe finds the helper and bwrap working"; sed 's/^/# /' "$T/tiers" >&2
fi

# --- no user namespaces ----------------------------------------------------
probe_json "$NOUSERNS"
is "no-userns: --probe: the helper tier works" "$(verdict helper)" yes
for t in bwrap unshare unshare-root; do
        why=$(reason "$t")
        if [ "$(verdict "$t")" = no ] && [ -n "$why" ]; then
                ok "no-userns: --probe: $t does not work ($why)"
        else
                not_ok "no-userns: --probe: $t does not work, with a reason"; diag "got: $(grep "^$t " "$T/tiers")"
        fi
done
is "no-userns: --probe: the rlimit tier works" "$(verdict rlimit)" yes

# The text form: one line per missing tier that names the cause.
sbx "$NOUSERNS" --probe
cp "$T/out" "$T/probe.txt"
for t in bwrap unshare unshare-root; do
        line=$(grep -iE "^[[:space:]]*$t([^-[:alnum:]]|$)" "$T/probe.txt" | head -n1)
        if printf '%s' "$line" | grep -qiE 'user namespace|userns'; then
                ok "no-userns: --probe text explains $t in one line"
        else
                not_ok "no-userns: --probe text explains $t in one line (naming user namespaces)"
                diag "line: '$line'" "probe output:"; sed 's/^/#   /' "$T/probe.txt" >&2
        fi
done

# Single runs in the helper tier, required.
put "$W/hello.py" <<'PY'
print("hello from", __name__)
PY
sbx "$NOUSERNS" --require-tier helper --file "$W/hello.py" --json
cp "$T/out" "$T/run.json"
is "no-userns: --require-tier helper runs a program (exit 0)" "$rc" 0
is "no-userns: ... in the helper tier, passed" \
        "$(jfield tier "$T/run.json" 2>&1) $(jfield passed "$T/run.json" 2>&1)" "helper true"

sbx "$NOUSERNS" --tier bwrap --file "$W/hello.py" --json
if [ "$rc" -eq 3 ] && grep -qi bwrap "$T/err"; then ok "no-userns: --tier bwrap is refused (exit 3) and says why"
        diag "  $(head -n1 "$T/err")"
else not_ok "no-userns: --tier bwrap is refused (exit 3) and says why"; diag "rc $rc" "$(head -c 400 "$T/err")"; fi

# Without a usable helper nothing stronger than rlimit is left: --require-tier
# fails closed and runs nothing; without it the run says where it ran.
put "$W/mark.py" <<PY
open("$W/ran", "w").close()
PY
rm -f "$W/ran"
SBX_EXTRA_ENV="SBX_HELPER=/nonexistent/sbx-helper"
sbx "$NOUSERNS" --require-tier helper --file "$W/mark.py" --json
if [ "$rc" -eq 3 ] && [ ! -e "$W/ran" ] && grep -qi helper "$T/err"; then
        ok "no-userns, no helper: --require-tier helper fails closed (exit 3, nothing ran)"
        diag "  $(head -n1 "$T/err")"
else
        not_ok "no-userns, no helper: --require-tier helper fails closed"; diag "rc $rc ran=$([ -e "$W/ran" ] && echo yes || echo no)" "$(head -c 400 "$T/err")"
fi
sbx "$NOUSERNS" --file "$W/hello.py" --json
is "no-userns, no helper: a run falls to the rlimit tier and records it" \
        "$rc $(jfield tier "$T/out" 2>&1)" "0 rlimit"
SBX_EXTRA_ENV="SBX_HELPER=$SBX_HELPER"
# A whole suite, required to run in the helper tier: HumanEval's reference
# solutions all pass, and every result says "helper".
problems=$SBX_DATA/humaneval/HumanEval.jsonl.gz
if [ ! -r "$problems" ]; then
        not_ok "HumanEval data is in the test root ($problems)"
        done_testing
fi
results=$T/canonical.jsonl
: > "$results"; chown "$SBX_TEST_USER:" "$results"
start=$(date +%s)
sbx "$NOUSERNS" --require-tier helper --suite humaneval --problems "$problems" \
        --canonical -j 2 --out "$results" --no-progress
took=$(( $(date +%s) - start ))
is "no-userns: HumanEval canonical with --require-tier helper ends (exit 0)" "$rc" 0
[ "$rc" -eq 0 ] || diag "$(tail -n 5 "$T/err")"
summary=$("$HOST_PY" - "$results" <<'PY'
import json, sys
tiers, passed, n = set(), 0, 0
for line in open(sys.argv[1]):
    r = json.loads(line)
    if "task_id" not in r:
        continue            # header or trailer lines
    n += 1
    passed += bool(r.get("passed"))
    tiers.add(r.get("tier", "?"))
print(passed, n, ",".join(sorted(tiers)))
PY
)
is "no-userns: HumanEval canonical: 164/164 passed, all in the helper tier (${took}s)" \
        "$summary" "164 164 helper"
done_testing
