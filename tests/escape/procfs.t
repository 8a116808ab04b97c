#!/bin/bash
# /proc's kernel knobs are read-only mounts inside (as bubblewrap does):
# /proc/sys, /proc/sysrq-trigger, /proc/irq, /proc/bus. The knobs of the
# run's own IPC and pid namespaces (which their owner may write) refuse a
# write in every tier, cold and warm: bwrap's cold runs had /proc/sys
# writable (bwrap covers it only where access(W_OK) allows, and the 0555
# directory does not).
. "$(dirname "$0")/../lib/lib.sh"
. "$(dirname "$0")/../lib/warm.sh"
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

# The run's own namespaces' knobs: each written with its own value, so that
# a write that gets through changes nothing.
knobs="kernel/shmmax kernel/shmall kernel/shmmni kernel/sem kernel/msgmax kernel/msgmni
kernel/ns_last_pid fs/mqueue/msg_max fs/mqueue/queues_max"
cat > "$W/knobs.py" <<PY
import sys
for k in """$knobs""".split():
    p = '/proc/sys/' + k
    try:
        value = open(p).read()
        with open(p, 'w') as f:
            f.write(value)
        print(p, 'WRITTEN', file=sys.stderr)
    except OSError as e:
        print(p, 'refused', e.errno, file=sys.stderr)
raise SystemExit(3)
PY
chown "$SBX_TEST_USER:" "$W/knobs.py"
# refused_all WHERE REPORT: a line per knob, none written
refused_all() {
        local n; n=$(grep -c "^/proc/sys/.* refused" <<<"$2")
        if [ "$n" -eq "$(wc -w <<<"$knobs")" ] && ! grep -q WRITTEN <<<"$2"; then
                ok "$1: no knob of the run's IPC and pid namespaces is writable"
        else
                not_ok "$1: no knob of the run's IPC and pid namespaces is writable"
                diag "$(grep '^/proc' <<<"$2" | tr '\n' ';')"
        fi
}
tier_works() { as_user env SBX_HELPER="$SBX_HELPER" "$SBX_RUN" -q --tier "$1" --workdir "$W" -- /bin/true >/dev/null 2>&1; }
for tier in helper bwrap unshare; do
        if ! tier_works "$tier"; then
                ok "# SKIP $tier: the tier does not work here"; continue
        fi
        as_user env SBX_HELPER="$SBX_HELPER" "$SBX_RUN" -q --tier "$tier" --json --workdir "$W" \
                -- /usr/bin/python3 -I "$W/knobs.py" > "$T/knobs-$tier.json" 2>&1 < /dev/null
        refused_all "$tier cold" "$(jq -r '.stderr // empty' "$T/knobs-$tier.json" 2>/dev/null)"
        warm_suite "$T"
        rm -f "$T/samples.jsonl"
        warm_sample "$T/samples.jsonl" knobs < "$W/knobs.py"
        chown "$SBX_TEST_USER:" "$T/suite.json" "$T/problems.jsonl" "$T/samples.jsonl"
        WARM_TIMEOUT=60 warm_suite_run "$T/warm-$tier" --tier "$tier" --suite "$T/suite.json" \
                --samples "$T/samples.jsonl" -j 1 --warm
        is "$tier warm: the sample ran warm" "$(warm_counts "$T/warm-$tier.json")" "1 0 None"
        refused_all "$tier warm" "$(result_of "$T/warm-$tier.out.jsonl" knobs)"
done
done_testing
