# shellcheck shell=bash
# Warm suites built from probes (sourced after lib.sh by tests/escape/warm*.t
# and tests/suites/warm_full.t): a custom suite whose one problem adds
# nothing to a sample's program, samples appended one at a time, a suite run
# as the test user, and what the results and the summary say.
# A probe's report comes back in its result's stderr_tail, which a result
# has only when it failed: a probe writes to stderr and ends failed
# (SystemExit(3)) when it is done.

# warm_suite DIR [TIMEOUT]: DIR/suite.json and DIR/problems.jsonl, one task
# esc/0 whose template is the sample's completion alone.
warm_suite() {
        "$HOST_PY" - "$1" "${2:-10}" <<'PY'
import json, os, sys
d, timeout = sys.argv[1], int(sys.argv[2])
with open(os.path.join(d, "problems.jsonl"), "w") as f:
    f.write(json.dumps({"task_id": "esc/0"}) + "\n")
json.dump({"problems": "problems.jsonl", "timeout": timeout, "template": "{completion}\n"},
          open(os.path.join(d, "suite.json"), "w"))
PY
}

# warm_sample SAMPLES WHAT: appends to SAMPLES a sample of task esc/0 whose
# completion is stdin, with "what": WHAT and "n" its line number.
warm_sample() {
        "$HOST_PY" -c 'import json, os, sys
path, what = sys.argv[1], sys.argv[2]
n = sum(1 for _ in open(path)) if os.path.exists(path) else 0
with open(path, "a") as f:
    f.write(json.dumps({"task_id": "esc/0", "what": what, "n": n, "completion": sys.stdin.read()}) + "\n")' "$1" "$2"
}

# result_of RESULTS WHAT [KEY]: the field KEY (default stderr_tail) of the
# result of the sample WHAT, a line for each sample of that name.
result_of() {
        "$HOST_PY" - "$1" "$2" "${3:-stderr_tail}" <<'PY' 2>/dev/null
import json, sys
for l in open(sys.argv[1]):
    r = json.loads(l)
    if r["what"] == sys.argv[2]:
        print(r.get(sys.argv[3], ""))
PY
}

# warm_counts SUMMARY: "WARM COLD COLD_WHY" from the "warm" object of a
# suite's --json summary ("no summary" when it has none to read).
warm_counts() {
        "$HOST_PY" -c 'import json, sys
w = json.load(open(sys.argv[1])).get("warm") or {}
print(w.get("warm"), w.get("cold"), w.get("cold_why"))' "$1" 2>/dev/null || echo "no summary"
}

# warm_suite_run PREFIX ARGS...: sbx-run --no-progress ARGS --out
# PREFIX.out.jsonl --json as the test user (HOME its own, SBX_HELPER the
# installed helper) under `hostile`, summary to PREFIX.json, stderr to
# PREFIX.err, stdin from WARM_STDIN (default /dev/null), under an outer
# timeout of WARM_TIMEOUT seconds (default 300); sets rc.
# WARM_WRAP, when set, is a program run first with sbx-run's argv (a
# caller's ulimits, say).
warm_suite_run() {
        local prefix=$1; shift
        local home; home=$(getent passwd "$SBX_TEST_USER" | cut -d: -f6)
        rc=0
        hostile "${WARM_TIMEOUT:-300}" setpriv --reuid="$SBX_TEST_USER" --regid="$SBX_TEST_USER" --init-groups -- \
                env -i PATH=/usr/bin:/bin HOME="$home" LANG=C.UTF-8 SBX_HELPER="$SBX_HELPER" \
                ${WARM_WRAP:-} "$SBX_RUN" --no-progress "$@" --out "$prefix.out.jsonl" --json \
                > "$prefix.json" 2> "$prefix.err" < "${WARM_STDIN:-/dev/null}" || rc=$?
}

# cold_probe SCRIPT: the first <<'PY' here-document of tests/escape/SCRIPT,
# the cold test's own probe, so that a warm test runs the very program its
# cold counterpart runs. Fails, printing nothing, when there is none.
cold_probe() {
        local f; f=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/escape/$1
        awk '!on && /<<'"'"'PY'"'"'$/ { on = 1; next } on && /^PY$/ { found = 1; exit } on { print }
             END { exit !found }' "$f"
}
