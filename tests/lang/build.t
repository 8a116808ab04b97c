#!/bin/bash
# A program of another language than Python, through `sbx-run --file`, in
# each strong tier (helper, bwrap), as the test user (issue 32): built in
# the sandbox, then run; a second run of the same source takes the
# artifact from the compile cache. Four ways to fail, each with its own
# verdict or error: a compile error (compile_error, the compiler's
# message, cached), a compiler that runs away (compile_error with the
# limit that stopped it, not cached), a binary that crashes (failed, its
# signal), a missing toolchain (exit 3 before anything runs, naming the
# Debian package); and a memory limit under a runtime's floor (exit 2 with
# the figure, never lifted). Languages whose toolchain is not installed are
# skipped, saying so (a failure with CI=true).
. "$(dirname "$0")/../lib/lib.sh"
require_test_root

T=$(user_tmpdir)
chmod 0755 "$T"
cache=$T/cache          # the user's compile cache for this test alone
src() { put "$T/$1"; chmod 0644 "$T/$1"; }

src hello.cpp <<'EOF'
#include <iostream>
int main() { std::cout << "hello cpp" << std::endl; return 0; }
EOF
src hello.c <<'EOF'
#include <stdio.h>
int main(void) { puts("hello c"); return 0; }
EOF
src Hello.java <<'EOF'
public class Hello {
    public static void main(String[] args) { System.out.println("hello java"); }
}
EOF
src hello.js <<'EOF'
console.log("hello js");
EOF
src hello.go <<'EOF'
package main

import "fmt"

func main() { fmt.Println("hello go") }
EOF
src hello.rs <<'EOF'
fn main() { println!("hello rust"); }
EOF
src bad.cpp <<'EOF'
int main() { return undeclared_name; }
EOF
# exponential expansion: the compiler runs until its time or memory limit
src bomb.cpp <<'EOF'
#define A0 x x x x x x x x x x
#define A1 A0 A0 A0 A0 A0 A0 A0 A0 A0 A0
#define A2 A1 A1 A1 A1 A1 A1 A1 A1 A1 A1
#define A3 A2 A2 A2 A2 A2 A2 A2 A2 A2 A2
#define A4 A3 A3 A3 A3 A3 A3 A3 A3 A3 A3
#define A5 A4 A4 A4 A4 A4 A4 A4 A4 A4 A4
#define A6 A5 A5 A5 A5 A5 A5 A5 A5 A5 A5
#define A7 A6 A6 A6 A6 A6 A6 A6 A6 A6 A6
#define A8 A7 A7 A7 A7 A7 A7 A7 A7 A7 A7
#define A9 A8 A8 A8 A8 A8 A8 A8 A8 A8 A8
template <typename T> struct Bomb { int v[sizeof(T)] = { A9 }; };
int main() { return 0; }
EOF
src crash.cpp <<'EOF'
int main() { volatile int *p = nullptr; return *p; }
EOF

# sbx TIER [sbx-run options] FILE: sbx-run --json as the test user; sets rc,
# $T/out.json and $T/err.
sbx() {
        local tier=$1; shift
        rc=0
        hostile 120 setpriv --reuid="$SBX_TEST_USER" --regid="$SBX_TEST_USER" --init-groups -- \
                env -i PATH=/usr/bin:/bin HOME="$T" SBX_HELPER="$SBX_HELPER" SBX_CACHE="$cache" \
                ${SBX_EXTRA_ENV:-} "$SBX_RUN" -q --tier "$tier" --json "$@" \
                >"$T/out.json" 2>"$T/err" </dev/null || rc=$?
}
field() { jq -r "($1) as \$v | if \$v == null then \"\" else \$v end" "$T/out.json" 2>/dev/null; }
show() { diag "rc=$rc" "stderr: $(head -c 400 "$T/err")" \
                "json: $(jq -c 'del(.stdout, .stderr)' "$T/out.json" 2>/dev/null | head -c 600)"; }
expect() {      # expect DESCRIPTION TEST...: check, with the run shown on failure
        local d=$1; shift
        if "$@"; then ok "$d"; else not_ok "$d"; show; fi
}

for tier in helper bwrap; do
        if [ "$tier" = bwrap ] && ! command -v bwrap >/dev/null; then
                skip "bwrap not installed"; continue
        fi
        rm -rf "$cache"
        hello() {      # hello LANG FILE BUILD TOOL...
                local lang=$1 file=$2 build=$3; shift 3
                have_toolchain "$@" || return 0
                sbx "$tier" --file "$T/$file"
                expect "$tier: $lang: built and run (rc $rc)" \
                        test "$rc" = 0 -a "$(field .stdout)" = "hello $lang"
                expect "$tier: $lang: the result says its language and build" \
                        test "$(field .language)/$(field .compile.status)" = "$lang/$build"
        }
        hello cpp hello.cpp compiled g++
        hello c hello.c compiled gcc
        hello java Hello.java compiled javac java
        hello js hello.js none node
        hello go hello.go compiled go
        hello rust hello.rs compiled rustc
        have_toolchain g++ || continue

        sbx "$tier" --file "$T/hello.cpp"
        expect "$tier: the same source again: from the compile cache" \
                test "$rc" = 0 -a "$(field .compile.status)" = cached
        expect "$tier: ... it ran again" test "$(field .stdout)" = "hello cpp"

        sbx "$tier" --file "$T/bad.cpp"
        expect "$tier: a compile error: rc 1 ($rc), compile_error" \
                test "$rc" = 1 -a "$(field .compile.status)" = compile_error
        expect "$tier: ... with the compiler's message" \
                grep -q "undeclared_name" <<<"$(field .compile.message)"
        expect "$tier: ... its exit status as detail" test "$(field .compile.detail)" = "exit status 1"
        sbx "$tier" --file "$T/bad.cpp"
        expect "$tier: ... cached: the compiler's answer is the same next time" \
                test "$rc" = 1 -a "$(field .compile.cached)" = true -a \
                "$(field .compile.status)" = compile_error

        sbx "$tier" --compile-timeout 3 --file "$T/bomb.cpp"
        expect "$tier: a compiler that runs away: rc 1 ($rc), compile_error" \
                test "$rc" = 1 -a "$(field .compile.status)" = compile_error
        expect "$tier: ... stopped by a limit ($(field .compile.detail): time or memory, whichever first)" \
                grep -Eq '^(wall|timeout|cpu-limit|memory-limit)$' <<<"$(field .compile.detail)"
        sbx "$tier" --compile-timeout 3 --file "$T/bomb.cpp"
        expect "$tier: ... not cached: a limit's answer, not the compiler's" \
                test "$(field .compile.cached)" = false -a "$(field .compile.status)" = compile_error

        sbx "$tier" --file "$T/crash.cpp"
        expect "$tier: a binary that crashes: rc 1 ($rc), failed by signal 11" \
                test "$rc" = 1 -a "$(field .status)" = failed -a "$(field .signal)" = 11
        expect "$tier: ... it was built" test "$(field .compile.status)" = compiled

        if have_toolchain go; then
                sbx "$tier" --memory 256M --file "$T/hello.go"
                expect "$tier: go under its memory floor: refused, rc 2 ($rc)" test "$rc" = 2
                expect "$tier: ... saying the floor" grep -q "go needs --memory 768M" "$T/err"
        fi
        if have_toolchain javac java; then
                sbx "$tier" --memory 1G --file "$T/Hello.java"
                expect "$tier: java at --memory 1G: its heap under the limit, runs (rc $rc)" \
                        test "$rc" = 0 -a "$(field .stdout)" = "hello java"
        fi
done

# --stdin reaches the built program (issue 33's stdin for runs), not its compile
if have_toolchain g++; then
        src echo.cpp <<'EOF2'
#include <iostream>
int main() { std::string w; std::cin >> w; std::cout << "read " << w << std::endl; }
EOF2
        echo word-from-stdin | put "$T/in.txt"
        sbx helper --stdin "$T/in.txt" --file "$T/echo.cpp"
        expect "--stdin FILE: the built program reads it (rc $rc)" \
                test "$rc" = 0 -a "$(field .stdout)" = "read word-from-stdin"
fi

# A binary the user built, run in its workdir as ./prog (sbx-run --workdir
# DIR -- ./prog): the run sees DIR at the same path; ../ is refused.
if have_toolchain gcc; then
        mkdir -p "$T/wd" && chown "$SBX_TEST_USER:" "$T/wd"
        as_user gcc -o "$T/wd/prog" "$T/hello.c"
        rc=0
        out=$(as_user env SBX_HELPER="$SBX_HELPER" "$SBX_RUN" -q --tier helper --workdir "$T/wd" \
                -- ./prog 2>"$T/err") || rc=$?
        expect "--workdir DIR -- ./prog runs DIR's prog (rc $rc)" test "$rc" = 0 -a "$out" = "hello c"
        rc=0
        as_user env SBX_HELPER="$SBX_HELPER" "$SBX_RUN" -q --tier helper --workdir "$T/wd" \
                -- ../wd/prog >/dev/null 2>"$T/err" || rc=$?
        expect "... a path out of the workdir is refused (rc $rc)" \
                test "$rc" = 2 -a -n "$(grep 'not found' "$T/err")"
fi

# A missing toolchain, honestly: sbx's tool path (SBX_TOOL_PATH) without
# g++ in it; sbx-run stops before setting anything up.
mkdir -p "$T/empty"
SBX_EXTRA_ENV="SBX_TOOL_PATH=$T/empty" sbx helper --file "$T/hello.cpp"
expect "a missing toolchain: rc 3 ($rc)" test "$rc" = 3
expect "... naming the tool and the package to install" \
        grep -q "language cpp: no g++ on $T/empty (install its toolchain: apt-get install g++" "$T/err"
expect "... nothing was run" test ! -s "$T/out.json"
sbx helper --language cobol --file "$T/hello.cpp"
expect "an unknown --language: rc 2 ($rc), the known ones listed" \
        test "$rc" = 2 -a -n "$(grep 'cpp, java' "$T/err")"
done_testing
