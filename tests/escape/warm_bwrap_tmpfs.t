#!/bin/bash
# bwrap-tmpfs.t through a warm suite in the bwrap tier (`--tier bwrap
# --warm`): the zygote's sandbox is bwrap's, whose own root and /dev tmpfs
# have no size; a warm sample sees all it inherits read-only (the root,
# /dev) and one capped tmpfs of its own for /tmp, /dev/shm and its workdir
# (docs/warm.md: where a cold bwrap run has three of 64 MB, a warm sample
# has one). fill.py, as a sample with --memory 128M, must not write 1 GB,
# and the host's Shmem must not grow by it. The sample runs warm.
. "$(dirname "$0")/../lib/lib.sh"
. "$(dirname "$0")/../lib/warm.sh"
require_test_root
D=$(user_tmpdir)
chmod 0755 "$D"
# Without a working bwrap tier (no user namespaces) there is nothing to
# fill: said as one skipped test, so reruns count the script as run.
if ! as_user "$SBX_RUN" -q --tier bwrap --workdir "$D" -- /bin/true >/dev/null 2>&1; then
        echo "ok 1 # SKIP the bwrap tier does not work here"; echo "1..1"; exit 0
fi
tmpfs_mb=64     # DEFAULT_WORKDIR_BYTES (frontend/sandbox/sandbox.h), a suite run's tmpfs
warm_suite "$D" 60
# bwrap-tmpfs.t's fill.py, its report on stderr (a failed result keeps it)
fill=$(cold_probe bwrap-tmpfs.t)
check "bwrap-tmpfs.t's fill.py is there to run (${#fill} bytes)" test -n "$fill"
printf 'import sys\nsys.stdout = sys.stderr\n%s\nraise SystemExit(3)\n' "$fill" |
        warm_sample "$D/samples.jsonl" fill
chown -R "$SBX_TEST_USER:" "$D"

warm_suite_run "$D/fill" --tier bwrap --suite "$D/suite.json" --samples "$D/samples.jsonl" \
        --memory 128M --warm
is "the warm suite runs to its end in the bwrap tier" "$rc" 0
[ "$rc" -eq 0 ] || diag "$(head -c 600 "$D/fill.err")"
is "the sample ran warm, in the bwrap tier" \
        "$(warm_counts "$D/fill.json") $("$HOST_PY" -c 'import json,sys; print(json.load(open(sys.argv[1])).get("tier"))' "$D/fill.json" 2>&1)" \
        "1 0 None bwrap"
out=$(result_of "$D/fill.out.jsonl" fill)
diag "$(tr '\n' ';' <<<"$out")"
wrote=$(sed -n 's/^wrote \([0-9]*\) MB.*/\1/p' <<<"$out")
grew=$(sed -n 's/.*shmem +\(-\{0,1\}[0-9]*\) MB.*/\1/p' <<<"$out")
if [ -n "$wrote" ] && [ "$wrote" -lt 1024 ]; then
        ok "bwrap --warm --memory 128M: fill.py cannot write 1 GB (wrote $wrote MB)"
else
        not_ok "bwrap --warm --memory 128M: fill.py cannot write 1 GB"; diag "got '$wrote'"
fi
check "... nor more than the one tmpfs of $tmpfs_mb MB (wrote ${wrote:-?} MB)" test "${wrote:-9999}" -le $tmpfs_mb
check "the root is read-only" grep -q '^/: Read-only file system' <<<"$out"
check "/dev is read-only" grep -q '^/dev: Read-only file system' <<<"$out"
check "/dev/shm is full at its cap" grep -q '^/dev/shm: No space left on device' <<<"$out"
check "/tmp is full at its cap" grep -q '^/tmp: No space left on device' <<<"$out"
# as bwrap-tmpfs.t: room for what other processes on the host do meanwhile
if [ -n "$grew" ] && [ "$grew" -le 256 ]; then
        ok "host Shmem grew by about 3 x 64 MB at most (+$grew MB)"
else
        not_ok "host Shmem grew by about 3 x 64 MB at most (got '+$grew')"
fi
done_testing
