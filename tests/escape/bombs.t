#!/bin/bash
# Resource bombs are contained: the run ends, the host stays usable, the
# rlimits (or per-run nproc) did the stopping.
. "$(dirname "$0")/../lib/lib.sh"
require_test_root
new_workspace
marker=sbx-bomb-$$-$RANDOM
host_fine() { as_user sh -c 'for i in 1 2 3 4 5; do /bin/true & done; wait' >/dev/null 2>&1; }

# Fork bomb, the python kind: count how many forks it got before EAGAIN.
put "$W/count" </dev/null
start=$(date +%s)
HRUN_HOSTILE=60 hrun --workdir "$W" --nproc 30 --timeout 5 -- \
        /usr/bin/python3 -I "$(payload forkbomb.py)" "$W/count" "$marker"
took=$(( $(date +%s) - start ))
n=$(cat "$W/count")
if [ -n "$n" ] && [ "$n" -lt 30 ]; then ok "fork bomb: capped at --nproc 30 (got $n forks)"; else
        not_ok "fork bomb: capped at --nproc 30"; diag "forks: '$n'"; show_run; fi
check "fork bomb: the run ended by the timeout (took ${took}s)" test "$took" -le 15
is "fork bomb: status timeout" "$(jfield status)" timeout
m=$(jfield nproc_mode)
case $m in userns|cgroup|rlimit) ok "fork bomb: nproc_mode reported ($m)" ;; *) not_ok "fork bomb: nproc_mode reported"; diag "got '$m'" ;; esac
sleep 0.5
is "fork bomb: no process of it is left on the host" "$(user_pids "$marker" | wc -l)" 0
check "fork bomb: the host can still fork as the same user" host_fine

# The shell kind, the one everyone tries first.
put "$W/bomb.sh" <<'SH'
b() { b | b & }; b; sleep 60
SH
start=$(date +%s)
HRUN_HOSTILE=60 hrun --workdir "$W" --nproc 64 --timeout 3 -- /bin/sh "$W/bomb.sh" "$marker"
took=$(( $(date +%s) - start ))
check "shell fork bomb: the run ended (took ${took}s)" test "$took" -le 15
is "shell fork bomb: status timeout" "$(jfield status)" timeout
sleep 0.5
is "shell fork bomb: nothing left on the host" "$(user_pids "$marker" | wc -l)" 0
check "shell fork bomb: the host can still fork" host_fine

# Memory bomb: RLIMIT_AS turns it into a MemoryError (exit 42).
HRUN_HOSTILE=60 hrun --workdir "$W" --memory 256M --timeout 20 -- /usr/bin/python3 -I "$(payload membomb.py)"
if [ "$rc" -eq 42 ] || [ "$(jfield status)" = memory-limit ]; then
        ok "memory bomb: stopped by --memory 256M ($(head -n1 "$T/out"))"
else
        not_ok "memory bomb: stopped by --memory 256M"; show_run
fi
n=$(grep -o 'after [0-9]*' "$T/out" | grep -o '[0-9]*')
check "memory bomb: it got less than 256 MiB (${n:-?} MiB)" test "${n:-999}" -lt 256
check "memory bomb: the host is fine" host_fine

# Disk: --fsize caps a file in the (host-visible) workdir: EFBIG.
HRUN_HOSTILE=60 hrun --workdir "$W" --fsize 2M --timeout 20 -- \
        /usr/bin/python3 -I "$(payload fill.py)" "$W/big" $((64 << 20))
is "disk fill of the workdir: EFBIG at --fsize 2M" "$(awk '{ print $1 }' "$T/out")" EFBIG
size=$(stat -c %s "$W/big" 2>/dev/null || echo missing)
is "disk fill: the host file is exactly 2 MiB" "$size" $((2 << 20))

# tmpfs: /tmp and /dev/shm are capped by --tmpfs-size: ENOSPC.
for d in /tmp /dev/shm; do
        HRUN_HOSTILE=60 hrun --workdir "$W" --tmpfs-size 8M --fsize 256M --timeout 20 -- \
                /usr/bin/python3 -I "$W/fill.py" "$d/fill" $((256 << 20))
        e=$(awk '{ print $1 }' "$T/out"); b=$(awk '{ print $2 }' "$T/out")
        if [ "$e" = ENOSPC ] && [ "${b:-999999999}" -le $((8 << 20)) ]; then
                ok "tmpfs fill of $d: ENOSPC at ${b} bytes (cap 8 MiB)"
        else
                not_ok "tmpfs fill of $d: ENOSPC within 8 MiB"; show_run
        fi
done
done_testing
