#!/bin/bash
# The escape payloads (tests/escape/payloads) as samples of a warm suite,
# beside ordinary control samples in the same run: each is contained as
# its cold escape test asserts (bombs, memory, unbounded-memory, files, fds,
# network, signals, daemon), the zygotes survive them (every control
# passes, every run stayed warm), and what one sample leaves in /tmp,
# /dev/shm, its cwd (its home) or an abstract socket is gone for the next
# sample on the same zygote.
# A payload's output comes back in its result's stderr_tail: each runs with
# sys.stdout = sys.stderr and ends failed (SystemExit(3)) when it returns.
# SBX_ESCAPE_WARM_MODE=cold runs the same assertions one sandbox per sample
# (the warm ones must hold there too; the warm counts are then not checked).
. "$(dirname "$0")/../lib/lib.sh"
. "$(dirname "$0")/../lib/warm.sh"
require_test_root
mode=${SBX_ESCAPE_WARM_MODE:-warm}
D=$(user_tmpdir)
chmod 0755 "$D"
home=$(getent passwd "$SBX_TEST_USER" | cut -d: -f6)
payloads=$(cd "$(dirname "$0")" && pwd)/payloads
tag=sbx-ewarm-$$-$RANDOM
token=SBX-SECRET-$tag
echo "$token" > "$home/$tag.secret"; chown "$SBX_TEST_USER:" "$home/$tag.secret"; chmod 0600 "$home/$tag.secret"
host_tmp=$(mktemp /tmp/sbx-secret.XXXXXX); echo "$token" > "$host_tmp"; chmod 0644 "$host_tmp"
at_exit 'rm -rf "$home/$tag.secret" "$host_tmp" "$home/$tag" "/tmp/$tag" "/dev/shm/$tag" "/$tag" "/etc/$tag"'
host_fine() { as_user sh -c 'for i in 1 2 3 4 5; do /bin/true & done; wait' >/dev/null 2>&1; }
memory_mb=128
bomb_comm=sbxfb$$        # the fork bomb's comm (PR_SET_NAME, kept across fork): at most 15 bytes
tmpfs_bytes=$((64 << 20))   # DEFAULT_WORKDIR_BYTES (frontend/sandbox/sandbox.h), a suite run's tmpfs

# The host's listener (lib.sh, as network.t's): every connection is logged.
host_listener "$tag" "$D/listener"
check "sanity: the host's listener is up (port ${port:-none})" test -n "$port"
host_ip=$(hostname -I 2>/dev/null | awk '{ print $1 }')
: > "$D/listener"

# A process of the test user outside, for kill(-1) (signals.t's victim).
as_user bash -c 'exec -a "$0" sleep 300' "$tag-victim" </dev/null >/dev/null 2>&1 &
for _ in $(seq 50); do victim=$(user_pids "$tag-victim"); [ -n "$victim" ] && break; sleep 0.1; done
at_exit '[ -z "${victim:-}" ] || kill $victim 2>/dev/null'
check "sanity: the victim sleep runs as $SBX_TEST_USER (pid ${victim:-none})" test -n "$victim"

# The suites: a problem that adds nothing to the sample's program.
# hostile: every payload, with controls between them that sleep 1 s so
# that they run beside the payloads at -j2; leftover: -j1 (one zygote),
# samples that leave files and samples after them that look for them.
warm_suite "$D" 5
"$HOST_PY" - "$D" "$payloads" "$tag" "$token" "$home" "$host_tmp" "$port" "$host_ip" \
        "$((768 << 20))" "$bomb_comm" <<'PY'
import json, os, sys
d, pdir, tag, token, home, host_tmp, port, host_ip, big, comm = sys.argv[1:]
def payload(name, *argv):
    src = open(os.path.join(pdir, name)).read()
    # hex: the program text (in the workdir, which read_secrets walks) must
    # not hold the token
    pre = ("import sys\nsys.argv = [bytes.fromhex(a).decode() for a in %r]\nsys.stdout = sys.stderr\n"
           % ([a.encode().hex() for a in [name] + list(argv)],))
    return pre + src + "\nraise SystemExit(3)\n"

hostile = [
    ("forkbomb", "import ctypes\nctypes.CDLL(None).prctl(15, %r, 0, 0, 0)\n" % comm.encode()
                 + payload("forkbomb.py", "/dev/stderr")),
    ("membomb", payload("membomb.py")),
    ("fill-tmp", payload("fill.py", "/tmp/fill", big)),
    ("fill-shm", payload("fill.py", "/dev/shm/fill", big)),
    ("fill_all", payload("fill_all.py", "/tmp", "/dev/shm", ".")),
    ("memhold-memfd", payload("memhold.py", "memfd")),
    ("memhold-shm", payload("memhold.py", "shm")),
    ("sysv_shm", payload("sysv_shm.py", big, str(8 << 20))),
    ("killall", payload("killall.py")),
    ("list_fds", payload("list_fds.py")),
    ("net_connect", payload("net_connect.py", port, tag, *([host_ip] if host_ip else []))),
    ("read_secrets", payload("read_secrets.py", token, os.path.join(home, tag + ".secret"), host_tmp,
                             "/etc/shadow")),
    ("write_outside", payload("write_outside.py", tag, "/", "/usr", "/etc", "/tmp", "/dev/shm", home, ".")),
    ("daemon-exit", payload("daemon.py", tag + "-daemon-exit", "exit")),
    ("daemon-wait", payload("daemon.py", tag + "-daemon-wait", "wait")),
    ("forge_status", payload("forge_status.py")),
]
with open(os.path.join(d, "hostile.jsonl"), "w") as f:
    n = 0
    for name, code in hostile:
        for what, c in (("control", "import time\ntime.sleep(1)\nprint('control %d')" % n), (name, code)):
            f.write(json.dumps({"task_id": "esc/0", "what": what, "n": n, "completion": c}) + "\n")
            n += 1
    f.write(json.dumps({"task_id": "esc/0", "what": "control", "n": n,
                        "completion": "import time\ntime.sleep(1)"}) + "\n")

leave = ("import os, socket\nfor p in ('/tmp/%s', '/dev/shm/%s', '%s'):\n"
         "    open(p, 'w').write('left')\n"
         "    assert open(p).read() == 'left', p\n"
         "s = socket.socket(socket.AF_UNIX)\ns.bind('\\0%s')\ns.listen()\n"
         "if os.fork() == 0:\n    __import__('time').sleep(30)\n    os._exit(0)\n" % (tag, tag, tag, tag))
look = ("import os, socket, sys\nfound = [p for p in ('/tmp/%s', '/dev/shm/%s', '%s', os.path.join(os.getcwd(), '%s'))"
        " if os.path.exists(p)]\ntry:\n    socket.socket(socket.AF_UNIX).connect('\\0%s')\n"
        "    found.append('the abstract socket')\nexcept OSError:\n    pass\n"
        "if found:\n    sys.exit('found: %%s' %% found)\n" % (tag, tag, tag, tag, tag))
with open(os.path.join(d, "leftover.jsonl"), "w") as f:
    for i, (what, c) in enumerate((("control", "x = 1"), ("leave", leave), ("look", look),
                                   ("leave", leave), ("look", look), ("control", "x = 2"))):
        f.write(json.dumps({"task_id": "esc/0", "what": what, "n": i, "completion": c}) + "\n")
PY
chown -R "$SBX_TEST_USER:" "$D"

# ---- the payloads, at -j2 ----------------------------------------------------
rc=0
t0=$(date +%s)
hostile 300 setpriv --reuid="$SBX_TEST_USER" --regid="$SBX_TEST_USER" --init-groups -- \
        env -i PATH=/usr/bin:/bin HOME="$home" LANG=C.UTF-8 SBX_HELPER="$SBX_HELPER" \
        "$SBX_RUN" --tier helper --no-progress --suite "$D/suite.json" --samples "$D/hostile.jsonl" \
        -j 2 "--$mode" --memory ${memory_mb}M --fsize 256M --out "$D/hostile.out.jsonl" --json \
        > "$D/hostile.json" 2> "$D/hostile.err" < /dev/null || rc=$?
is "the hostile warm suite runs to its end ($(( $(date +%s) - t0 )) s)" "$rc" 0
[ "$rc" -eq 0 ] || diag "$(head -c 600 "$D/hostile.err")"
# tail NAME: the payload's stderr_tail; tail NAME KEY: another field of it
tail_of() { result_of "$D/hostile.out.jsonl" "$@"; }
n_samples=$(wc -l < "$D/hostile.jsonl")
got=$("$HOST_PY" - "$D/hostile.out.jsonl" "$n_samples" <<'PY' 2>&1
import collections, json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
n = collections.Counter(r["n"] for r in rows)
ctl = [r for r in rows if r["what"] == "control"]
bad = [r["n"] for r in ctl if not r["passed"]]
print(len(rows) == int(sys.argv[2]) and set(n.values()) == {1},
      "%d/%d controls passed" % (len(ctl) - len(bad), len(ctl)), bad or "")
PY
)
is "one result per sample, and every control sample passes beside the payloads" \
        "$got" "True $(( (n_samples + 1) / 2 ))/$(( (n_samples + 1) / 2 )) controls passed "
if [ "$mode" = warm ]; then
        is "every sample ran warm (no zygote was lost to a payload)" \
                "$(warm_counts "$D/hostile.json")" "$n_samples 0 None"
fi

# fork bomb (bombs.t): capped by the run's nproc, the host can still fork,
# nothing of it left (this script runs alone: SERIAL_TESTS)
n=$(tail_of forkbomb | grep -Eo '^[0-9]+$' | head -n1)
if [ -n "$n" ] && [ "$n" -lt 100 ]; then ok "fork bomb: capped by the run's nproc (got $n forks)"; else
        not_ok "fork bomb: capped by the run's nproc"; diag "forks: '$n' ($(tail_of forkbomb result))"; fi
is "fork bomb: timed out" "$(tail_of forkbomb result)" "timed out"
check "fork bomb: the host can still fork as the same user" host_fine
# membomb (bombs.t): RLIMIT_AS turns it into a MemoryError
t=$(tail_of membomb)
case $t in *MemoryError*) ok "memory bomb: stopped by --memory ${memory_mb}M ($(grep -m1 'MemoryError after' <<<"$t"))" ;;
*) if [ "$(tail_of membomb status)" = memory-limit ] || [ "$(tail_of membomb detail)" = memory-limit ]; then
        ok "memory bomb: a memory-limit verdict"; else
        not_ok "memory bomb: stopped by --memory ${memory_mb}M"; diag "$(tail_of membomb result): $t"; fi ;;
esac
is "memory bomb: failed" "$(tail_of membomb passed)" False
mb=$(grep -o 'after [0-9]*' <<<"$t" | grep -o '[0-9]*')
check "memory bomb: it got less than ${memory_mb} MiB (${mb:-?} MiB)" test "${mb:-999}" -lt $memory_mb
# fill (bombs.t, memory.t): ENOSPC at the tmpfs size, one tmpfs for all
for f in fill-tmp fill-shm; do
        line=$(tail_of $f | grep -E '^[A-Z]+ [0-9]+$' | head -n1)
        e=${line%% *}; b=${line##* }
        if [ "$e" = ENOSPC ] && [ "${b:-999999999}" -le $tmpfs_bytes ]; then
                ok "$f: ENOSPC at $b bytes (tmpfs $tmpfs_bytes)"
        else not_ok "$f: ENOSPC within the tmpfs size"; diag "got '$(tail_of $f | head -c 300)'"; fi
done
total=$(tail_of fill_all | awk '$1 == "TOTAL" { print $2 }')
if [ -n "$total" ] && [ "$total" -le $tmpfs_bytes ] && [ "$total" -ge $((tmpfs_bytes / 2)) ]; then
        ok "fill of /tmp, /dev/shm and the cwd: $total bytes in all (one tmpfs of $tmpfs_bytes)"
else not_ok "fill of /tmp, /dev/shm and the cwd is bounded by one tmpfs"; diag "$(tail_of fill_all | tr '\n' ';')"; fi
# memory outside RLIMIT_AS (unbounded-memory.t, memory.t)
for k in memfd shm; do
        line=$(tail_of memhold-$k | grep '^held ')
        held=$(sed -n 's/^held \([0-9]*\) MB.*/\1/p' <<<"$line")
        grew=$(sed -n 's/.*shmem +\(-\{0,1\}[0-9]*\) MB.*/\1/p' <<<"$line")
        check "memhold $k: holds at most --memory ${memory_mb}M (${line:-no output})" test "${held:-999999}" -le $memory_mb
        check "memhold $k: host Shmem grew by at most ${memory_mb} MB (+${grew:-?})" test "${grew:-999999}" -le $memory_mb
done
held=$(tail_of sysv_shm | awk '$1 == "HELD" { print $2 }')
check "SysV shm: held at most --memory ${memory_mb}M (${held:-?} bytes)" test "${held:-999999999999}" -le $((memory_mb << 20))
# kill(-1) (signals.t): the victim outside lives; the controls (above) passed
diag "killall inside: $(tail_of killall | head -n1 | head -c 200)"
check "kill(-1, SIGKILL) inside leaves the user's host process alive" kill -0 "${victim:-999999999}"
# fds (fds.t)
# (the suite's driver keeps fd 3, its copy of stdout: docs/suites.md)
t=$(tail_of list_fds | awk '$1 ~ /^[0-9]+$/')
diag "list_fds: $(tr '\n' ' ' <<<"$t")"
is "list_fds: only fds 0 1 2 are open in the candidate, and the driver's copy of stdout" \
        "$(awk '{ print $1 }' <<<"$t" | tr '\n' ' ')" "0 1 2 3 "
is "list_fds: fd 0 is /dev/null, fd 3 the pipe of fd 1" \
        "$(awk '{ t[$1] = $2 } END { print t[0], (t[3] == t[1] && t[1] ~ /^pipe:/) }' <<<"$t")" "/dev/null 1"
# network (network.t)
t=$(tail_of net_connect)
diag "net_connect: $(grep -v '^ \|^Traceback\|^SystemExit' <<<"$t" | tr '\n' ' ')"
check "net_connect: the host's 127.0.0.1 listener is unreachable" grep -q 'tcp-loopback: refused' <<<"$t"
check "net_connect: the host's abstract unix socket is unreachable" grep -q 'abstract-unix: refused' <<<"$t"
if [ -n "$host_ip" ]; then
        check "net_connect: the host's address $host_ip is unreachable" grep -q 'tcp-host-ip: refused' <<<"$t"
fi
is "the host listener saw no connection from inside" "$(cat "$D/listener")" ""
# files (files.t)
t=$(tail_of read_secrets)
check "read_secrets ran (it reports on each path)" grep -q "^$home/$tag.secret: " <<<"$t"
check_fails "read_secrets: the caller's home file is not readable inside" grep -q "^$home/$tag.secret: LEAKED" <<<"$t"
check_fails "read_secrets: a world-readable host /tmp file is not visible inside" grep -q "^$host_tmp: LEAKED" <<<"$t"
check_fails "read_secrets: /etc/shadow is not readable inside" grep -q "^/etc/shadow: LEAKED" <<<"$t"
check_fails "read_secrets: no file with the secret found walking /tmp /home HOME /dev/shm" grep -q "LEAKED by walk" <<<"$t"
t=$(tail_of write_outside)
diag "write_outside: $(grep ': ' <<<"$t" | grep -v '^ \|^SystemExit' | tr '\n' ' ')"
check "write_outside ran (it reports on each dir)" grep -q '^/etc: ' <<<"$t"
check_fails "write_outside: no write to / /usr /etc inside succeeds" grep -Eq '^(/|/usr|/etc): WROTE' <<<"$t"
for d in "$home" /tmp /dev/shm / /etc /usr; do
        check_fails "write_outside: a write to $d inside does not reach the host" test -e "$d/$tag"
done
# daemon (daemon.t): nothing with its marker outlives the run
for m in exit wait; do
        left=$(user_pids "$tag-daemon-$m")
        is "daemon ($m): no process of it is left after the suite" "$(echo $left)" ""
        [ -z "$left" ] || { ps -o pid,ppid,sid,cmd -p "$(echo $left | tr ' ' ,)" >&2; kill -9 $left; }
done
is "daemon (wait): timed out" "$(tail_of daemon-wait result)" "timed out"
# forge_status (fds.t): its own truth, once; the others' untouched (above)
diag "forger: $(tail_of forge_status | head -n1 | head -c 300)"
is "forge_status: its fake \"exited 0\" does not pass it" "$(tail_of forge_status passed)" False
is "forge_status: its result is its own exit status 1" "$(tail_of forge_status returncode)" 1
is "forge_status: the memory of its init and parent does not open" \
        "$(tail_of forge_status | grep '^memory opened:')" "memory opened: none"
sleep 0.5
left=$(pgrep -u "$SBX_TEST_USER" -x "$bomb_comm" | tr '\n' ' ')
is "fork bomb: no process of it is left after the suite" "$left" ""
[ -z "$left" ] || kill -9 $left

# ---- files left for the next sample on the same zygote: -j1 ------------------
rc=0
hostile 120 setpriv --reuid="$SBX_TEST_USER" --regid="$SBX_TEST_USER" --init-groups -- \
        env -i PATH=/usr/bin:/bin HOME="$home" LANG=C.UTF-8 SBX_HELPER="$SBX_HELPER" \
        "$SBX_RUN" --tier helper --no-progress --suite "$D/suite.json" --samples "$D/leftover.jsonl" \
        -j 1 "--$mode" --out "$D/leftover.out.jsonl" --json \
        > "$D/leftover.json" 2> "$D/leftover.err" < /dev/null || rc=$?
is "the leftover suite (-j1) runs to its end" "$rc" 0
got=$("$HOST_PY" -c 'import json,sys
print(" ".join("%s:%s" % (r["what"], "P" if r["passed"] else r["result"])
      for r in sorted((json.loads(l) for l in open(sys.argv[1])), key=lambda r: r["n"])))' "$D/leftover.out.jsonl" 2>&1)
is "a sample's files in /tmp, /dev/shm and its cwd, and its abstract socket, are there for itself and gone for the next" \
        "$got" "control:P leave:P look:P leave:P look:P control:P"
if [ "$mode" = warm ]; then
        is "... and the six ran warm, on one zygote (-j1, none lost)" \
                "$(warm_counts "$D/leftover.json")" "6 0 None"
fi
done_testing
