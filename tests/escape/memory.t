#!/bin/bash
# Memory outside RLIMIT_AS (issue 14 item 1, helper tier): SysV shared memory
# is bounded by --memory through the run's IPC namespace sysctls, and the
# writable tmpfs directories (/tmp, /dev/shm, home, a private workdir) share
# ONE tmpfs of --tmpfs-size. The installed config has no memory_cgroup; the
# per-run memory cgroup is tests/hardened/memory-cgroup.t's.
. "$(dirname "$0")/../lib/lib.sh"
require_test_root
new_workspace
home=$(getent passwd "$SBX_TEST_USER" | cut -d: -f6)

# 768 MB of SysV shm in 8 MiB segments under --memory 64M: before the fix
# every segment was granted (shmmni 4096, shmall huge) and host Shmem grew.
HRUN_HOSTILE=120 hrun --workdir "$W" --memory 64M --timeout 60 --cpu 60 -- \
        /usr/bin/python3 -I "$(payload sysv_shm.py)" $((768 << 20)) $((8 << 20))
held=$(awk '$1 == "HELD" { print $2 }' "$T/out")
if [ "$rc" -eq 0 ] && [ -n "$held" ] && [ "$held" -le $((64 << 20)) ]; then
        ok "SysV shm under --memory 64M: held $held bytes, at most 64 MiB ($(awk '{ print $3 }' "$T/out"))"
else
        not_ok "SysV shm under --memory 64M is bounded by 64 MiB (held ${held:-?})"; show_run
fi

put "$W/ipc.sh" <<'SH'
cat /proc/sys/kernel/shmmax /proc/sys/kernel/shmall /proc/sys/kernel/shmmni | tr '\n' ' '
SH
hrun --workdir "$W" --memory 64M -- /bin/sh "$W/ipc.sh"
page=$(getconf PAGESIZE)
is "the run's IPC namespace: shmmax, shmall (pages), shmmni from --memory 64M" \
        "$(cat "$T/out")" "$((64 << 20)) $(((64 << 20) / page)) 8 "

# One tmpfs for the run: filling /tmp, home, /dev/shm and the private
# workdir in turn holds --tmpfs-size in all (before: four times that).
P=/tmp/sbx-private-$$
fill=$(payload fill_all.py)
HRUN_HOSTILE=120 hrun --private-workdir "$P" --ro-bind "$fill" --tmpfs-size 8M --fsize 256M --timeout 60 -- \
        /usr/bin/python3 -I "$fill" /tmp "$home" /dev/shm "$P"
total=$(awk '$1 == "TOTAL" { print $2 }' "$T/out")
if [ "$rc" -eq 0 ] && [ -n "$total" ] && [ "$total" -le $((8 << 20)) ] && [ "$total" -ge $((4 << 20)) ]; then
        ok "tmpfs fill of /tmp, home, /dev/shm, private workdir: $total bytes in all (one 8 MiB tmpfs)"
else
        not_ok "tmpfs fill across the writable dirs is bounded by one --tmpfs-size (got ${total:-?})"; show_run
fi
diag "$(tr '\n' ';' < "$T/out")"

# Inodes are kernel memory outside the tmpfs size: one per 2 KiB of it
# (+64), so 8M allows 4160 (before: half the host's RAM pages).
put "$W/inodes.py" <<'PY'
import os
n = 0
try:
    while n < 200000:
        os.close(os.open('/tmp/f%d' % n, os.O_WRONLY | os.O_CREAT, 0o600))
        n += 1
except OSError as e:
    pass
print(n)
PY
HRUN_HOSTILE=120 hrun --workdir "$W" --tmpfs-size 8M --timeout 60 -- /usr/bin/python3 -I "$W/inodes.py"
n=$(cat "$T/out")
if [ "$rc" -eq 0 ] && [ -n "$n" ] && [ "$n" -le 4160 ] && [ "$n" -ge 1000 ]; then
        ok "empty files in /tmp under --tmpfs-size 8M: $n (inodes capped)"
else
        not_ok "empty files in /tmp are capped by the tmpfs's inode count (got ${n:-?})"; show_run
fi

# --probe says what --memory bounds here.
HRUN_NOSTATUS=1 hrun --probe
mem=$("$HOST_PY" -c 'import json,sys; m=json.load(open(sys.argv[1]))["host"]["memory"]; print(m["cgroup"], len(m["bounded"]), len(m["not_bounded"]))' "$T/out" 2>/dev/null)
is "--probe reports what --memory bounds (no memory cgroup)" "$mem" "False 3 3"
done_testing
