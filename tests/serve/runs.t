#!/bin/bash
# --serve's run requests (and with them Python's Sandbox.run) go through the
# zygote pool, with a suite sample's isolation, as the test user against the
# installed helper: every run is sent to a zygote (SBX_TRACE says so) in
# the helper, bwrap and unshare tiers, one zygote serves them one after
# another, each run sees a fresh /tmp, $HOME and workdir of its own and
# nothing a run before it left, and it runs as `python PROGRAM` would
# (__file__, sys.argv, sys.path without its directory, exit codes,
# tracebacks, SystemExit). A run's "memory" lowers its address space below
# the server's --memory, warm and cold, in every tier, and never raises it.
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

# What a run sees: $HOME, /tmp and its workdir, what the run before it left
# there, and where it is.
probe=$(cat <<'PY'
import os, sys
seen = sorted(os.listdir("/tmp") + os.listdir(os.environ["HOME"]) + os.listdir("."))
for d in ("/tmp", os.environ["HOME"], "."):
    open(os.path.join(d, "left-by-a-run"), "w").write("x")
print(os.path.dirname(__file__) == os.getcwd(), sys.argv == [__file__],
      os.path.dirname(__file__) not in sys.path, "left-by-a-run" not in seen)
PY
)
req() {         # req ID CODE [EXTRA JSON FIELDS]
        "$HOST_PY" -c 'import json, sys; o = {"id": int(sys.argv[1]), "type": "run", "code": sys.argv[2]}
o.update(json.loads(sys.argv[3] if len(sys.argv) > 3 else "{}")); print(json.dumps(o))' "$@"
}

for tier in helper bwrap unshare; do
        {
                req 1 "$probe"; req 2 "$probe"; req 3 "$probe"
                req 4 'raise SystemExit(3)'
                req 5 'import sys; print("out"); sys.exit("bye")'
                req 6 'def f(:'
                req 7 '1/0'
                req 8 'import sys; print(input()[::-1], sys.stdin.read() == "")' '{"stdin": "abc\n"}'
        } > "$D/req.jsonl"
        serve "$tier" --tier "$tier" -j1 < "$D/req.jsonl"
        sent=$(grep -c 'sent to a zygote' "$D/$tier.err")
        is "$tier: every run request was sent to a zygote (8)" "$sent" 8 || diag "$(tail -5 "$D/$tier.err")"
        is "$tier: one zygote served them one after another" "$(grep -c 'zygote spawned' "$D/$tier.err")" 1
        a=$(answers "$tier")
        is "$tier: each run in a private workdir of its own, as python PROGRAM (argv, no directory on sys.path), with nothing left by the one before" \
                "$(echo "$a" | sed -n 1,3p)" "$(printf '1 ok 0 True True True True\n2 ok 0 True True True True\n3 ok 0 True True True True')" ||
                diag "$a"
        is "$tier: SystemExit(3), sys.exit(message), a SyntaxError and an exception exit as python's do" \
                "$(echo "$a" | sed -n 4,7p)" "$(printf '4 failed 3 \n5 failed 1 out\n6 failed 1 \n7 failed 1 ')" || diag "$a"
        is "$tier: a run request's stdin reaches the program warm" "$(echo "$a" | sed -n 8p)" "8 ok 0 cba True"
        tb=$("$HOST_PY" -c 'import json, sys
for l in open(sys.argv[1]):
    m = json.loads(l)
    if m.get("id") in (6, 7): print(m["stderr"])' "$D/$tier.out")
        check "$tier: the traceback starts at the program's own frame, the SyntaxError has its caret, the driver shows in neither" \
                "$HOST_PY" -c 'import sys; t = sys.argv[1]
sys.exit(not ("SyntaxError" in t and "^" in t and "ZeroDivisionError" in t and "in <module>" in t
              and "_sbx" not in t and "<string>" not in t))' "$tb"
done

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
                want=0; [ "$mode" = --warm ] && want=3
                is "$tier $mode: $want of the runs sent to a zygote" "$(grep -c 'sent to a zygote' "$D/mem-$tier$mode.err")" "$want"
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

# --file: cold as a lone run, through a zygote with --warm, the same program
# the same way (its output, exit status, __file__ and sys.argv).
printf 'import sys\nprint(sys.argv == [__file__], __file__.endswith("/program.py"))\nsys.exit(4)\n' | put "$D/prog.py"
for mode in --cold --warm; do
        rc=0
        as_user env SBX_HELPER="$SBX_HELPER" SBX_TRACE=1 TMPDIR="$D" "$SBX_RUN" --tier helper "$mode" \
                --file "$D/prog.py" > "$D/file$mode.out" 2> "$D/file$mode.err" || rc=$?
        want=0; [ "$mode" = --warm ] && want=1
        is "--file $mode: sent to a zygote $want times" "$(grep -c 'sent to a zygote' "$D/file$mode.err")" "$want"
        is "--file $mode: the program's output and a failed run's exit status 1" \
                "$(cat "$D/file$mode.out") rc=$rc" "True True rc=1"
done

# every run's workdir is under $D (TMPDIR): so is a leftover run's argv
check "no process of these runs is left" test -z "$(pgrep -u "$SBX_TEST_USER" -f "$D")"
done_testing
