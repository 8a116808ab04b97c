#!/bin/bash
# sbx-run --http (issue 34) on HumanEval's 164 canonical programs, in one
# run, interleaved round by round: a warm `sbx-run --suite -jJ`, /run_code
# from 16 concurrent clients (one server, -jJ), and Sandbox.run from 2
# threads (one sbx-run --serve); the median walls and the throughput
# ratios against the suite (goal >= 1.0x), then /run_code's p50 and p99
# latency at concurrency 1, 2 and 16, and a flood: 10,000 requests from 4 x
# (runs + queue) clients at once: every request answered once, the ones not
# admitted 429/503, the server's fds, children and RSS the same before and
# after, no process of the user's left once it stopped.
#   As root: the test user and a temp root with the setuid helper
#   (tests/lib/setup-root.sh); it measures as that user.
#   ROUNDS=3 (the median is reported), BUILD=build, JOBS=2, FLOOD=10000.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
. "$repo/bench/lib/setup.sh"
rounds=${ROUNDS:-3}
jobs=${JOBS:-2}
flood=${FLOOD:-10000}
bench_setup http-bench sbx-run
[ -x "$build/sbx-http" ] || make -s -C "$repo" BUILD="$build" "$build/sbx-http"
install -m 0755 "$build/sbx-http" "$SBX_TEST_ROOT/bin/sbx-http"
work=$SBX_TEST_ROOT/share/http-bench
humaneval_programs "$work"
install -m 0644 "$repo/bench/http-load.py" "$work/http-load.py"
cp -a "$repo/python" "$work/python"
rm -rf "$work/python/sbx/__pycache__"
cat > "$work/pool.py" <<'PY'
import glob, sys, time
from concurrent.futures import ThreadPoolExecutor
sys.path.insert(0, "python")
import sbx
progs = [open(p).read() for p in sorted(glob.glob("programs/*.py"))]
with sbx.Sandbox("bench", cache_root="cache", jobs=int(sys.argv[1])) as sb:
    sb.ensure(quiet=True)
    t0 = time.monotonic()
    with ThreadPoolExecutor(2) as pool:
        results = list(pool.map(lambda c: sb.run(c, timeout=10), progs))
    wall = time.monotonic() - t0
print("%.4f %d" % (wall, sum(r.passed for r in results)))
PY
chown -R "$SBX_TEST_USER:" "$work"
chmod -R a+rX "$work"

user() { as_bench_user "$work" "$@"; }
now() { date +%s.%N; }
field() { "$py" -c 'import json,sys; d=json.loads(sys.stdin.read()); print(eval(sys.argv[1], {}, d))' "$1"; }

# server NAME ARGS...: sbx-run --http as the test user; sets url and srv_pid.
server() {
        local name=$1; shift
        : > "$work/$name.out"; chown "$SBX_TEST_USER:" "$work/$name.out"
        user "$SBX_RUN" --http 127.0.0.1:0 "$@" > "$work/$name.out" 2> "$work/$name.err" &
        for _ in $(seq 300); do grep -q '"type":"ready"' "$work/$name.out" && break; sleep 0.1; done
        url=$(head -1 "$work/$name.out" | field url)
        srv_pid=$(head -1 "$work/$name.out" | field pid)
}
stop_server() {
        kill -TERM "$srv_pid"
        while kill -0 "$srv_pid" 2>/dev/null; do sleep 0.1; done
}

echo "http-bench: HumanEval canonical (164), -j$jobs, $rounds rounds interleaved, as" \
        "$SBX_TEST_USER, $(nproc) cpus, load $(cut -d' ' -f1-3 /proc/loadavg)"
server main -j "$jobs"
trap 'kill -9 $srv_pid 2>/dev/null; teardown_root' EXIT
user "$py" http-load.py latency "$url" programs 2 > /dev/null       # zygotes up: not timed
suite=(); http=(); pool=()
for _ in $(seq 1 "$rounds"); do
        t0=$(now)
        user "$SBX_RUN" --suite humaneval --problems HumanEval.jsonl.gz --canonical -j "$jobs" \
                --out suite.jsonl --no-progress --json > /dev/null
        suite+=("$(echo "$(now) - $t0" | bc -l)")
        http+=("$(user "$py" http-load.py latency "$url" programs 16 | field wall_s)")
        read -r w _ < <(user env SBX_RUN="$SBX_RUN" "$py" pool.py "$jobs"); pool+=("$w")
done
s=$(printf '%s\n' "${suite[@]}" | median)
h=$(printf '%s\n' "${http[@]}" | median)
p=$(printf '%s\n' "${pool[@]}" | median)
printf 'http-bench: sbx-run --suite -j%s (warm):       %6.3f s  %6.1f samples/s\n' "$jobs" "$s" "$(echo "164 / $s" | bc -l)"
printf 'http-bench: /run_code, 16 clients:           %6.3f s  %6.1f samples/s  %.2fx the suite (goal >= 1.0x)\n' \
        "$h" "$(echo "164 / $h" | bc -l)" "$(echo "$s / $h" | bc -l)"
printf 'http-bench: Sandbox.run, 2 threads:          %6.3f s  %6.1f samples/s  %.2fx the suite (goal >= 1.0x)\n' \
        "$p" "$(echo "164 / $p" | bc -l)" "$(echo "$s / $p" | bc -l)"
for c in 1 2 16; do
        out=$(user "$py" http-load.py latency "$url" programs "$c")
        printf 'http-bench: /run_code at concurrency %2d: p50 %6.1f ms  p99 %6.1f ms  (%s passed)\n' "$c" \
                "$(echo "$out" | field 'p50_s * 1000')" "$(echo "$out" | field 'p99_s * 1000')" \
                "$(echo "$out" | field passed)"
done
stop_server

queue=$((2 * jobs)); clients=$((4 * (jobs + queue)))
server flood -j "$jobs" --http-queue "$queue"
procs_before=$(pgrep -u "$SBX_TEST_USER" -c || true)
out=$(user "$py" http-load.py flood "$url" "$flood" "$clients" "$srv_pid" clients)
stop_server
sleep 1
procs_after=$(pgrep -u "$SBX_TEST_USER" -c || true)
echo "http-bench: flood: $flood requests from $clients clients at once (-j$jobs, a queue of $queue): $out"
printf 'http-bench: flood: answers by status %s, transport errors %s, every request answered once: %s\n' \
        "$(echo "$out" | field status)" "$(echo "$out" | field 'len(transport_errors)')" \
        "$(echo "$out" | field answered_once)"
printf 'http-bench: flood: server fds %s -> %s (peak %s), children %s -> %s, RSS %s -> %s kB (peak %s)\n' \
        "$(echo "$out" | field 'server_before["fds"]')" "$(echo "$out" | field 'server_after["fds"]')" \
        "$(echo "$out" | field 'server_peak["fds"]')" "$(echo "$out" | field 'server_before["children"]')" \
        "$(echo "$out" | field 'server_after["children"]')" "$(echo "$out" | field 'server_before["rss_kb"]')" \
        "$(echo "$out" | field 'server_after["rss_kb"]')" "$(echo "$out" | field 'server_peak["rss_kb"]')"
echo "http-bench: flood: processes of $SBX_TEST_USER: $procs_before with the server up, $procs_after once it stopped"
