#!/bin/bash
# --version and --probe: what the frontend's tier detection relies on.
. "$(dirname "$0")/../lib/lib.sh"
require_test_root
new_workspace
HRUN_NOSTATUS=1

hrun --version
if [ "$rc" -eq 0 ] && grep -Eq '[0-9]+\.[0-9]+\.[0-9]+' "$T/out"; then
        ok "--version exits 0 and prints a version"
else
        not_ok "--version exits 0 and prints a version"; show_run
fi

# The probe's JSON, parsed, with the fields tier detection needs.
probe_json() {
        "$HOST_PY" - "$T/out" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
assert isinstance(doc, dict), "probe output is not a JSON object"
print(json.dumps(doc, sort_keys=True))
PY
}

hrun --probe
if [ "$rc" -eq 0 ] && probe_json >"$T/probe" && grep -q '"version"' "$T/probe"; then
        ok "--probe as an allowed user: exit 0, JSON with version"
else
        not_ok "--probe as an allowed user: exit 0, JSON with version"; show_run
fi
# The config in force is shown: our group and a default only our config has.
check "--probe shows the configured group" grep -q "$SBX_TEST_GROUP" "$T/out"
# Values only the test config has (tests/lib/setup-root.sh): nofile 200,
# nproc 77, cpu 17.
has_numbers() {
        "$HOST_PY" - "$T/probe" "$@" <<'PY'
import json, sys
seen = set()
def walk(v):
    if isinstance(v, dict):
        for x in v.values(): walk(x)
    elif isinstance(v, list):
        for x in v: walk(x)
    elif isinstance(v, float) and v.is_integer():
        seen.add(str(int(v)))
    else:
        seen.add(str(v))
walk(json.load(open(sys.argv[1])))
missing = [n for n in sys.argv[2:] if n not in seen]
sys.exit("probe lacks %s" % missing if missing else 0)
PY
}
check "--probe shows the configured defaults (nofile 200, nproc 77, cpu 17)" has_numbers 200 77 17
check "--probe reports nproc_mode" grep -Eq '"nproc_mode": *"(userns|cgroup|rlimit)"' "$T/probe"

HRUN_AS=other hrun --probe
if [ "$rc" -eq 3 ] && probe_json >"$T/probe" &&
   grep -Eqi 'group|not allowed|not permitted' "$T/probe"; then
        ok "--probe as a user outside the group: exit 3, JSON saying why"
else
        not_ok "--probe as a user outside the group: exit 3, JSON saying why"; show_run
fi
done_testing
