#!/bin/bash
# One warm sample cannot change the next one's verdict or stall the suite
# through the zygote it ran on (SECURITY.md, "One sample, another's
# verdict"). A sample that forks with CLONE_PARENT (through ctypes) would
# make its child the zygote's, outside the run: the filter refuses the
# flag, and the three samples (that one, then two canonical ones on the
# same zygote, -j1) all pass in every tier that starts a zygote. A zygote
# that stops answering (SIGSTOPped by its own user: a stand-in for one a
# sample could stall, which does not rely on the filter) is ended by
# sbx-run, in the helper tier too where its root-owned helper cannot be
# signalled, and the run it held is sent again to a fresh zygote: every
# sample still passes and the suite ends. (tests/warm/zygote.t checks the
# zygote's own side: a CLONE_PARENT child under a filter that allows it.)
. "$(dirname "$0")/../lib/lib.sh"
. "$(dirname "$0")/../lib/warm.sh"
require_test_root
D=$(user_tmpdir)
chmod 0755 "$D"
tag=sbxcp$$                     # the clone child's comm: at most 15 bytes
warm_suite "$D" 3
warm_sample "$D/cp.jsonl" clone-parent <<PY
import ctypes, os, time
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
CLONE_PARENT, SIGCHLD, SYS_clone = 0x8000, 17, 56
pid = libc.syscall(SYS_clone, CLONE_PARENT | SIGCHLD, 0, 0, 0, 0)
if pid == 0:
    libc.prctl(15, b"$tag", 0, 0, 0)
    time.sleep(30)
    os._exit(0)
print("clone(CLONE_PARENT):", pid, os.strerror(ctypes.get_errno()) if pid < 0 else "a child")
PY
warm_sample "$D/cp.jsonl" canonical <<<'x = 1'
warm_sample "$D/cp.jsonl" canonical <<<'x = 2'
warm_sample "$D/stall.jsonl" slow <<<'import time; time.sleep(2)'
warm_sample "$D/stall.jsonl" canonical <<<'x = 1'
warm_sample "$D/stall.jsonl" canonical <<<'x = 2'
chown -R "$SBX_TEST_USER:" "$D"

# passes RESULTS: "P P P" when the three samples passed, in order
passes() {
        "$HOST_PY" -c 'import json, sys
rows = sorted((json.loads(l) for l in open(sys.argv[1])), key=lambda r: r["n"])
print(" ".join("P" if r["passed"] else "%s:%s" % (r["what"], r["result"]) for r in rows))' "$1" 2>&1
}
tier_works() { as_user env SBX_HELPER="$SBX_HELPER" "$SBX_RUN" -q --tier "$1" --workdir "$D" -- /bin/true >/dev/null 2>&1; }

for tier in helper bwrap unshare; do
        if ! tier_works "$tier"; then
                ok "# SKIP $tier: the tier does not work here"; continue
        fi
        t0=$(date +%s.%N)
        WARM_TIMEOUT=90 warm_suite_run "$D/cp-$tier" --tier "$tier" --suite "$D/suite.json" \
                --samples "$D/cp.jsonl" -j 1 --warm
        diag "$tier: CLONE_PARENT then two canonical samples, -j1: $(echo "$(date +%s.%N) - $t0" | bc) s"
        is "$tier: the suite with a CLONE_PARENT sample first ends (within its outer 90 s)" "$rc" 0
        [ "$rc" -eq 0 ] || diag "$(tail -c 600 "$D/cp-$tier.err")"
        is "$tier: the CLONE_PARENT sample and the two canonical ones after it on its zygote all pass" \
                "$(passes "$D/cp-$tier.out.jsonl")" "P P P"
        is "$tier: all three ran warm, on one zygote" "$(warm_counts "$D/cp-$tier.json")" "3 0 None"
        left=$(pgrep -u "$SBX_TEST_USER" -x "$tag" | tr '\n' ' ')
        is "$tier: no clone child is left" "$left" ""
        [ -z "$left" ] || kill -9 $left
done

# serving_zygote ROOT: the zygote among ROOT's descendants (python -c with
# the zygote's source, whose parent is one too: the zygote proper, pid 1 of
# its own pid namespace) once it serves a run (a child sbx-run-init, B0).
serving_zygote() {
        "$HOST_PY" - "$1" <<'PY'
import os, sys
procs = {}
for p in filter(str.isdigit, os.listdir('/proc')):
    try:
        stat = open('/proc/%s/stat' % p).read()
        procs[int(p)] = (int(stat.rsplit(')', 1)[1].split()[1]), stat[stat.index('(') + 1:stat.rindex(')')],
                         b'_SBX_ZYGOTE' in open('/proc/%s/cmdline' % p, 'rb').read())
    except (OSError, ValueError, IndexError):
        pass
mine, grew = {int(sys.argv[1])}, True
while grew:
    more = {p for p, (pp, _, _) in procs.items() if pp in mine} - mine
    mine |= more
    grew = bool(more)
for p in mine:
    pp, _, zygote = procs[p] if p in procs else (0, '', False)
    if zygote and procs.get(pp, (0, '', False))[2] and \
            any(q[0] == p and q[1] == 'sbx-run-init' for q in procs.values()):
        print(p)
PY
}
for tier in helper bwrap unshare; do
        if ! tier_works "$tier"; then
                ok "# SKIP $tier: the tier does not work here"; continue
        fi
        t0=$(date +%s.%N)
        (WARM_TIMEOUT=90 warm_suite_run "$D/stall-$tier" --tier "$tier" --suite "$D/suite.json" \
                --samples "$D/stall.jsonl" -j 1 --warm; exit "$rc") &
        runner=$!
        stopped=""
        for _ in $(seq 100); do
                stopped=$(serving_zygote "$runner")
                [ -n "$stopped" ] && break
                sleep 0.1
        done
        [ -z "$stopped" ] || kill -STOP $stopped
        at_exit "kill -CONT $stopped 2>/dev/null"
        rc=0
        wait "$runner" || rc=$?
        diag "$tier: a zygote stopped under its first sample (pid ${stopped:-none}): $(echo "$(date +%s.%N) - $t0" | bc) s"
        check "$tier: sanity: the zygote was found and stopped" test -n "$stopped"
        is "$tier: the suite whose zygote stopped answering ends (within its outer 90 s)" "$rc" 0
        [ "$rc" -eq 0 ] || diag "$(tail -c 600 "$D/stall-$tier.err")"
        is "$tier: the sample it held ran again on a fresh zygote: all three pass" \
                "$(passes "$D/stall-$tier.out.jsonl")" "P P P"
        is "$tier: all three ran warm" "$(warm_counts "$D/stall-$tier.json" | cut -d' ' -f1-2)" "3 0"
        left=""
        for p in $stopped; do kill -0 "$p" 2>/dev/null && left="$left $p"; done
        is "$tier: the stopped zygote was ended" "$left" ""
        [ -z "$left" ] || kill -9 $left
done
done_testing
