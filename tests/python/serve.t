#!/bin/bash
# The Python package (python/sbx) and sbx-run --serve, by pytest
# (tests/python/test_sbx.py) run as the unprivileged test user against the
# installed setuid helper, with the package copied into the test root.
. "$(dirname "$0")/../lib/lib.sh"
require_test_root

pkg=$SBX_TEST_ROOT/python
[ -f "$pkg/sbx/__init__.py" ] || skip_all "no python package in $pkg (setup-root.sh copies it)"
"$HOST_PY" -c 'import pytest' 2>/dev/null ||
        skip_all "pytest missing for $HOST_PY (apt-get install python3-pytest)"

dir=$(user_tmpdir)
log=$dir/pytest.log
rc=0
as_user env SBX_HELPER="$SBX_HELPER" SBX_RUN="$SBX_RUN" SBX_DATA="$SBX_DATA" \
        TMPDIR="$dir" PYTHONPATH="$pkg" PYTHONDONTWRITEBYTECODE=1 \
        "$HOST_PY" -m pytest -v -p no:cacheprovider --basetemp="$dir/pt" -rs --junitxml="$dir/junit.xml" \
        "$SBX_TEST_ROOT/tests/python/test_sbx.py" > "$log" 2>&1 || rc=$?

# Each test case of pytest's JUnit report becomes a TAP line (a skip with
# its reason); no report, or a failing pytest with no failed case, fails.
tap=$("$HOST_PY" - "$dir/junit.xml" "$rc" <<'PY'
import sys, xml.etree.ElementTree as ET
path, rc = sys.argv[1], int(sys.argv[2])
try:
    cases = list(ET.parse(path).getroot().iter("testcase"))
except (OSError, ET.ParseError) as e:
    print("not ok - pytest left no report (exit %d): %s" % (rc, e)); sys.exit()
bad = 0
for c in cases:
    name = c.get("name")
    skip = c.find("skipped")
    if c.find("failure") is not None or c.find("error") is not None:
        bad += 1
        print("not ok - %s" % name)
    elif skip is not None:
        print("ok - %s # SKIP %s" % (name, (skip.get("message") or "").replace("\n", " ")))
    else:
        print("ok - %s" % name)
if not cases or (rc != 0 and not bad):
    print("not ok - pytest exit %d with %d test cases" % (rc, len(cases)))
PY
)
while IFS= read -r line; do
        case $line in
        "not ok - "*) not_ok "${line#not ok - }" ;;
        "ok - "*) ok "${line#ok - }" ;;
        esac
done <<<"$tap"
[ "$rc" -eq 0 ] || sed 's/^/# /' "$log" >&2
done_testing
