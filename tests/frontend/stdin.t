#!/bin/bash
# A run's stdin (run_spec.stdin_path / stdin_data) and stdout's file and
# limit (run_spec.stdout_fd / stdout_limit_bytes), cold in the helper,
# bwrap and unshare tiers and warm (a zygote's C gets it on fd 0), through
# the run engine alone (tests/frontend/run-engine.c, linking libsbx), and
# through sbx-run's faces (--file --stdin, --serve's "stdin"). The input is
# a sealed copy of the run's own: read and seeked as a file, never written,
# and naming no path of the host; a program reading past it gets EOF.
. "$(dirname "$0")/../lib/lib.sh"
require_test_root
repo=$SBX_REPO
build=${BUILD:-$repo/build}
case $build in /*) ;; *) build=$repo/$build ;; esac
engine=$build/tests/frontend/run-engine
[ -x "$engine" ] || make -s -C "$repo" BUILD="$build" "$engine" >&2 ||
        { echo "1..1"; echo "not ok 1 - build run-engine"; exit 1; }

D=$(user_tmpdir)
chmod 0755 "$D"
install -m 0755 "$engine" "$D/run-engine"
printf '3\n1 2 3\n' > "$D/in.txt"
# 20 MB of lines, and its digest, for the large input
head -c 15000000 /dev/urandom | base64 -w 99 > "$D/big.txt"
big_sum=$(sha256sum < "$D/big.txt" | cut -c1-16)
big_len=$(stat -c %s "$D/big.txt")
chmod 0644 "$D/in.txt" "$D/big.txt"
in_sum=$(sha256sum < "$D/in.txt")

tiers="bwrap unshare"
[ -u "$SBX_HELPER" ] && tiers="helper $tiers"
engine() { as_user env SBX_HELPER="$SBX_HELPER" TMPDIR=/tmp timeout -k 5 120 "$D/run-engine" "$@"; }
# jcheck DESCRIPTION EXPR: ok when the Python EXPR holds for every JSON
# line of $out (as o; the program's own JSON line in it as p); else the
# line is shown.
jcheck() {
        if "$HOST_PY" -c '
import json, sys
lines = sys.stdin.read().splitlines()
for l in lines:
    o = json.loads(l)
    try:
        p = json.loads(o["stdout"])
    except Exception:
        p = None
    if not eval(sys.argv[1]):
        sys.exit("# failed on: " + l[:1500])
sys.exit(0 if lines else "# no run")' "$2" <<<"$out"; then ok "$1"; else not_ok "$1"; diag "$(head -c 600 "$D/err")"; fi
}

# What a program sees of its stdin (one JSON line).
PROBE='import json, os, sys
text = sys.stdin.read(); sys.stdin.seek(0); again = sys.stdin.read()
try:
    fd = os.open("/proc/self/fd/0", os.O_WRONLY); os.write(fd, b"x"); wrote = True
except OSError:
    wrote = False
print(json.dumps({"text": text, "again": again == text, "wrote": wrote, "link": os.readlink("/proc/self/fd/0")}))'
BIG='import hashlib, sys
d = sys.stdin.buffer.read(); print(len(d), hashlib.sha256(d).hexdigest()[:16])'
PAST='n = int(input()); print(sum(map(int, input().split()))); input()'
FLOOD='import sys
while True: sys.stdout.write("x" * 65536)'

for t in $tiers; do
        for mode in cold warm; do
                w=(); [ $mode = warm ] && w=(--warm)
                want_warm=0; [ $mode = warm ] && want_warm=1
                out=$(engine "${w[@]}" --tier "$t" --stdin-file "$D/in.txt" "$PROBE" 2>"$D/err") || true
                jcheck "$t $mode: the program reads its input, again after a seek, and cannot write it" \
                        'p["text"] == "3\n1 2 3\n" and p["again"] and p["wrote"] is False'
                jcheck "$t $mode: fd 0 names no file of the host (a sealed memfd of its own)" \
                        'p["link"].startswith("/memfd:sbx-stdin")'
                jcheck "$t $mode: the run went $mode (warm runs: $want_warm)" "o['warm_runs'] == $want_warm and o['tier'] == '$t'"
                out=$(engine "${w[@]}" --tier "$t" --stdin-file "$D/big.txt" "$BIG" 2>"$D/err") || true
                jcheck "$t $mode: a ${big_len}-byte input arrives whole" "o['stdout'] == '$big_len $big_sum\n'"
                out=$(engine "${w[@]}" --tier "$t" --stdin-text $'3\n1 2 3\n' "$PAST" 2>"$D/err") || true
                jcheck "$t $mode: reading past the input is EOF: the answer printed, then EOFError, exit 1" \
                        'o["stdout"] == "6\n" and o["returncode"] == 1 and "EOFError" in o["stderr"]'
                out=$(engine "${w[@]}" --tier "$t" --runs 2 --stdout-file "$D/out.$t.$mode" --stdout-limit 1000000 \
                        --timeout 20000 "$FLOOD" 2>"$D/err") || true
                jcheck "$t $mode: stdout past its limit stops the run (output-limit), twice in a session; the file holds the first 1000000 bytes" \
                        'o["output_limited"] and o["detail"] == "output-limit" and o["status"] == "failed" and o["file_bytes"] == 1000000 and o["file_all_x"] and o["duration"] < 15 and len(lines) == 2'
        done
done
check "the host's input file is unchanged" test "$(sha256sum < "$D/in.txt")" = "$in_sum"

# Without one, stdin is /dev/null; exactly at the limit is not past it.
out=$(engine --tier bwrap "$PROBE" 2>"$D/err") || true
jcheck "no stdin: /dev/null, empty" 'p["text"] == "" and p["link"] == "/dev/null"'
out=$(engine --tier bwrap --stdout-file "$D/out.exact" --stdout-limit 1000 'print("x" * 999)' 2>"$D/err") || true
jcheck "1000 bytes under a limit of 1000: passed, nothing limited, all in the file" \
        'o["status"] == "ok" and not o["output_limited"] and o["file_bytes"] == 1000'
out=$(engine --tier bwrap --stdout-file "$D/out.exact" --stdout-limit 1000 'print("x" * 1000)' 2>"$D/err") || true
jcheck "1001 bytes over a limit of 1000: output-limit, the file holds 1000" \
        'o["output_limited"] and o["file_bytes"] == 1000'


# The faces: --file --stdin, --workdir --stdin, and --serve's "stdin".
printf 'import sys\nprint(sum(int(x) for x in sys.stdin.read().split()[1:]))\n' > "$D/sum.py"
chmod 0644 "$D/sum.py"
for t in $tiers; do
        got=$(as_user env SBX_HELPER="$SBX_HELPER" "$SBX_RUN" -q --tier "$t" --file "$D/sum.py" --stdin "$D/in.txt") || true
        is "$t: sbx-run --file --stdin FILE" "$got" 6
done
got=$(as_user "$SBX_RUN" -q --tier bwrap --workdir "$D" --stdin "$D/in.txt" -- /bin/cat) || true
is "sbx-run --workdir --stdin FILE -- cat" "$got" $'3\n1 2 3'
resp=$(printf '%s\n' '{"id":1,"type":"run","code":"print(sum(map(int, input().split())))","stdin":"4 5 6\n"}' \
        '{"id":2,"type":"run","code":"import sys; print(repr(sys.stdin.read()))"}' |
        as_user "$SBX_RUN" --serve --tier bwrap -j 1 2>/dev/null) || true
out=$(grep -v '"type":"ready"' <<<"$resp")
jcheck "--serve: a run request's \"stdin\" is its input; without one, /dev/null" \
        'len(lines) == 2 and ((o["id"] == 1 and o["stdout"] == "15\n") or (o["id"] == 2 and o["stdout"] == "\x27\x27\n"))'


# What is not a regular file, or a missing one, is refused before anything runs.
mkfifo "$D/fifo"; chmod 0644 "$D/fifo"
for f in "$D" "$D/fifo" "$D/missing"; do
        rc=0
        msg=$(as_user "$SBX_RUN" -q --tier bwrap --file "$D/sum.py" --stdin "$f" 2>&1) || rc=$?
        check "--stdin ${f#"$D"/}: refused with exit 2, naming it (rc $rc)" \
                bash -c '[ "$1" = 2 ] && grep -q "stdin $2" <<<"$3"' _ "$rc" "$f" "$msg"
done
rc=0
msg=$(as_user "$SBX_RUN" --suite humaneval --canonical --stdin "$D/in.txt" 2>&1) || rc=$?
check "--stdin with --suite: refused with exit 2, saying why (rc $rc)" \
        bash -c '[ "$1" = 2 ] && grep -q "stdin FILE is for a --file or --workdir run" <<<"$2"' _ "$rc" "$msg"
done_testing
