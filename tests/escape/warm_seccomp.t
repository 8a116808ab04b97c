#!/bin/bash
# A warm sample's syscall filter is the cold one's: every probe of
# seccomp.t (tests/escape/try-syscall, one syscall per process, its errno as
# the exit status) run from inside one sample, warm and cold, in the helper
# tier, answers the same; and the escape probes are refused warm as they
# are cold (the zygote installs the filter in each sample's own process, so
# a slip there would show here and nowhere else). The probe tool is bound
# from under /tmp, which a warm sample's own tmpfs covers: the zygote binds
# it again on top, as the cold path binds it after its /tmp.
. "$(dirname "$0")/../lib/lib.sh"
require_test_root
[ -x "${SBX_TRY_SYSCALL:-}" ] || skip_all "SBX_TRY_SYSCALL not built (tests/tests.mk builds it)"
D=$(user_tmpdir)
chmod 0755 "$D"
install -o "$SBX_TEST_USER" -m 0755 "$SBX_TRY_SYSCALL" "$D/try-syscall"
home=$(getent passwd "$SBX_TEST_USER" | cut -d: -f6)

# seccomp.t's probes, and which of them an escape needs refused
PROBES="unshare unshare-mount mount bpf userfaultfd io_uring_setup keyctl perf_event_open
ptrace-traceme ptrace-attach kexec_load init_module clone-newuser clone3 socket-netlink
socket-packet socket-highbits open_tree_attr mseal memfd_create shmget msgget io_setup
io_submit personality-norandom personality-exec personality-highbits getpid socket-inet"
REFUSED="unshare unshare-mount mount bpf userfaultfd io_uring_setup keyctl perf_event_open
ptrace-traceme ptrace-attach kexec_load init_module clone-newuser socket-netlink socket-packet
personality-norandom personality-exec"

"$HOST_PY" - "$D" "$D/try-syscall" $PROBES <<'PY'
import json, os, sys
d, tool, probes = sys.argv[1], sys.argv[2], sys.argv[3:]
with open(os.path.join(d, "problems.jsonl"), "w") as f:
    f.write(json.dumps({"task_id": "sc/0"}) + "\n")
json.dump({"problems": "problems.jsonl", "timeout": 30, "template": "{completion}\n"},
          open(os.path.join(d, "suite.json"), "w"))
code = ("import subprocess, sys\n"
        "for name in %r:\n"
        "    p = subprocess.run([%r, name], stdin=subprocess.DEVNULL, capture_output=True)\n"
        "    print(name, p.returncode, file=sys.stderr)\n"
        "raise SystemExit(3)\n" % (probes, tool))
with open(os.path.join(d, "samples.jsonl"), "w") as f:
    f.write(json.dumps({"task_id": "sc/0", "completion": code}) + "\n")
PY
chown -R "$SBX_TEST_USER:" "$D"

# run_mode MODE: the sample run in MODE (--warm or --cold), which must end
run_mode() {
        local mode=$1 rc=0
        hostile 120 setpriv --reuid="$SBX_TEST_USER" --regid="$SBX_TEST_USER" --init-groups -- \
                env -i PATH=/usr/bin:/bin HOME="$home" SBX_HELPER="$SBX_HELPER" \
                "$SBX_RUN" --tier helper --no-progress --suite "$D/suite.json" --samples "$D/samples.jsonl" \
                --ro-bind "$D/try-syscall" "--$mode" --out "$D/$mode.jsonl" --json \
                > "$D/$mode.json" 2> "$D/$mode.err" < /dev/null || rc=$?
        is "the $mode run ends" "$rc" 0
        [ "$rc" -eq 0 ] || diag "$(head -c 600 "$D/$mode.err")"
}
# answers MODE: "name rc" lines of the sample's run in MODE, sorted
answers() {
        "$HOST_PY" - "$D/$1.jsonl" <<'PY' 2>/dev/null | sort
import json, re, sys
for l in open(sys.argv[1]):
    for line in (json.loads(l).get("stderr_tail") or "").splitlines():
        if re.fullmatch(r"[a-z0-9_-]+ -?[0-9]+", line):
            print(line)
PY
}
run_mode cold
run_mode warm
cold=$(answers cold)
warm=$(answers warm)
n=$(echo "$PROBES" | wc -w)
is "cold: the sample answered all $n probes" "$(printf '%s\n' "$cold" | grep -c .)" "$n"
if [ "$warm" = "$cold" ]; then ok "warm: every probe answers as cold ($n)"
else not_ok "warm: every probe answers as cold"; diag "$(diff <(echo "$cold") <(echo "$warm") | head -20)"; fi
for p in $REFUSED; do
        rc=$(printf '%s\n' "$warm" | awk -v p="$p" '$1 == p { print $2 }')
        if [ -n "$rc" ] && [ "$rc" -ne 0 ]; then ok "warm: $p is refused (exit $rc)"
        else not_ok "warm: $p is refused"; diag "got '${rc:-no answer}'"; fi
done
is "warm: the sample ran warm" "$("$HOST_PY" -c 'import json,sys; w = json.load(open(sys.argv[1])).get("warm") or {}; print(w.get("warm"), w.get("cold"))' "$D/warm.json" 2>&1)" "1 0"
done_testing
