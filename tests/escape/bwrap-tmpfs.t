#!/bin/bash
# bwrap tier (issue 14, item 2): bwrap's own root and /dev tmpfs have no
# size; sbx-run makes the root a capped tmpfs remounted read-only, /dev
# read-only, and /dev/shm, /tmp and the private workdir capped tmpfs.
# `sbx-run --tier bwrap --memory 128M --file fill.py` must not write 1 GB,
# and the host's Shmem must not grow by it.
. "$(dirname "$0")/../lib/lib.sh"
require_test_root
new_workspace
# Without a working bwrap tier (no user namespaces) there is nothing to
# fill: said as one skipped test, so reruns count the script as run.
if ! as_user "$SBX_RUN" -q --tier bwrap --workdir "$W" -- /bin/true >/dev/null 2>&1; then
        echo "ok 1 # SKIP the bwrap tier does not work here"; echo "1..1"; exit 0
fi
put "$W/fill.py" <<'PY'
import os
MB = 1 << 20
def shmem_mb():
    for line in open("/proc/meminfo"):
        if line.startswith("Shmem:"):
            return int(line.split()[1]) // 1024
before, total, chunk = shmem_mb(), 0, b"x" * MB
for d in ["/", "/dev", "/dev/shm", "/tmp", os.getcwd()]:
    n = 0
    try:
        while total < 1024 * MB:
            # 32 MB files: under the fsize limit
            with open(os.path.join(d, "fill%d" % n), "wb") as f:
                for _ in range(32):
                    f.write(chunk)
                    total += MB
            n += 1
    except OSError as e:
        print("%s: %s" % (d, e.strerror))
print("wrote %d MB, shmem +%d MB" % (total // MB, shmem_mb() - before))
PY
chmod 0644 "$W/fill.py"
rc=0
hostile 120 setpriv --reuid="$SBX_TEST_USER" --regid="$SBX_TEST_USER" --init-groups -- \
        env -i PATH=/usr/bin:/bin HOME=/nonexistent "$SBX_RUN" -q --tier bwrap --memory 128M \
        --timeout 60 --file "$W/fill.py" >"$T/out" 2>"$T/err" </dev/null || rc=$?
diag "$(cat "$T/out")"
wrote=$(sed -n 's/^wrote \([0-9]*\) MB.*/\1/p' "$T/out")
grew=$(sed -n 's/.*shmem +\(-\{0,1\}[0-9]*\) MB.*/\1/p' "$T/out")
if [ -n "$wrote" ] && [ "$wrote" -lt 1024 ]; then
        ok "bwrap --memory 128M: fill.py cannot write 1 GB (wrote $wrote MB)"
else
        not_ok "bwrap --memory 128M: fill.py cannot write 1 GB"; diag "rc=$rc $(head -c 600 "$T/err")"
fi
check "the root is read-only" grep -q '^/: Read-only file system' "$T/out"
check "/dev is read-only" grep -q '^/dev: Read-only file system' "$T/out"
check "/dev/shm is full at its cap" grep -q '^/dev/shm: No space left on device' "$T/out"
check "/tmp is full at its cap" grep -q '^/tmp: No space left on device' "$T/out"
# three capped tmpfs (/dev/shm, /tmp, the workdir) of 64 MB each, and room
# for what other processes on the host do meanwhile
if [ -n "$grew" ] && [ "$grew" -le 256 ]; then
        ok "host Shmem grew by about 3 x 64 MB at most (+$grew MB)"
else
        not_ok "host Shmem grew by about 3 x 64 MB at most (got '+$grew')"
fi
done_testing
