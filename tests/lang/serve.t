#!/bin/bash
# --serve run requests with a "language" (issue 32), as the test user in the
# helper tier: a C++ program built and run, a compile error answered as
# one (compile.status compile_error, cached the second time), Python still
# the default, JavaScript with stdin, an unknown language and a missing
# toolchain answered with an error line while the server goes on. Then
# the HTTP server's /run_code with SandboxFusion's language names: C++ built
# and run (compile_result and run_result), a compile error (Failed, the
# compiler's message, no run_result), nodejs (no compile step), a language
# sbx does not run (SandboxError naming the ones it does), and files with a
# compiled program refused.
. "$(dirname "$0")/../lib/lib.sh"
require_test_root
have_toolchain g++ node || { done_testing; }

T=$(user_tmpdir)
chmod 0755 "$T"
mkdir -p "$T/empty"
reqs=$T/requests.jsonl
jq -nc '{id: 1, type: "run", language: "cpp", code: "#include <cstdio>\nint main() { puts(\"hi cpp\"); }\n"}' > "$reqs"
jq -nc '{id: 2, type: "run", language: "c++", code: "int main() { return x; }"}' >> "$reqs"
jq -nc '{id: 3, type: "run", code: "print(6 * 7)"}' >> "$reqs"
jq -nc '{id: 4, type: "run", language: "cobol", code: "x"}' >> "$reqs"
jq -nc '{id: 5, type: "run", language: "js", stdin: "abc", code: "process.stdin.on(\"data\", d => console.log(\"got \" + d))"}' >> "$reqs"
chmod 0644 "$reqs"

serve() {      # serve [ENV=VALUE...]: answers in $T/out.jsonl
        hostile 300 setpriv --reuid="$SBX_TEST_USER" --regid="$SBX_TEST_USER" --init-groups -- \
                env -i PATH=/usr/bin:/bin HOME="$T" SBX_HELPER="$SBX_HELPER" SBX_CACHE="$T/cache" "$@" \
                "$SBX_RUN" -q --tier helper --serve -j 2 <"$reqs" >"$T/out.jsonl" 2>"$T/err"
}
answer() { jq -c "select(.id == $1)" "$T/out.jsonl"; }
is_() { local d=$1 got=$2 want=$3; if [ "$got" = "$want" ]; then ok "$d"; else not_ok "$d"; diag "got: $got" "want: $want"; fi; }

serve
check "the server ran to EOF (rc $?)" test -s "$T/out.jsonl"
is_ "cpp: built and run" "$(answer 1 | jq -r '[.status, (.stdout | rtrimstr("\n")), .language, .compile.status] | @tsv')" \
        "$(printf 'ok\thi cpp\tcpp\tcompiled')"
is_ "a compile error: compile_error, with the message" \
        "$(answer 2 | jq -r '[.compile.status, (.compile.message | test("x"))] | @tsv')" "$(printf 'compile_error\ttrue')"
is_ "python is still the default" "$(answer 3 | jq -r '[.status, (.stdout | rtrimstr("\n")), has("compile")] | @tsv')" \
        "$(printf 'ok\t42\tfalse')"
is_ "an unknown language: an error line naming the known ones" \
        "$(answer 4 | jq -r '[.type, (.error | test("cobol.*python, c, cpp"))] | @tsv')" "$(printf 'error\ttrue')"
is_ "js with stdin" "$(answer 5 | jq -r '[.status, (.stdout | rtrimstr("\n"))] | @tsv')" "$(printf 'ok\tgot abc')"

serve
is_ "again: the compile error from the cache" "$(answer 2 | jq -r '[.compile.status, .compile.cached] | @tsv')" \
        "$(printf 'compile_error\ttrue')"
is_ "again: the program from the cache" "$(answer 1 | jq -r '[(.stdout | rtrimstr("\n")), .compile.status] | @tsv')" \
        "$(printf 'hi cpp\tcached')"

serve SBX_TOOL_PATH="$T/empty"
is_ "a missing toolchain: an error line naming the package" \
        "$(answer 1 | jq -r '[.type, (.error | test("no g\\+\\+ on .*apt-get install g\\+\\+"))] | @tsv')" \
        "$(printf 'error\ttrue')"
is_ "... and the server went on" "$(answer 3 | jq -r .stdout)" "42"

# /run_code through sbx-run --http (the shared executor, as --serve's)
if ! command -v curl >/dev/null; then
        [ "${CI:-}" != true ] || { not_ok "curl missing (apt-get install curl)"; done_testing; }
        echo "# skip /run_code: curl missing (apt-get install curl)"
        done_testing
fi
: > "$T/http.out"; chown "$SBX_TEST_USER:" "$T/http.out"
as_user env SBX_HELPER="$SBX_HELPER" SBX_CACHE="$T/cache" TMPDIR="$T" \
        "$SBX_RUN" -q --tier helper --http 127.0.0.1:0 -j 2 >"$T/http.out" 2>"$T/http.err" &
for i in $(seq 300); do grep -q '"type":"ready"' "$T/http.out" && break; sleep 0.1; done
url=$(head -1 "$T/http.out" | jq -r .url 2>/dev/null)
pid=$(head -1 "$T/http.out" | jq -r .pid 2>/dev/null)
[ -n "$pid" ] && at_exit "kill -9 $pid 2>/dev/null"
check "the HTTP server started" test -n "$url" || diag "$(cat "$T/http.err")"
run_code() {    # run_code JSON: the answer
        curl -s -m 120 -X POST -H 'Content-Type: application/json' --data-binary "$1" "$url/run_code"
}
a=$(run_code "$(jq -nc '{language: "cpp", code: "#include <cstdio>\nint main() { puts(\"hi cpp\"); }\n"}')")
is_ "/run_code cpp: built and run" \
        "$(jq -r '[.status, .compile_result.status, .compile_result.return_code, .run_result.return_code, (.run_result.stdout | rtrimstr("\n"))] | @tsv' <<<"$a")" \
        "$(printf 'Success\tFinished\t0\t0\thi cpp')" || diag "$a"
a=$(run_code "$(jq -nc '{language: "cpp", code: "int main() { return y; }"}')")
is_ "/run_code cpp, a compile error: Failed, the compiler's message, no run" \
        "$(jq -r '[.status, .compile_result.return_code, (.compile_result.stderr | test("y")), .run_result] | @tsv' <<<"$a")" \
        "$(printf 'Failed\t1\ttrue\t')" || diag "$a"
a=$(run_code "$(jq -nc '{language: "nodejs", code: "console.log(6 * 7)"}')")
is_ "/run_code nodejs: no compile step" \
        "$(jq -r '[.status, .compile_result, (.run_result.stdout | rtrimstr("\n"))] | @tsv' <<<"$a")" \
        "$(printf 'Success\t\t42')" || diag "$a"
a=$(run_code "$(jq -nc '{language: "php", code: "<?php echo 1;"}')")
is_ "/run_code php: SandboxError naming the languages sbx runs" \
        "$(jq -r '[.status, (.message | test("php.*python, cpp, java, nodejs"))] | @tsv' <<<"$a")" \
        "$(printf 'SandboxError\ttrue')" || diag "$a"
a=$(run_code "$(jq -nc '{language: "cpp", code: "int main() {}", files: {"x.txt": "eA=="}}')")
is_ "/run_code cpp with files: refused, saying why" \
        "$(jq -r '[.status, (.message | test("only a Python program"))] | @tsv' <<<"$a")" \
        "$(printf 'SandboxError\ttrue')" || diag "$a"
kill -TERM "$pid" 2>/dev/null
done_testing
