#!/bin/bash
# The signal state a candidate starts with is a fresh process's, as under
# the reference harnesses: nothing blocked, nothing ignored but what Python
# itself ignores at start-up (SIGPIPE, SIGXFSZ). sbx-run blocks SIGINT and
# SIGTERM outside its ppoll, and a blocked mask survives fork and exec: a
# candidate that inherited it could not be stopped by SIGTERM, nor stop
# the children it starts with terminate(). Checked per tier, for --file
# runs, cold suite samples and warm ones. And sbx-run outlives its own
# SIGXCPU (a soft CPU limit of its own, which its zygotes retire before):
# it catches it, and its runs start without the handler (above).
. "$(dirname "$0")/../lib/lib.sh"
require_test_root
HE=$SBX_DATA/humaneval
D=$(user_tmpdir)
probe='import sys
f = dict(l.split(":\t", 1) for l in open("/proc/self/status").read().splitlines() if ":\t" in l)
print("blocked %s ignored %s" % (f["SigBlk"].strip(), f["SigIgn"].strip()), file=sys.stderr)'
printf '%s\n' "$probe" > "$D/probe.py"
# the control as a fresh process: a make check started in the background of
# a shell without job control ignores SIGINT and SIGQUIT, which its python3
# would inherit and the sandbox does not pass on
want=$(as_user env --default-signal /usr/bin/python3 -I -B "$D/probe.py" 2>&1)
/usr/bin/python3 - "$D/samples.jsonl" "$probe" <<'PY'
import json, sys
body = "".join("    " + l + "\n" for l in sys.argv[2].splitlines())
with open(sys.argv[1], "w") as f:
    # it fails (returns 2, not 1): a failed sample's result keeps its stderr
    f.write(json.dumps({"task_id": "test/0", "completion": body + "    return 2\n"}) + "\n")
PY
chmod 0644 "$D/probe.py" "$D/samples.jsonl"
is "control: a bare python3 blocks nothing" "${want%% ignored*}" "blocked 0000000000000000"

sbx() { as_user env SBX_HELPER="$SBX_HELPER" "$SBX_RUN" "$@"; }
for tier in helper bwrap unshare unshare-root rlimit; do
        got=$(sbx -q --tier "$tier" --file "$D/probe.py" 2>&1 >/dev/null)
        is "$tier --file: the candidate's signal state is a bare python3's" "$got" "$want"
        for mode in cold warm; do
                [ "$mode" = warm ] && [ "$tier" = rlimit ] && continue   # runs cold
                out=$D/$tier-$mode.jsonl
                sbx --tier "$tier" --"$mode" --suite humaneval --problems "$HE/example_problem.jsonl" \
                        --samples "$D/samples.jsonl" --out "$out" --summary "$out.sum" \
                        --no-progress > /dev/null 2> "$out.err"
                got=$("$HOST_PY" -c 'import json,sys; print(json.loads(open(sys.argv[1]).readline()).get("stderr_tail","").splitlines()[0])' "$out" 2>&1)
                is "$tier $mode suite: the sample's signal state is a bare python3's" "$got" "$want" ||
                        diag "$(cat "$out.err")"
                if [ "$mode" = warm ]; then
                        is "$tier warm suite: the sample ran warm" \
                                "$(jq -r '.warm.warm' "$out.sum" 2>/dev/null)" 1
                fi
        done
done

# SIGXCPU to a running sbx-run (as its own soft RLIMIT_CPU sends it): the
# run goes on and sbx-run exits with the program's status, not killed.
printf 'import time\ntime.sleep(2)\nprint("slept")\n' > "$D/xcpu.py"
chmod 0644 "$D/xcpu.py"
sbx -q --tier helper --file "$D/xcpu.py" > "$D/xcpu.out" 2> "$D/xcpu.err" &
xpid=
for _ in $(seq 50); do
        xpid=$(pgrep -u "$SBX_TEST_USER" -f "^$SBX_RUN -q --tier helper --file $D/xcpu.py" | head -1)
        [ -n "$xpid" ] && break
        sleep 0.1
done
[ -n "$xpid" ] && kill -XCPU "$xpid"
rc=0; wait $! || rc=$?
is "sbx-run outlives a SIGXCPU (pid ${xpid:-none}): exit 0, the run's output" "$rc $(cat "$D/xcpu.out")" "0 slept" ||
        diag "$(cat "$D/xcpu.err")"
done_testing
