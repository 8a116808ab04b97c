#!/bin/bash
# mountpoints.t through warm suites: mount points are never created as
# root outside the sandbox's own tmpfs. Warm, the helper binds a session's
# --ro-bind once per zygote (its --zygote set-up, as root: the race of
# mountpoints.t applies there), and B binds it again per sample, on top of
# the sample's tmpfs, from a copy of the zygote's mount taken before (no
# path left to race; the mount point it makes is in the sample's own
# tmpfs). A bounded racer: RUNS warm suites of two samples, with the bound
# file toggled all along, leave no root-owned file. A session whose file
# was gone at a check fails, as a cold run does; one whose file was
# replaced after its zygote bound it cannot bind it again for a sample
# (B's move_mount of its copy of the zygote's mount, whose file is now
# deleted, fails with ENOENT), and gives up warm runs: its samples run cold. So the raced suites are not
# asked to run warm; a file replaced mid-suite (deterministic, below) is
# asked for what a cold run gives: each sample reads the file as it is
# then. Unraced: a warm sample sees the --ro-bind file at its path, with
# its content, and cannot write to it (nor reach the host's).
. "$(dirname "$0")/../lib/lib.sh"
. "$(dirname "$0")/../lib/warm.sh"
require_test_root
D=$(user_tmpdir)
chmod 0755 "$D"
RUNS=20
W=$D/work; mkdir -m 0755 "$W" "$W/D" "$W/E"
echo orig > "$W/E/g"
warm_suite "$D"
for f in D/f E/g; do
        for i in 1 2; do
                warm_sample "$D/${f%/*}.jsonl" "bound-$i" <<PY
import os, stat, sys
p = "$W/$f"
try:
    st = os.lstat(p)
    print("bound:", "file" if stat.S_ISREG(st.st_mode) else "other", open(p).read().strip() or "-",
          file=sys.stderr)
except OSError as e:
    print("bound:", e.strerror, file=sys.stderr)
try:
    with open(p, "a") as f:
        f.write("written by the sample\n")
    print("write: WROTE", file=sys.stderr)
except OSError as e:
    print("write:", e.strerror, file=sys.stderr)
raise SystemExit(3)
PY
        done
done
chown -R "$SBX_TEST_USER:" "$D"

# mountpoints.t's racer
warm=0
raced_suite() {
        warm_suite_run "$D/race$1" --tier helper --suite "$D/suite.json" --samples "$D/D.jsonl" \
                -j 1 --warm --ro-bind "$W/D/f"
        [ "$(warm_counts "$D/race$1.json")" = "2 0 None" ] && warm=$((warm + 1))
        [ "$rc" -eq 0 ]
}
race_bind_target "$RUNS" "$W/D" "$D" raced_suite
check "mountpoints.t's racer was there to run" test -s "$D/race.py"
find "$W" -user root >> "$D/found"
if [ -s "$D/found" ]; then
        not_ok "$RUNS raced warm suites leave no root-owned file"; diag "$(head -n 5 "$D/found")"
else
        ok "$RUNS raced warm suites leave no root-owned file in the caller's directory"
fi
# (as mountpoints.t, a count, not a check: each session passes several
# checks of the file, sbx-run's, the helper's, the zygote's set-up, and
# most lose the race at one of them; 2-3 of 20 ran to their end here)
diag "$raced_ok of $RUNS suites ran to their end, $warm with both samples warm"

# unraced: what a warm sample sees of its --ro-bind
warm_suite_run "$D/bind" --tier helper --suite "$D/suite.json" --samples "$D/E.jsonl" \
        -j 1 --warm --ro-bind "$W/E/g"
is "the unraced suite runs to its end" "$rc" 0
[ "$rc" -eq 0 ] || diag "$(head -c 600 "$D/bind.err")"
is "... both samples warm, on one zygote" "$(warm_counts "$D/bind.json")" "2 0 None"
for i in 1 2; do
        out=$(result_of "$D/bind.out.jsonl" "bound-$i")
        diag "bound-$i: $(grep -v '^ \|^Traceback\|^SystemExit' <<<"$out" | tr '\n' ';')"
        is "sample $i: the --ro-bind file is there, with its content" "$(grep '^bound:' <<<"$out")" "bound: file orig"
        is "sample $i: it cannot write to it" "$(grep '^write:' <<<"$out")" "write: Read-only file system"
done
is "the host's file is as it was" "$(cat "$W/E/g")" orig

# replaced mid-suite: sample 1 reads the file, names itself (comm) and
# sleeps; once it is seen, the host's file is replaced; samples 2 and 3
# read it as a cold run's do (the new content), each once
comm=sbxrp$$    # at most 15 bytes
for i in 1 2 3; do
        warm_sample "$D/R.jsonl" "read-$i" <<PY
import ctypes, sys, time
if $i == 1:
    print("read:", open("$W/E/g").read().strip(), file=sys.stderr)
    ctypes.CDLL(None).prctl(15, b"$comm", 0, 0, 0)
    time.sleep(4)
    raise SystemExit(3)
print("read:", open("$W/E/g").read().strip(), file=sys.stderr)
raise SystemExit(3)
PY
done
chown "$SBX_TEST_USER:" "$D/R.jsonl"
declare -A got
for m in cold warm; do
        as_user sh -c 'echo orig > "$1"' sh "$W/E/g"
        (for _ in $(seq 200); do pgrep -u "$SBX_TEST_USER" -x "$comm" >/dev/null && break; sleep 0.05; done
         as_user sh -c 'rm "$1" && echo new > "$1"' sh "$W/E/g") &
        warm_suite_run "$D/replaced-$m" --tier helper --suite "$D/suite.json" --samples "$D/R.jsonl" \
                -j 1 "--$m" --ro-bind "$W/E/g"
        wait $!
        is "replaced mid-suite, --$m: the suite runs to its end" "$rc" 0
        got[$m]=$(for i in 1 2 3; do result_of "$D/replaced-$m.out.jsonl" "read-$i" | grep '^read:'; done | tr '\n' ' ')
done
diag "replaced mid-suite, --warm: $(warm_counts "$D/replaced-warm.json")"
is "replaced mid-suite: the cold samples read the file as it is when each runs" "${got[cold]}" \
        "read: orig read: new read: new "
is "replaced mid-suite: the warm ones read it as the cold ones, once each" "${got[warm]}" "${got[cold]}"
done_testing
