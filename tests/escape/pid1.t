#!/bin/bash
# Nothing a sample can reach speaks for its run. Its pid 1 is a process of
# sbx's own (the helper's init; sbx-run-init in a warm run and, as
# `bwrap --as-pid-1`, in the bwrap tier), which it can neither prlimit nor
# open the memory of. Before, in the bwrap tier, pid 1 was bwrap itself,
# dumpable and of the sample's uid: a sample opened /proc/1/mem, wrote code
# there that clears pid 1's death signal, writes "exit 0" to bwrap's event
# fd and waits forever, and exited 1: sbx-run reported it passed, and pid 1
# and the sample's child outlived the run. Here the sample tries exactly
# that (x86-64) in every tier, cold and warm: the open must fail, its
# verdict must be its own exit 1, and nothing of it is left after sbx-run.
# And whatever of a run outlives its tier's process is killed by sbx-run's
# sweep in every tier (it was only in the weak ones): a stand-in for bwrap
# and for the helper that leaves a process of its own behind. What held
# before, checked here too: the sample and its pid 1 hold no capability
# and have no_new_privs and the seccomp filter, and a warm sample shares no
# writable memory with its zygote (no shared writable mapping).
. "$(dirname "$0")/../lib/lib.sh"
. "$(dirname "$0")/../lib/warm.sh"
require_test_root
[ "$(uname -m)" = x86_64 ] || skip_all "the payload's code is x86-64 (this is $(uname -m))"
D=$(user_tmpdir)
chmod 0755 "$D"
tag=sbxp1$$                             # the left child's comm (15 bytes at most)
prog=$D/pid1-$tag.py                    # in every command line of the run

cat > "$prog" <<PY
import ctypes, os, resource, struct, sys, time
def say(*a):
    print(*a, file=sys.stderr, flush=True)
def confinement(pid):
    st = dict(l.split(':', 1) for l in open('/proc/%s/status' % pid).read().splitlines() if ':' in l)
    return ' '.join('%s=%s' % (k, st.get(k, '?').strip()) for k in ('CapPrm', 'CapEff', 'CapBnd', 'NoNewPrivs', 'Seccomp'))
say('self:', confinement('self'))
say('init:', confinement(1))
say('shared writable mappings:', sum(l.split()[1] == 'rw-s' for l in open('/proc/self/maps')))
try:
    resource.prlimit(1, resource.RLIMIT_NOFILE, resource.prlimit(1, resource.RLIMIT_NOFILE))
    say('prlimit(1): allowed')
except OSError as e:
    say('prlimit(1): refused', e.errno)
try:
    mem = os.open('/proc/1/mem', os.O_RDWR)
except OSError as e:
    say('mem: refused', e.errno)
    mem = -1
if mem < 0:
    raise SystemExit(1)
say('mem: opened')
evfd = -1
for fd in os.listdir('/proc/1/fd'):
    try:
        if os.readlink('/proc/1/fd/' + fd) == 'anon_inode:[eventfd]':
            evfd = int(fd)
    except OSError:
        pass
# pid 1 waits in wait4: where it resumes, prctl(PR_SET_PDEATHSIG, 0),
# write(evfd, &1, 8) ("exit 0" to bwrap's monitor), then pause() for ever.
code = (bytes.fromhex('bf0100000031f6b89d0000000f05bf') + struct.pack('<i', evfd) +
        bytes.fromhex('488d3515000000ba08000000b8010000000f05b8220000000f05ebf70100000000000000'))
pc = int(open('/proc/1/syscall').read().split()[-1], 16)
os.pwrite(mem, code, pc)
say('pid 1 patched at %#x (eventfd %d)' % (pc, evfd))
if os.fork() == 0:
    ctypes.CDLL(None).prctl(15, b'$tag', 0, 0, 0)
    time.sleep(120)
    os._exit(0)
raise SystemExit(1)
PY
warm_suite "$D" 20
warm_sample "$D/samples.jsonl" pid1 < "$prog"
chown -R "$SBX_TEST_USER:" "$D"

tier_works() { as_user env SBX_HELPER="$SBX_HELPER" "$SBX_RUN" -q --tier "$1" --workdir "$D" -- /bin/true >/dev/null 2>&1; }
# left: the test user's processes of this run (the sample's child by its
# comm, anything with the program's path on its command line), killed once
# named
left() {
        local pids; pids=$( (pgrep -u "$SBX_TEST_USER" -x "$tag"; pgrep -u "$SBX_TEST_USER" -f "$tag") | sort -u | tr '\n' ' ')
        [ -z "$pids" ] || { ps -o pid,ppid,user,comm,args -p "$(echo $pids | tr ' ' ,)" >&2; kill -9 $pids 2>/dev/null; }
        echo "$pids"
}
# judge WHERE REPORT PASSED RC: the attempt failed, the run's verdict is
# the sample's own (exit 1), nothing of it is left; but in the unshare
# tier's cold runs (no pid namespace, no filter: not a sandbox), the
# sample and its pid 1 hold nothing, and no writable memory is shared
judge() {
        local confined="CapPrm=0000000000000000 CapEff=0000000000000000 CapBnd=0000000000000000 NoNewPrivs=1 Seccomp=2"
        diag "$1: $(tr '\n' ';' <<<"$2")"
        if [ "$1" != "unshare cold" ]; then
                is "$1: the sample holds no capability, has no_new_privs and the filter" \
                        "$(sed -n 's/^self: //p' <<<"$2")" "$confined"
                is "$1: so does its pid 1" "$(sed -n 's/^init: //p' <<<"$2")" "$confined"
                is "$1: no shared writable mapping" "$(sed -n 's/^shared writable mappings: //p' <<<"$2")" 0
        fi
        check "$1: prlimit on pid 1 is refused" grep -q '^prlimit(1): refused' <<<"$2"
        check "$1: /proc/1/mem does not open for writing" grep -q '^mem: refused' <<<"$2"
        is "$1: the verdict is the sample's own: failed, exit 1" "$3 $4" "False 1"
        sleep 0.2
        is "$1: nothing of the run is left" "$(left)" ""
}

for tier in bwrap helper unshare; do
        if ! tier_works "$tier"; then
                ok "# SKIP $tier cold: the tier does not work here"; continue
        fi
        rc=0
        hostile 60 setpriv --reuid="$SBX_TEST_USER" --regid="$SBX_TEST_USER" --init-groups -- \
                env -i PATH=/usr/bin:/bin HOME=/nonexistent SBX_HELPER="$SBX_HELPER" "$SBX_RUN" -q \
                --tier "$tier" --json --timeout 10 --workdir "$D" -- /usr/bin/python3 -I "$prog" \
                > "$D/cold-$tier.json" 2> "$D/cold-$tier.err" < /dev/null || rc=$?
        judge "$tier cold" "$(jq -r '.stderr // empty' "$D/cold-$tier.json" 2>/dev/null)" \
                "$(jq -r '.passed | if . then "True" else "False" end' "$D/cold-$tier.json" 2>/dev/null)" \
                "$(jq -r '.returncode' "$D/cold-$tier.json" 2>/dev/null)"
done
for tier in helper bwrap unshare; do
        if ! tier_works "$tier"; then
                ok "# SKIP $tier warm: the tier does not work here"; continue
        fi
        WARM_TIMEOUT=60 warm_suite_run "$D/warm-$tier" --tier "$tier" --suite "$D/suite.json" \
                --samples "$D/samples.jsonl" -j 1 --warm
        is "$tier warm: the sample ran warm" "$(warm_counts "$D/warm-$tier.json")" "1 0 None"
        judge "$tier warm" "$(result_of "$D/warm-$tier.out.jsonl" pid1)" \
                "$(result_of "$D/warm-$tier.out.jsonl" pid1 passed)" \
                "$(result_of "$D/warm-$tier.out.jsonl" pid1 returncode)"
done

# A tier's process that leaves something behind: it forks a sleeper in a
# session of its own before it execs the real tool, so that the sleeper
# outlives it as sbx-run's orphan (its subreaper).
mkdir -p "$D/bin"
for tool in bwrap sbx-helper; do
        real=$([ $tool = bwrap ] && command -v bwrap || echo "$SBX_HELPER")
        printf '#!/bin/bash\nsetsid bash -c "exec -a %s-left sleep 60" </dev/null >/dev/null 2>&1 3>&- 4>&- 5>&- 6>&- &\necho $! >> %s\nexec %s "$@"\n' \
                "$tag-$tool" "$D/left-$tool.pids" "$real" > "$D/bin/$tool"
        chmod 0755 "$D/bin/$tool"
done
for tier in bwrap helper; do
        if ! tier_works "$tier"; then
                ok "# SKIP $tier: the tier does not work here"; continue
        fi
        tool=$([ $tier = bwrap ] && echo bwrap || echo sbx-helper)
        rc=0
        hostile 60 setpriv --reuid="$SBX_TEST_USER" --regid="$SBX_TEST_USER" --init-groups -- \
                env -i PATH="$D/bin:/usr/bin:/bin" HOME=/nonexistent SBX_HELPER="$D/bin/sbx-helper" \
                "$SBX_RUN" -q --tier "$tier" --timeout 10 --workdir "$D" -- /bin/true \
                > "$D/left-$tier.out" 2>&1 < /dev/null || rc=$?
        is "$tier: a run through a stand-in $tool that leaves a process behind runs" "$rc" 0
        [ "$rc" -eq 0 ] || diag "$(head -c 300 "$D/left-$tier.out")"
        check "$tier: sanity: the stand-in left a process" test -s "$D/left-$tool.pids"
        sleep 0.2
        left=$(user_pids "$tag-$tool-left" | tr '\n' ' ')
        is "$tier: what outlived the tier's process was killed by sbx-run's sweep" "$left" ""
        [ -z "$left" ] || kill -9 $left
done
done_testing
