#!/bin/bash
# sbx-run --http (docs/http.md) as the unprivileged test user against the
# installed helper: SandboxFusion's /run_code (statuses, limits, files
# only below the run's workdir), the native /v1/serve, hostile clients
# (oversized, malformed, slow, flooding), admission (429/503, a client's
# share, turns), clients that leave, tokens, a unix socket only its owner
# reaches, and shutdown on SIGTERM answering every accepted request. The
# HTTP checks are tests/serve/http_checks.py (python3-requests).
. "$(dirname "$0")/../lib/lib.sh"
require_test_root
# CI installs both (.ci/run): there a skip would hide the test
why=
command -v curl >/dev/null || why="curl missing (apt-get install curl)"
"$HOST_PY" -c 'import requests' 2>/dev/null ||
        why="python3-requests missing for $HOST_PY (apt-get install python3-requests)"
if [ -n "$why" ]; then
        [ "${CI:-}" != true ] || { echo "1..1"; echo "not ok 1 - $why"; exit 1; }
        skip_all "$why"
fi

dir=$(user_tmpdir)
checks=$SBX_TEST_ROOT/tests/serve/http_checks.py
srv_pid=

# serve NAME ARGS...: starts the server as the test user; sets url and
# srv_pid from its ready line (stdout: $dir/NAME.out, stderr: NAME.err).
serve() {
        local name=$1; shift
        : > "$dir/$name.out"; : > "$dir/$name.err"
        chown "$SBX_TEST_USER:" "$dir/$name.out" "$dir/$name.err"
        as_user env SBX_HELPER="$SBX_HELPER" TMPDIR="$dir" ${SERVE_ENV:-} "$SBX_RUN" --http "$@" \
                >"$dir/$name.out" 2>"$dir/$name.err" &
        local i
        for i in $(seq 300); do
                grep -q '"type":"ready"' "$dir/$name.out" && break
                sleep 0.1
        done
        url=$("$HOST_PY" -c 'import json,sys; print(json.loads(open(sys.argv[1]).readline())["url"])' \
              "$dir/$name.out" 2>/dev/null)
        srv_pid=$("$HOST_PY" -c 'import json,sys; print(json.loads(open(sys.argv[1]).readline())["pid"])' \
                  "$dir/$name.out" 2>/dev/null)
        [ -n "$srv_pid" ] && at_exit "kill -9 $srv_pid 2>/dev/null"
        [ -n "$url" ] || diag "$name did not start: $(cat "$dir/$name.err")"
}

# stop: SIGTERM, and the exit status (the server is not our child: polled).
stop() {
        kill -TERM "$srv_pid" 2>/dev/null
        local i
        for i in $(seq 300); do
                kill -0 "$srv_pid" 2>/dev/null || return 0
                sleep 0.1
        done
        return 1
}

# checks GROUP ARGS...: the Python checks' lines as TAP.
checks() {
        local line
        while IFS= read -r line; do
                case $line in
                "not ok - "*) not_ok "${line#not ok - }" ;;
                "ok - "*) ok "${line#ok - }" ;;
                "# "*) diag "${line#\# }" ;;
                esac
        done < <(as_user env TMPDIR="$dir" "$HOST_PY" -I "$checks" "$@" 2>&1)
}

# No process of the server's is left: every run's workdir is under $dir.
no_leftovers() {
        local left
        left=$(pgrep -u "$SBX_TEST_USER" -f "$dir" | tr '\n' ' ')
        is "$1: no process left behind" "$left" ""
}

# ---- a plain server: /run_code, files, /v1/serve ----
serve plain 127.0.0.1:0 -j 2
if [ -n "$url" ]; then
        ok "starts on 127.0.0.1, port 0 chosen by the kernel: $url"
        check "says where it listens and that it has no token" \
                grep -q "listening on $url .*no token, so every user of this machine can run code" "$dir/plain.err"
        as_user sh -c "echo 'the user secret' > $dir/secret; mkdir $dir/wd"
        printf '%s\n' '{"task_id": "HumanEval/0", "completion": "    return False\n"}' \
                '{"task_id": "HumanEval/0", "completion": "    return any(abs(a - b) < threshold for i, a in enumerate(numbers) for b in numbers[i + 1:])\n"}' \
                | put "$dir/samples.jsonl"
        checks basic "$url"
        checks files "$url" "$dir/secret"
        checks native "$url" "$dir/wd" "$SBX_DATA/humaneval/HumanEval.jsonl.gz" "$dir/samples.jsonl"
        check "the server is still up after them" kill -0 "$srv_pid"
        check "SIGTERM: it exits" stop
        check "it said it stopped" grep -q "http: stopped" "$dir/plain.err"
        no_leftovers "plain"
else
        not_ok "the plain server starts"
fi

# ---- hostile clients ----
serve abuse 127.0.0.1:0 -j 2 --http-max-body 1M --http-max-buffered 2M --http-idle-timeout 3 \
        --http-request-timeout 4 --http-max-connections 40
if [ -n "$url" ]; then
        checks abuse "$url" 1048576 4
        check "SIGTERM: it exits" stop
else
        not_ok "the abuse server starts"
fi

# ---- admission and clients that leave ----
SERVE_ENV=SBX_TRACE=1 serve admit 127.0.0.1:0 -j 1 --http-queue 3 --http-client-queue 2
if [ -n "$url" ]; then
        checks admission "$url"
        checks gone "$url"
        check "the run of the client that left was killed by a message to its zygote" \
                grep -q "kill sent to the zygote" "$dir/admit.err"
        is "and that zygote served on: one zygote for every run of the -j 1 server" \
                "$(grep -c 'zygote spawned' "$dir/admit.err")" 1
        check "SIGTERM: it exits" stop
        no_leftovers "admission"
else
        not_ok "the admission server starts"
fi

# ---- busy: 504 for verl's client, which retries on it alone ----
serve busy 127.0.0.1:0 -j 1 --http-queue 1 --http-busy-status 504
if [ -n "$url" ]; then
        checks busy "$url"
        check "SIGTERM: it exits" stop
else
        not_ok "the busy server starts"
fi
rc=0
as_user timeout -k 5 60 "$SBX_RUN" --http 127.0.0.1:0 --http-busy-status 500 > "$dir/bad.out" 2>&1 || rc=$?
is "--http-busy-status 500: refused, exit 2" "$rc" 2

# ---- a suite's samples count against the server's runs ----
printf '%s\n' '{"task_id": "HumanEval/0", "completion": "    import time; time.sleep(1.5)\n    return False\n"}' \
        '{"task_id": "HumanEval/0", "completion": "    import time; time.sleep(1.5)\n    return False\n"}' \
        '{"task_id": "HumanEval/0", "completion": "    import time; time.sleep(1.5)\n    return False\n"}' \
        '{"task_id": "HumanEval/0", "completion": "    import time; time.sleep(1.5)\n    return False\n"}' \
        | put "$dir/slow.jsonl"
serve slots 127.0.0.1:0 -j 2
if [ -n "$url" ]; then
        checks suite_slots "$url" "$SBX_DATA/humaneval/HumanEval.jsonl.gz" "$dir/slow.jsonl"
        check "SIGTERM: it exits" stop
        no_leftovers "slots"
else
        not_ok "the suite-slots server starts"
fi

# ---- TCP without a token in a tier weaker than bwrap: refused ----
rc=0
as_user timeout -k 5 60 "$SBX_RUN" --http 127.0.0.1:0 --tier unshare > "$dir/weak.out" 2>&1 || rc=$?
is "TCP without a token in the unshare tier: refused, exit 2" "$rc" 2
check "it says why and what to do" grep -q "without a token in tier unshare.*reads your files.*--http-tokenless-weak-tier" "$dir/weak.out"
serve weak 127.0.0.1:0 --tier unshare --http-tokenless-weak-tier
if [ -n "$url" ]; then
        ok "--http-tokenless-weak-tier: it starts"
        stop
else
        not_ok "--http-tokenless-weak-tier: it starts"
fi
chmod 0755 "$dir"
serve weak-unix "$dir/weak.sock" --tier unshare
if [ -n "$url" ]; then
        ok "a unix socket in the unshare tier needs no token: it starts"
        stop
else
        not_ok "a unix socket in the unshare tier needs no token: it starts"
fi

# ---- tokens ----
token=t0k3n-$(head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n')
printf '%s\n' "$token" | put "$dir/token"
chmod 0600 "$dir/token"
serve token 127.0.0.1:0 --http-token-file "$dir/token"
if [ -n "$url" ]; then
        check "with a token it says so" grep -q "a token required" "$dir/token.err"
        checks token "$url" "$token"
        stop
else
        not_ok "the token server starts"
fi
rc=0
as_user timeout -k 5 60 "$SBX_RUN" --http 0.0.0.0:0 > "$dir/open.out" 2>&1 || rc=$?
is "0.0.0.0 without a token: refused, exit 2" "$rc" 2
check "it says a token is needed" grep -q "not a loopback address, so a token is needed" "$dir/open.out"
chmod 0644 "$dir/token"
rc=0
as_user timeout -k 5 60 "$SBX_RUN" --http 0.0.0.0:0 --http-token-file "$dir/token" > "$dir/open.out" 2>&1 || rc=$?
is "a token file others may read: refused, exit 2" "$rc" 2
check "it says chmod 600" grep -q "chmod 600" "$dir/open.out"
rc=0
as_user timeout -k 5 60 "$SBX_RUN" --http 127.0.0.1:0 --http-queue 0 > "$dir/bad.out" 2>&1 || rc=$?
is "a bad option value: exit 2" "$rc" 2

# ---- a unix socket: its owner's alone ----
chmod 0755 "$dir"
serve unix "$dir/sbx.sock"
if [ -n "$url" ]; then
        is "the socket is mode 0600" "$(stat -c %a "$dir/sbx.sock")" 600
        out=$(as_user curl -s --unix-socket "$dir/sbx.sock" -X POST http://x/run_code \
                -d '{"code":"print(5)","language":"python"}')
        check "its owner runs code through it" grep -q '"stdout":"5\\n"' <<<"$out"
        rc=0
        as_other curl -s --unix-socket "$dir/sbx.sock" http://x/health > /dev/null 2>&1 || rc=$?
        is "another user cannot connect (curl exit 7)" "$rc" 7
        stop
        check "the socket is removed when it stops" test ! -e "$dir/sbx.sock"
else
        not_ok "the unix socket server starts"
fi

# ---- shutdown: the run in flight answered, the queue answered 503 ----
serve drain 127.0.0.1:0 -j 1
if [ -n "$url" ]; then
        for n in run queued; do : > "$dir/$n.json"; chown "$SBX_TEST_USER:" "$dir/$n.json"; done
        as_user curl -s -o "$dir/run.json" -w '%{http_code}' -X POST "$url/run_code" \
                -d '{"code":"import time; time.sleep(2); print(\"done\")","language":"python"}' > "$dir/run.code" &
        sleep 1
        as_user curl -s -o "$dir/queued.json" -w '%{http_code}' -X POST "$url/run_code" \
                -d '{"code":"print(1)","language":"python"}' > "$dir/queued.code" &
        sleep 0.5
        check "SIGTERM while a run is in flight: it exits" stop
        wait
        is "the run in flight was answered 200" "$(cat "$dir/run.code")" 200
        check "with its result" grep -q '"stdout":"done\\n"' "$dir/run.json"
        is "the queued request was answered 503" "$(cat "$dir/queued.code")" 503
        rc=0
        curl -s -m 5 "$url/health" > /dev/null || rc=$?
        is "nothing listens afterwards (curl exit 7)" "$rc" 7
        no_leftovers "drain"
else
        not_ok "the drain server starts"
fi

# a second SIGTERM: the runs in flight are answered at once and killed,
# warm (a message to the run's zygote) and cold alike, and the server exits
# at once
for mode in warm cold; do
        extra=(); [ "$mode" = cold ] && extra=(--cold)
        serve "kill-$mode" 127.0.0.1:0 -j 1 "${extra[@]}"
        if [ -z "$url" ]; then
                not_ok "the $mode kill server starts"
                continue
        fi
        : > "$dir/long.json"; chown "$SBX_TEST_USER:" "$dir/long.json"
        as_user curl -s -o "$dir/long.json" -X POST "$url/run_code" \
                -d '{"code":"import time; time.sleep(60)","language":"python","run_timeout":8}' &
        curl_pid=$!
        sleep 2
        kill -TERM "$srv_pid"; sleep 0.3
        start=$(date +%s%N)
        kill -TERM "$srv_pid"
        wait "$curl_pid"
        took=$((($(date +%s%N) - start) / 1000000))
        check "$mode: a second SIGTERM answers the run in flight at once (${took} ms)" test "$took" -lt 5000
        if grep -q '"status":"SandboxError".*shutting down' "$dir/long.json"; then
                ok "$mode: the killed run was answered SandboxError"
        else
                not_ok "$mode: the killed run was answered SandboxError"
                diag "answer: $(head -c 600 "$dir/long.json")" "server: $(tail -5 "$dir/kill-$mode.err")"
        fi
        start=$(date +%s)
        check "$mode: then it exits" stop
        check "$mode: at once ($(($(date +%s) - start)) s)" test $(($(date +%s) - start)) -lt 5
        no_leftovers "kill-$mode"
done

done_testing
