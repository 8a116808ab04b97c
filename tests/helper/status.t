#!/bin/bash
# The status JSON on --status-fd: one line, the right status and numbers for
# exited / signaled / timeout / cpu-limit / setup-error, and the exit code
# contract (candidate's code, 128 + signal, 3 for the helper's own failure).
. "$(dirname "$0")/../lib/lib.sh"
require_test_root
new_workspace

expect_status() { # DESCRIPTION STATUS EXIT_CODE SIGNAL RC
        local s e g
        s=$(jfield status) e=$(jfield exit_code) g=$(jfield signal)
        if [ "$s/$e/$g/$rc" = "$2/$3/$4/$5" ]; then ok "$1"; else
                not_ok "$1"; diag "want status/exit_code/signal/rc $2/$3/$4/$5"; show_run; fi
}
num_between() { # DESCRIPTION FIELD LOW HIGH
        local v; v=$(jfield "$2")
        if "$HOST_PY" -c 'import sys; v, lo, hi = map(float, sys.argv[1:]); sys.exit(not lo <= v <= hi)' \
                "${v:-nan}" "$3" "$4"; then ok "$1 ($2 $v)"; else not_ok "$1"; diag "$2=$v not in [$3, $4]"; fi
}

hrun --workdir "$W" -- /bin/true
expect_status "exit 0: status exited, rc 0" exited 0 0 0
for f in status exit_code signal wall_s cpu_s max_rss_kb nproc_mode message; do
        check "status JSON has $f" eval "jfield $f >/dev/null"
done
check "nproc_mode is userns, cgroup or rlimit" grep -Eq '"nproc_mode": *"(userns|cgroup|rlimit)"' "$T/status.json"

put "$W/exit7.sh" <<'SH'
exit 7
SH
hrun --workdir "$W" -- /bin/sh "$W/exit7.sh"
expect_status "exit 7: status exited, exit_code 7, rc 7" exited 7 0 7

put "$W/usr1.sh" <<'SH'
kill -USR1 $$
SH
hrun --workdir "$W" -- /bin/sh "$W/usr1.sh"
expect_status "killed by SIGUSR1: status signaled, signal 10, rc 138" signaled 0 10 138

start=$(date +%s.%N)
hrun --workdir "$W" --timeout 1 -- /bin/sleep 30
end=$(date +%s.%N)
is "wall-clock timeout: status timeout" "$(jfield status)" timeout
num_between "timeout: wall_s about 1 s" wall_s 0.9 3
check "timeout: the helper returned within 4 s" \
        "$HOST_PY" -c "import sys; sys.exit(not $end - $start < 4)"
check "timeout: rc is not 0 and not 3 ($rc)" test "$rc" -ne 0 -a "$rc" -ne 3

hrun --workdir "$W" --timeout 0.5 -- /bin/sleep 30
is "decimal --timeout 0.5: status timeout" "$(jfield status)" timeout
num_between "--timeout 0.5: wall_s about 0.5 s" wall_s 0.4 2

put "$W/spin.py" <<'PY'
while True:
    pass
PY
hrun --workdir "$W" --cpu 1 --timeout 20 -- /usr/bin/python3 -I "$W/spin.py"
is "cpu limit: status cpu-limit" "$(jfield status)" cpu-limit
# rusage's utime+stime are tick samples scaled to the scheduler's runtime:
# at a 1 s RLIMIT_CPU they read 0.89..1.0 s here, hence the low bound.
num_between "cpu limit: cpu_s about 1 s" cpu_s 0.75 2.5

# cpu_s and max_rss_kb are the whole tree's: here all the work is done by a
# grandchild, which a plain wait4 on the candidate would not count.
put "$W/tree.py" <<'PY'
import os, time
pid = os.fork()
if pid == 0:
    if os.fork() == 0:
        buf = bytearray(120 << 20)
        for i in range(0, len(buf), 4096):
            buf[i] = 1
        t = time.process_time()
        while time.process_time() - t < 0.6:
            pass
        os._exit(0)
    os.wait()
    os._exit(0)
os.waitpid(pid, 0)
PY
hrun --workdir "$W" --timeout 20 -- /usr/bin/python3 -I "$W/tree.py"
expect_status "tree run exits 0" exited 0 0 0
num_between "cpu_s counts a grandchild's cpu" cpu_s 0.5 5
num_between "max_rss_kb counts a grandchild's 120 MiB" max_rss_kb 120000 400000

put "$W/sleep.sh" <<'SH'
sleep 0.3
SH
hrun --workdir "$W" -- /bin/sh "$W/sleep.sh"
num_between "wall_s of a 0.3 s run" wall_s 0.3 2

hrun --workdir "$T/no-such-dir" -- /bin/true
is "set-up failure: rc 3" "$rc" 3
is "set-up failure: status setup-error on the status fd" "$(jfield status)" setup-error
m=$(jfield message)
check "set-up failure: the message says what failed ($m)" test -n "$m"
done_testing
