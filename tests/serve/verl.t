#!/bin/bash
# verl's own sandbox_fusion reward code (tests/serve/verl/, unchanged:
# its sha256 checked) scores HumanEval samples against `sbx-run --http`,
# as the unprivileged test user with the installed helper, with
# Debian's python3-requests; its verdicts must equal `sbx-run --suite
# humaneval`'s on the same samples (docs/http.md). The samples: the 164
# canonical solutions, 164 that fail, a few hostile ones, and with
# $SBX_TEST_DATA the first 3 CodeGen-16B samples of every task.
. "$(dirname "$0")/../lib/lib.sh"
require_test_root
# CI installs python3-requests (.ci/run): there a skip would hide the test
if ! "$HOST_PY" -c 'import requests' 2>/dev/null; then
        why="python3-requests missing for $HOST_PY (apt-get install python3-requests)"
        [ "${CI:-}" != true ] || { echo "1..1"; echo "not ok 1 - $why"; exit 1; }
        skip_all "$why"
fi

here=$SBX_TEST_ROOT/tests/serve
dir=$(user_tmpdir)
problems=$SBX_DATA/humaneval/HumanEval.jsonl.gz
timeout=10

# verl's files, byte for byte the ones SOURCES.md names
while read -r file sum; do
        is "verl's $file is unchanged (sha256)" "$(sha256sum "$here/verl/$file" | cut -d' ' -f1)" "$sum"
done < <(sed -n 's/^| \(sandbox_fusion\/[a-z_]*\.py\) | \([0-9a-f]\{64\}\) |$/\1 \2/p' "$here/verl/SOURCES.md")

codegen=$SBX_DATA/humaneval/model_samples/codegen16b_t0.8_n100.jsonl
[ -r "$codegen" ] || diag "no $codegen (SBX_TEST_DATA): the canonical, failing and hostile samples only"
"$HOST_PY" - "$problems" "$codegen" <<'PY' | put "$dir/samples.jsonl"
import gzip, json, os, sys
problems = [json.loads(l) for l in gzip.open(sys.argv[1], "rt")]
out = []
for p in problems:
    out.append({"task_id": p["task_id"], "completion": p["canonical_solution"]})
    out.append({"task_id": p["task_id"], "completion": "    return None\n"})
first = problems[0]["task_id"]
for body in ["    while True:\n        pass\n", "    raise ValueError('no')\n",
             "    print('x' * 5000000)\n    return True\n", "    import os\n    os.kill(os.getpid(), 9)\n",
             "    return [0] * (10 ** 10)\n"]:
    out.append({"task_id": first, "completion": body})
if os.path.exists(sys.argv[2]):
    seen = {}
    for line in open(sys.argv[2]):
        s = json.loads(line)
        if seen.get(s["task_id"], 0) < 3:
            seen[s["task_id"]] = seen.get(s["task_id"], 0) + 1
            out.append({"task_id": s["task_id"], "completion": s["completion"]})
for s in out:
    print(json.dumps(s))
PY
n=$(wc -l < "$dir/samples.jsonl")

: > "$dir/srv.out"; : > "$dir/srv.err"; chown "$SBX_TEST_USER:" "$dir/srv.out" "$dir/srv.err"
as_user env SBX_HELPER="$SBX_HELPER" TMPDIR="$dir" "$SBX_RUN" --http 127.0.0.1:0 -j 2 \
        >"$dir/srv.out" 2>"$dir/srv.err" &
for i in $(seq 300); do grep -q '"type":"ready"' "$dir/srv.out" && break; sleep 0.1; done
url=$("$HOST_PY" -c 'import json,sys; print(json.loads(open(sys.argv[1]).readline())["url"])' "$dir/srv.out" 2>/dev/null)
pid=$("$HOST_PY" -c 'import json,sys; print(json.loads(open(sys.argv[1]).readline())["pid"])' "$dir/srv.out" 2>/dev/null)
[ -n "$url" ] || { not_ok "the server starts"; diag "$(cat "$dir/srv.err")"; done_testing; }
at_exit "kill -9 $pid 2>/dev/null"

start=$(date +%s)
rc=0
as_user env TMPDIR="$dir" "$HOST_PY" -I -B "$here/verl_score.py" "$url/run_code" "$problems" \
        "$dir/samples.jsonl" "$dir/verl.jsonl" "$timeout" 4096 8 > "$dir/verl.log" 2>&1 || rc=$?
is "verl's compute_score scored $n samples through sbx-run --http ($(($(date +%s) - start)) s)" "$rc" 0 ||
        diag "$(tail -20 "$dir/verl.log")"
kill -TERM "$pid"

rc=0
as_user env SBX_HELPER="$SBX_HELPER" TMPDIR="$dir" "$SBX_RUN" --suite humaneval --problems "$problems" \
        --samples "$dir/samples.jsonl" --out "$dir/suite.jsonl" --timeout "$timeout" -j 2 --no-progress \
        > "$dir/suite.log" 2>&1 || rc=$?
is "sbx-run --suite humaneval scored them" "$rc" 0 || diag "$(tail -5 "$dir/suite.log")"

report=$("$HOST_PY" - "$dir/verl.jsonl" "$dir/suite.jsonl" "$n" <<'PY'
import collections, json, sys
verl = {r["index"]: r for r in map(json.loads, open(sys.argv[1]))}
suite = {r["sbx_index"]: r for r in map(json.loads, open(sys.argv[2]))}
n = int(sys.argv[3])
same = [i for i in range(n) if i in verl and i in suite and (verl[i]["result"] is True) == suite[i]["passed"]]
print("counts %d %d %d %d" % (n, len(verl), len(suite), len(same)))
print("passed %d %d" % (sum(r["result"] is True for r in verl.values()), sum(r["passed"] for r in suite.values())))
print("statuses %s" % dict(collections.Counter(r["status"] for r in verl.values())))
for i in range(n):
    if i not in same:
        v, s = verl.get(i, {}), suite.get(i, {})
        print("differs %d %s: verl %s (%s), suite %s (%s)" % (i, v.get("task_id"), v.get("result"),
              v.get("status"), s.get("passed"), s.get("result")))
PY
)
read -r _ want nv ns same <<<"$(grep '^counts' <<<"$report")"
is "verl's client answered every sample" "$nv" "$want"
is "the suite scored every sample" "$ns" "$want"
is "verl's verdicts equal sbx-run --suite's on all $want samples" "$same" "$want" ||
        diag "$(grep -E '^(differs|passed|statuses)' <<<"$report" | head -20)"
diag "$(grep -E '^(passed|statuses)' <<<"$report")"
check "no verl request failed at the HTTP level (api_error)" \
        test "$(grep -c '"status": "api_error"' "$dir/verl.jsonl")" -eq 0
done_testing
