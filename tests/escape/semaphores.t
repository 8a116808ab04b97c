#!/bin/bash
# SysV semaphores are kernel memory that no rlimit bounds and no process is
# charged for: a new IPC namespace allows 32000 sets of 32000 (64 bytes
# each, some 64 GB). A flood of semget(IPC_PRIVATE, 32000) under
# --memory 64M held 256 MB of the host's MemAvailable in under a second.
# Now the filter refuses semget/semop/semtimedop/semctl (ENOSYS), and where
# sbx writes the run's IPC limits (the helper's init, sbx-run-init's B0 for
# every warm run) kernel.sem is small too (common/ipc_limits.c): in every
# tier with an IPC namespace of the run's own, cold and warm, the flood
# holds less than --memory. (bwrap's cold runs keep the kernel's
# kernel.sem: their /proc/sys is read-only before anything of sbx's runs
# there; the filter alone refuses the flood.) Python's multiprocessing
# needs none of it (its locks and semaphores are POSIX ones, futexes in
# /dev/shm files): a sample that uses them passes, cold and warm.
. "$(dirname "$0")/../lib/lib.sh"
. "$(dirname "$0")/../lib/warm.sh"
require_test_root
D=$(user_tmpdir)
chmod 0755 "$D"
memory_mb=64
small_sem="32 256 32 8"         # SBX_SEM (common/ipc_limits.h)

# The flood: sets of as many semaphores as kernel.sem allows each, up to
# 5,000,000 semaphores (305 MiB at 64 bytes), MemAvailable read before and
# after while they are held; its report as one JSON line on stderr.
cat > "$D/flood.py" <<'PY'
import ctypes, json, sys
libc = ctypes.CDLL(None, use_errno=True)
def available_kb():
    for line in open('/proc/meminfo'):
        if line.startswith('MemAvailable:'):
            return int(line.split()[1])
try:
    sem = open('/proc/sys/kernel/sem').read().split()
except OSError as e:
    sem = [str(e)]
nsems = min(32000, int(sem[0])) if sem[0].isdigit() else 32000
before = available_kb()
made = err = 0
while made * nsems < 5000000:
    if libc.semget(0, nsems, 0o1600) < 0:       # IPC_PRIVATE, IPC_CREAT | 0600
        err = ctypes.get_errno()
        break
    made += 1
after = available_kb()
print(json.dumps({'sem': ' '.join(sem), 'sets': made, 'errno': err,
                  'held_mb': made * nsems * 64 >> 20, 'drop_mb': (before - after) >> 10}), file=sys.stderr)
raise SystemExit(3)
PY
cat > "$D/mp.py" <<'PY'
import concurrent.futures, multiprocessing as mp
def square(x):
    return x * x
if __name__ == '__main__':
    with mp.Pool(2) as pool:
        assert pool.map(square, range(5)) == [0, 1, 4, 9, 16]
    with concurrent.futures.ProcessPoolExecutor(2) as ex:
        assert list(ex.map(square, range(3))) == [0, 1, 4]
    lock, sem, event, value, q = mp.Lock(), mp.Semaphore(2), mp.Event(), mp.Value('i', 3), mp.Queue()
    with lock, sem:
        event.set()
        q.put(value.value)
    assert event.is_set() and q.get() == 3
    with mp.get_context('spawn').Pool(1) as pool:
        assert pool.map(square, [3]) == [9]
PY
warm_suite "$D" 20
warm_sample "$D/samples.jsonl" flood < "$D/flood.py"
warm_sample "$D/samples.jsonl" multiprocessing < "$D/mp.py"
chown -R "$SBX_TEST_USER:" "$D"

tier_works() { as_user env SBX_HELPER="$SBX_HELPER" "$SBX_RUN" -q --tier "$1" --workdir "$D" -- /bin/true >/dev/null 2>&1; }
field() { "$HOST_PY" -c 'import json, sys
try:
    print(json.loads(sys.stdin.read().strip().splitlines()[-1]).get(sys.argv[1]))
except (ValueError, IndexError):
    print("no report")' "$1"; }
# check_flood WHERE REPORT SEM_SET: held and MemAvailable drop below
# --memory; with SEM_SET, kernel.sem is the small one
check_flood() {
        local where=$1 report=$2 held drop
        diag "$where: $report"
        held=$(field held_mb <<<"$report")
        drop=$(field drop_mb <<<"$report")
        if [ "${held:-x}" -ge 0 ] 2>/dev/null && [ "$held" -lt $memory_mb ]; then
                ok "$where: the flood holds ${held} MB of semaphores (under --memory ${memory_mb}M)"
        else
                not_ok "$where: the flood holds less than --memory ${memory_mb}M (got '${held:-}')"
        fi
        if [ "${drop:-x}" -lt $memory_mb ] 2>/dev/null; then
                ok "$where: MemAvailable dropped by ${drop} MB during it (under ${memory_mb})"
        else
                not_ok "$where: MemAvailable dropped by less than ${memory_mb} MB (got '${drop:-}')"
        fi
        [ "$3" = 1 ] && is "$where: the run's IPC namespace has kernel.sem $small_sem" \
                "$(field sem <<<"$report")" "$small_sem"
        return 0
}

for tier in helper bwrap; do
        if ! tier_works "$tier"; then
                ok "# SKIP $tier cold: the tier does not work here"; continue
        fi
        rc=0
        hostile 120 setpriv --reuid="$SBX_TEST_USER" --regid="$SBX_TEST_USER" --init-groups -- \
                env -i PATH=/usr/bin:/bin HOME=/nonexistent SBX_HELPER="$SBX_HELPER" "$SBX_RUN" -q \
                --tier "$tier" --json --memory ${memory_mb}M --timeout 20 --workdir "$D" \
                -- /usr/bin/python3 -I "$D/flood.py" > "$D/cold-$tier.json" 2> "$D/cold-$tier.err" \
                < /dev/null || rc=$?
        report=$(jq -r '.stderr // empty' "$D/cold-$tier.json" 2>/dev/null | grep '^{' | tail -n1)
        [ -n "$report" ] || diag "rc=$rc $(head -c 300 "$D/cold-$tier.err") $(head -c 300 "$D/cold-$tier.json")"
        check_flood "$tier cold" "$report" "$([ "$tier" = helper ] && echo 1)"
        as_user env SBX_HELPER="$SBX_HELPER" "$SBX_RUN" -q --tier "$tier" --json --memory 512M --timeout 30 \
                --workdir "$D" -- /usr/bin/python3 -I "$D/mp.py" > "$D/mp-$tier.json" 2>&1 < /dev/null
        is "$tier cold: multiprocessing's pools, locks, semaphores, queues work" \
                "$(jq -r '.status' "$D/mp-$tier.json" 2>/dev/null)" ok || diag "$(head -c 600 "$D/mp-$tier.json")"
done
for tier in helper bwrap unshare; do
        if ! tier_works "$tier"; then
                ok "# SKIP $tier warm: the tier does not work here"; continue
        fi
        WARM_TIMEOUT=120 warm_suite_run "$D/warm-$tier" --tier "$tier" --suite "$D/suite.json" \
                --samples "$D/samples.jsonl" -j 1 --warm --memory ${memory_mb}M
        is "$tier warm: the samples ran warm" "$(warm_counts "$D/warm-$tier.json")" "2 0 None"
        is "$tier warm: multiprocessing's pools, locks, semaphores, queues work" \
                "$(result_of "$D/warm-$tier.out.jsonl" multiprocessing passed)" True ||
                diag "$(result_of "$D/warm-$tier.out.jsonl" multiprocessing)"
        check_flood "$tier warm" "$(result_of "$D/warm-$tier.out.jsonl" flood | grep '^{' | tail -n1)" 1
done
done_testing
