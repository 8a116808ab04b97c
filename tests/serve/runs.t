#!/bin/bash
# --serve's run requests, as the test user against the installed helper: a
# run's "memory" lowers its address space below the server's --memory, in
# every tier, and never raises it.
. "$(dirname "$0")/../lib/lib.sh"
require_test_root
D=$(user_tmpdir)
chmod 0755 "$D"

# serve NAME ARGS...: the request lines on stdin through sbx-run --serve
# ARGS (as the test user, SBX_TRACE on), answers to $D/NAME.out, stderr to
# $D/NAME.err.
serve() {
        local name=$1; shift
        : > "$D/$name.out"; : > "$D/$name.err"
        chown "$SBX_TEST_USER:" "$D/$name.out" "$D/$name.err"
        hostile 120 setpriv --reuid="$SBX_TEST_USER" --regid="$SBX_TEST_USER" --init-groups -- \
                env -i PATH=/usr/bin:/bin HOME="$(getent passwd "$SBX_TEST_USER" | cut -d: -f6)" \
                LANG=C.UTF-8 SBX_HELPER="$SBX_HELPER" SBX_TRACE=1 TMPDIR="$D" \
                "$SBX_RUN" --serve "$@" > "$D/$name.out" 2> "$D/$name.err"
}

# answers NAME: "ID STATUS RETURNCODE STDOUT" a line, in id order.
answers() {
        "$HOST_PY" - "$D/$1.out" <<'PY'
import json, sys
rows = []
for line in open(sys.argv[1]):
    m = json.loads(line)
    if m.get("type") == "result":
        rows.append((m["id"], m["status"], m["returncode"], m["stdout"].strip().replace("\n", "|")))
    elif m.get("type") == "error":
        rows.append((m["id"], "error", "-", m["error"]))
for r in sorted(rows):
    print(*r)
PY
}

req() {         # req ID CODE [EXTRA JSON FIELDS]
        "$HOST_PY" -c 'import json, sys; o = {"id": int(sys.argv[1]), "type": "run", "code": sys.argv[2]}
o.update(json.loads(sys.argv[3] if len(sys.argv) > 3 else "{}")); print(json.dumps(o))' "$@"
}

# A run's memory: below the server's --memory it lowers the address space
# (warm and cold), above it changes nothing; a bad value is refused.
big='x = bytearray(300 << 20); print(len(x) >> 20)'
for tier in helper bwrap unshare rlimit; do
        for mode in --warm --cold; do
                [ "$tier" = rlimit ] && [ "$mode" = --warm ] && continue    # no zygote there
                {
                        req 1 "$big" '{"memory": 104857600}'
                        req 2 "$big"
                        req 3 "$big" '{"memory": 4294967296}'
                        req 4 "$big" '{"memory": -1}'
                } > "$D/mem.jsonl"
                serve "mem-$tier$mode" --tier "$tier" "$mode" --memory 1G -j1 < "$D/mem.jsonl"
                a=$(answers "mem-$tier$mode")
                is "$tier $mode: \"memory\": 100M fails a 300M allocation the server's 1G allows" \
                        "$(echo "$a" | sed -n 1,2p)" "$(printf '1 failed 1 \n2 ok 0 300')" || diag "$a"
                {
                        req 1 "$big" '{"memory": 4294967296}'
                } > "$D/mem2.jsonl"
                serve "mem2-$tier$mode" --tier "$tier" "$mode" --memory 200M -j1 < "$D/mem2.jsonl"
                is "$tier $mode: \"memory\": 4G does not raise the server's --memory 200M" \
                        "$(answers "mem2-$tier$mode")" "1 failed 1 "
                check "$tier $mode: \"memory\": -1 is refused with a reason" \
                        grep -q '"id":4,"type":"error","error":"\\"memory\\" must be a whole number' "$D/mem-$tier$mode.out"
        done
done

check "no process of the test user is left" test -z "$(pgrep -u "$SBX_TEST_USER" -f 'sbx-run|zygote|sbx-run-init')"
done_testing
