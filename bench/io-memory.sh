#!/bin/bash
# sbx-run's own memory on a large input/output problem (issue 33: a
# 10,000-test problem with 1 MB inputs keeps sbx-run's memory bounded):
# a problem in sbx's form whose tests_dir holds N tests of 1 MB inputs (one
# inode hard-linked N times: the disk holds 1 MB, the judge still reads
# N paths, copies N inputs into N memfds and compares N outputs), judged
# for a program that reads its whole input and prints its length, with
# --all-tests, warm in the helper tier. Prints sbx-run's peak resident
# size (VmHWM, polled from /proc until it exits) for 100 tests and for N,
# and the wall time.
#   As root (sets up the test user and a setuid helper in a temp root).
#   TESTS=10000 (default), BUILD=build, JOBS=2.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
. "$repo/bench/lib/setup.sh"
n=${TESTS:-10000}
jobs=${JOBS:-2}
bench_setup io-memory sbx-run
bench_work io-memory
"$py" - "$work" "$n" <<'PY'
import json, os, sys
work, n = sys.argv[1], int(sys.argv[2])
line = b"x" * 99 + b"\n"
with open(os.path.join(work, "one.in"), "wb") as f:
    f.write(line * 10000)                       # 1,000,000 bytes
with open(os.path.join(work, "one.out"), "w") as f:
    f.write("1000000\n")
for count in (100, n):
    d = os.path.join(work, "tests%d" % count)
    os.makedirs(d)
    for i in range(count):
        os.link(os.path.join(work, "one.in"), os.path.join(d, "%d.in" % i))
        os.link(os.path.join(work, "one.out"), os.path.join(d, "%d.out" % i))
    with open(os.path.join(work, "problem%d.jsonl" % count), "w") as f:
        f.write(json.dumps({"task_id": "len", "tests_dir": "tests%d" % count}) + "\n")
with open(os.path.join(work, "samples.jsonl"), "w") as f:
    f.write(json.dumps({"task_id": "len", "solution":
                        "import sys\nprint(len(sys.stdin.buffer.read()))\n"}) + "\n")
PY
chown -R "$SBX_TEST_USER:" "$work"
chmod -R a+rX "$work"

# peak COUNT: runs the suite on problemCOUNT.jsonl, prints "COUNT VmHWM_kB WALL PASSED".
peak() {
        local count=$1 pid run hwm=0 h t0 t1
        t0=$(date +%s.%N)
        as_bench_user "$work" "$SBX_RUN" --tier helper --no-progress --suite io \
                --problems "problem$count.jsonl" --samples samples.jsonl --all-tests -j "$jobs" \
                --out "results$count.jsonl" > /dev/null 2> "$work/err$count" &
        pid=$!
        # sbx-run itself (the newest of the bench user's), not its shell
        while kill -0 "$pid" 2>/dev/null; do
                run=$(pgrep -n -u "$SBX_TEST_USER" -x sbx-run || true)
                h=$(awk '/^VmHWM:/ { print $2 }' "/proc/${run:-0}/status" 2>/dev/null || true)
                [ "${h:-0}" -gt "$hwm" ] && hwm=$h
                sleep 0.05
        done
        wait "$pid" || { echo "io-memory: the suite failed: $(tail -2 "$work/err$count")" >&2; exit 1; }
        t1=$(date +%s.%N)
        echo "$count $hwm $(echo "$t1 - $t0" | bc -l) $("$py" -c 'import json,sys
r = json.loads(open(sys.argv[1]).readline()); print("%s/%s" % (r["tests_passed"], r["tests_total"]))' \
                "$work/results$count.jsonl")"
}
echo "io-memory: sbx-run's peak resident size judging one sample on N tests of 1 MB inputs (-j$jobs, helper, warm)"
for count in 100 "$n"; do
        read -r c hwm wall passed < <(peak "$count")
        printf 'io-memory: %6d tests: sbx-run peak %6.1f MB, %7.1f s, %s tests passed\n' \
                "$c" "$(echo "$hwm / 1024" | bc -l)" "$wall" "$passed"
done
