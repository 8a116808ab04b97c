#!/bin/bash
# /proc's kernel knobs are read-only mounts inside (as bubblewrap does):
# /proc/sys, /proc/sysrq-trigger, /proc/irq, /proc/bus.
. "$(dirname "$0")/../lib/lib.sh"
require_test_root
new_workspace

put "$W/proc.py" <<'PY'
import os
ro = {}
for line in open('/proc/self/mountinfo'):
    f = line.split()
    ro[f[4]] = 'ro' in f[5].split(',')
for p in ('/proc/sys', '/proc/sysrq-trigger', '/proc/irq', '/proc/bus'):
    if os.path.exists(p):
        print(p, 'ro' if ro.get(p) else 'NOT-RO')
for p in ('/proc/sys/kernel/hostname', '/proc/sysrq-trigger'):
    try:
        with open(p, 'w') as f:
            f.write('x')
        print(p, 'WRITTEN')
    except OSError as e:
        print(p, 'refused', e.errno)
PY
hrun --workdir "$W" -- /usr/bin/python3 -I "$W/proc.py"
[ "$rc" -eq 0 ] || show_run
# Each that this kernel has (sysrq-trigger needs CONFIG_MAGIC_SYSRQ).
for p in /proc/sys /proc/sysrq-trigger /proc/irq /proc/bus; do
        if [ -e "$p" ]; then
                is "$p is a read-only mount" "$(awk -v p="$p" '$1 == p && NF == 2 { print $2 }' "$T/out")" ro
        else
                ok "$p is a read-only mount # SKIP this kernel has no $p"
        fi
done
check_fails "no write to /proc/sys or /proc/sysrq-trigger succeeds" grep -q WRITTEN "$T/out"
done_testing
