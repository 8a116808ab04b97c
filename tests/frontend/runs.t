#!/bin/bash
# Single runs: verdicts and exit status, wall and cpu timeouts, the
# candidate's environment and fds, --workdir semantics, the --file workdir.
. "$(dirname "$0")/../lib/lib.sh"
require_test_root

sbx() { as_user env SBX_HELPER="$SBX_HELPER" "$SBX_RUN" -q "$@"; }
dir=$(user_tmpdir)
py() { printf '%s\n' "$2" > "$dir/$1"; chmod 644 "$dir/$1"; }
field() { jq -r ".$1"; }

py ok.py 'print("fine")'
py fail.py 'import sys; print("Traceback...", file=sys.stderr); print("ValueError: bad", file=sys.stderr); sys.exit(4)'
py spin.py 'while True: pass'
py sleep.py 'import time; time.sleep(60)'
py env.py 'import os, json; print(json.dumps(dict(os.environ)))'
py fds.py 'import os, sys; print(sorted(os.listdir("/proc/self/fd"))); print(os.readlink("/proc/self/fd/0")); print(repr(sys.stdin.read()))'
py cwd.py 'import os; open("made-here", "w").write("x"); print(os.getcwd())'

rc=0; out=$(sbx --json --file "$dir/ok.py") || rc=$?
check "passing program: exit 0 (got $rc)" test "$rc" = 0
check "json: passed true, status ok" test "$(field passed <<<"$out")/$(field status <<<"$out")" = true/ok
check "json: stdout captured" test "$(field stdout <<<"$out")" = fine
has_key() { jq -e --arg k "$1" 'has($k)' <<<"$out" >/dev/null; }
for k in passed status returncode signal duration cpu max_rss_kb stdout stderr truncated summary tier; do
        check "json has $k" has_key "$k"
done

rc=0; out=$(sbx --json --file "$dir/fail.py") || rc=$?
check "failing program: exit 1 (got $rc)" test "$rc" = 1
check "json: returncode 4" test "$(field returncode <<<"$out")" = 4
check "summary is the last stderr line" test "$(field summary <<<"$out")" = "ValueError: bad"

rc=0; err=$(as_user env SBX_HELPER="$SBX_HELPER" "$SBX_RUN" --file "$dir/fail.py" 2>&1 >/dev/null) || rc=$?
check "without --json: program stderr passes through" grep -q 'ValueError: bad' <<<"$err"
check "without --json: a summary line on stderr" grep -q '^sbx-run: ValueError: bad \[failed' <<<"$err"
err=$(sbx --file "$dir/fail.py" 2>&1 >/dev/null)
check "-q: the program's stderr, no summary line" test "$err" = "$(printf 'Traceback...\nValueError: bad')"

for tier in helper bwrap unshare rlimit; do
        start=$(date +%s%N)
        rc=0; out=$(sbx --tier $tier --json --timeout 1 --file "$dir/sleep.py") || rc=$?
        ms=$(( ($(date +%s%N) - start) / 1000000 ))
        check "$tier: wall timeout reports timeout/wall" \
                test "$(field status <<<"$out")/$(field detail <<<"$out")" = timeout/wall
        check "$tier: timeout exits 1 (got $rc)" test "$rc" = 1
        check "$tier: killed near the deadline (${ms} ms)" test "$ms" -lt 8000
        rc=0; out=$(sbx --tier $tier --json --timeout 30 --cpu 1 --file "$dir/spin.py") || rc=$?
        check "$tier: cpu limit reports timeout/cpu-limit ($(field detail <<<"$out"))" \
                test "$(field status <<<"$out")/$(field detail <<<"$out")" = timeout/cpu-limit
done

# A caller's hard limit below the run's (ulimit -t, pam_limits, Slurm) is
# the run's ceiling in every tier, as in the helper's: the run starts, its
# cpu limit one second below the caller's hard 2 (SIGXCPU before SIGKILL),
# instead of "--tier does not work here".
py lim.py 'import resource; print(*resource.getrlimit(resource.RLIMIT_CPU))'
for tier in bwrap unshare rlimit; do
        rc=0; out=$(as_user env SBX_HELPER="$SBX_HELPER" prlimit --cpu=2:2 "$SBX_RUN" -q --tier $tier --json \
                --timeout 30 --cpu 10 --file "$dir/spin.py") || rc=$?
        check "$tier: under a caller's hard cpu 2, --cpu 10 runs and stops at 1: timeout/cpu-limit (rc $rc, $(field status <<<"$out")/$(field detail <<<"$out"))" \
                test "$rc/$(field status <<<"$out")/$(field detail <<<"$out")" = 1/timeout/cpu-limit
        out=$(as_user env SBX_HELPER="$SBX_HELPER" prlimit --cpu=2:2 "$SBX_RUN" -q --tier $tier --json \
                --cpu 10 --file "$dir/lim.py" | field stdout)
        check "$tier: under a caller's hard cpu 2, the program's RLIMIT_CPU is 1 2 ($out)" test "$out" = "1 2"
done

# environment: the seed's base plus --env, nothing of the caller's
out=$(as_user env SBX_HELPER="$SBX_HELPER" LEAKME=1 PYTHONPATH=/evil "$SBX_RUN" -q --json \
        --env EXTRA=yes --tier unshare --file "$dir/env.py" | field stdout)
keys=$(jq -r 'keys|join(" ")' <<<"$out")
check "env: exactly the base set plus --env ($keys)" test "$keys" = \
        "EXTRA HOME LC_ALL OMP_NUM_THREADS OPENBLAS_NUM_THREADS PATH PYTHONDONTWRITEBYTECODE PYTHONHASHSEED TMPDIR"
check "env: PATH=/usr/bin:/bin" test "$(jq -r .PATH <<<"$out")" = /usr/bin:/bin
check "env: PYTHONHASHSEED=0" test "$(jq -r .PYTHONHASHSEED <<<"$out")" = 0
check "env: HOME is the workdir" test "$(jq -r .HOME <<<"$out")" = "$(jq -r .TMPDIR <<<"$out")"

for tier in helper bwrap unshare rlimit; do
        out=$(sbx --tier $tier --json --file "$dir/fds.py" | field stdout)
        check "$tier: only fds 0, 1, 2 (+ the listing's own) are open: $(head -1 <<<"$out")" \
                test "$(head -1 <<<"$out")" = "['0', '1', '2', '3']"
        check "$tier: stdin is /dev/null" test "$(sed -n 2p <<<"$out")" = /dev/null
        check "$tier: stdin reads empty" test "$(sed -n 3p <<<"$out")" = "''"
done

# --workdir: the user's directory, read-write, survives
wd=$(user_tmpdir)
cp "$dir/cwd.py" "$wd/"
for tier in helper bwrap unshare; do
        rm -f "$wd/made-here"
        out=$(sbx --tier $tier --json --workdir "$wd" -- python3 cwd.py)
        check "$tier: --workdir runs in DIR" test "$(field stdout <<<"$out")" = "$wd"
        check "$tier: --workdir files survive the run" test -f "$wd/made-here"
done

# --file: a private, size-capped workdir that is removed afterwards
out=$(sbx --tier bwrap --json --file "$dir/cwd.py")
wdir=$(field stdout <<<"$out")
check "--file workdir is removed after the run ($wdir)" test ! -e "$wdir"
# --file: the program sees its own file (read-only where the tier binds it)
# and nothing else, and the run leaves nothing in its scratch root (in the
# weak tiers, not what the program wrote in its workdir either)
py ro.py 'import os, sys
try:
    open(sys.argv[0], "a").write("x"); print("writable")
except OSError as e:
    print("ro")
print(sorted(os.listdir(".")))
open("made-here", "w").write("x")'
for tier in helper bwrap unshare rlimit; do
        root=$(user_tmpdir)
        out=$(as_user env SBX_HELPER="$SBX_HELPER" TMPDIR="$root" "$SBX_RUN" -q --tier $tier \
                --json --file "$dir/ro.py" | field stdout)
        check "$tier: --file program sees only its file ($(tail -1 <<<"$out"))" \
                test "$(tail -1 <<<"$out")" = "['program.py']"
        if [ $tier = helper ] || [ $tier = bwrap ]; then
                check "$tier: --file program is read-only to itself ($(head -1 <<<"$out"))" \
                        test "$(head -1 <<<"$out")" = ro
        fi
        check "$tier: --file run leaves nothing in its scratch root ($(ls -A "$root"))" \
                test -z "$(ls -A "$root")"
        rmdir "$root"
done
py big.py 'open("big", "wb").write(b"x" * (100 << 20))'
out=$(sbx --tier bwrap --json --memory none --fsize 1G --file "$dir/big.py")
check "bwrap: the private workdir is size-capped (100 MB write fails)" test "$(field status <<<"$out")" = failed

py binary.py 'import sys; sys.stdout.buffer.write(b"a\xff\x00b\xc3\xa9\n")'
out=$(sbx --json --file "$dir/binary.py")
check "binary output still gives parseable JSON" test "$(jq -r .status <<<"$out")" = ok
check "binary output: bad bytes replaced, good UTF-8 kept" \
        test "$(jq -r .stdout <<<"$out")" = "$(printf 'a\xef\xbf\xbd\xef\xbf\xbdb\xc3\xa9')"

rc=0; sbx --file "$dir/does-not-exist.py" 2>/dev/null || rc=$?
check "missing --file: exit 2 (got $rc)" test "$rc" = 2
rc=0; sbx --timeout abc --file "$dir/ok.py" 2>/dev/null || rc=$?
check "bad --timeout: exit 2 (got $rc)" test "$rc" = 2
done_testing
