#!/bin/bash
# Runs the integration tests (tests/{helper,escape,frontend,lang,suites,...}/*.t) as
# root against a setuid helper installed in a fresh temp root; the tests drop
# to an unprivileged user themselves (tests/lib/lib.sh).
#   TESTS="tests/helper/status.t ..."  run only these
#   BUILD=dir        the build tree holding sbx-run (default: build)
#   SBX_TEST_DATA=dir  the data sbx does not ship (ClassEval, model outputs;
#                    default ../shared/suites beside the repo; SBX_SHARED=dir
#                    is the older spelling of SBX_TEST_DATA=dir/suites)
#   PROVE_JOBS=n     run n tests at a time (default 1), but SERIAL_TESTS
#                    (a list of .t) alone, first
#   SBX_ALLOW_NONROOT=1  let a non-root run pass without the helper tests
#   SBX_VALGRIND=0   skip the valgrind pass over the helper
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-build}
case $build in /*) ;; *) build=$repo/$build ;; esac

if [ "$(id -u)" -ne 0 ]; then
        echo "run-integration: the helper tests need root: they install a setuid" >&2
        echo "  helper in a temp root and create test users. Run: sudo make check" >&2
        [ "${SBX_ALLOW_NONROOT:-0}" = 1 ] || exit 1
        echo "run-integration: SBX_ALLOW_NONROOT=1: NOT run, NOT passed" >&2
        exit 0
fi
command -v prove >/dev/null || { echo "run-integration: prove (perl) missing" >&2; exit 1; }

. "$repo/tests/lib/setup-root.sh"

# Each test script stops what it started (tests/lib/lib.sh at_exit); what
# is left here is the temp root.
trap teardown_root EXIT
trap 'exit 130' INT TERM

setup_users
setup_root "$repo"
setup_root_data "$repo" "$build"
make -s -C "$repo" BUILD="$SBX_TEST_ROOT/build" \
        "$SBX_TEST_ROOT/build/tests/escape/try-syscall" >&2 ||
        setup_die "building tests/escape/try-syscall failed"
install -m 0755 "$SBX_TEST_ROOT/build/tests/escape/try-syscall" "$SBX_TEST_ROOT/share/"
export SBX_TRY_SYSCALL=$SBX_TEST_ROOT/share/try-syscall
echo "run-integration: root $SBX_TEST_ROOT, user $SBX_TEST_USER" >&2

# valgrind: a setuid binary cannot run under valgrind as a user, so root runs
# the (identical, non-setuid) build with the ids a setuid exec would give:
# real uid/gid the test user's, effective uid 0 (setpriv --ruid), the
# allowed group as supplementary group. That covers config parse, probe and
# a full sandbox set-up and supervision. The memcheck tool is started
# directly: the valgrind launcher resets the effective uid to the real one.
valgrind_tool() {
        local arch d
        case $(uname -m) in x86_64) arch=amd64 ;; aarch64) arch=arm64 ;; *) arch=$(uname -m) ;; esac
        for d in /usr/libexec/valgrind /usr/lib/x86_64-linux-gnu/valgrind /usr/lib/valgrind; do
                [ -x "$d/memcheck-$arch-linux" ] && { echo "$d/memcheck-$arch-linux"; return; }
        done
}
valgrind_pass() {
        local tool; tool=$(valgrind_tool)
        [ -n "$tool" ] || { echo "run-integration: valgrind's memcheck tool not found" >&2; return 1; }
        local vg=(env VALGRIND_LIB="$(dirname "$tool")" VALGRIND_LAUNCHER=/usr/bin/valgrind "$tool"
                  --quiet --error-exitcode=99 --leak-check=full
                  --errors-for-leak-kinds=definite --trace-children=no
                  --suppressions="$repo/tests/lib/valgrind.supp")
        local h=$SBX_TEST_ROOT/build/sbx-helper rc=0 what
        local as_caller=(setpriv --ruid="$SBX_TEST_USER" --rgid="$SBX_TEST_USER"
                         --groups="$(getent group "$SBX_TEST_GROUP" | cut -d: -f3)" --)
        local log=$SBX_TEST_ROOT/valgrind.log
        local memcheck_error='^==[0-9]+== (Invalid|Conditional jump|Use of uninitialised|Syscall param|Mismatched|Source and destination|Argument|.*definitely lost)'
        for what in --version --probe "--timeout 20 -- /bin/true"; do
                rc=0
                # shellcheck disable=SC2086 # $what is a list of options
                (cd / && "${as_caller[@]}" "${vg[@]}" "$h" $what >/dev/null 2>"$log") || rc=$?
                # valgrind (3.19) lacks the new mount API (fsopen, 430): a run
                # gets through the checks, the clone into the namespaces and
                # init's start, and stops at the first new mount. Init dies
                # with status 3 whatever memcheck found there: the log says.
                if [ "$rc" -eq 3 ] && grep -q 'unhandled amd64-linux syscall: 430' "$log" &&
                   grep -q '^sbx-helper: fsopen' "$log" && ! grep -Eq "$memcheck_error" "$log"; then
                        echo "run-integration: valgrind memcheck clean: sbx-helper $what" \
                             "(set-up up to the first new-API mount, which valgrind cannot emulate)" >&2
                        continue
                fi
                if [ "$rc" -ne 0 ]; then
                        cat "$log" >&2
                        echo "run-integration: sbx-helper $what under valgrind: rc $rc (99: memcheck errors)" >&2
                        return 1
                fi
                echo "run-integration: valgrind memcheck clean: sbx-helper $what" >&2
        done
}
if [ "${SBX_VALGRIND:-1}" = 1 ]; then valgrind_pass; fi

if [ -n "${TESTS:-}" ]; then
        read -r -a selected <<<"$TESTS"
else
        selected=()
        for area in helper escape frontend lang warm suites python hardened slurm; do
                compgen -G "$repo/tests/$area/*.t" >/dev/null && selected+=("tests/$area")
        done
fi
[ "${#selected[@]}" -gt 0 ] || { echo "run-integration: no tests found" >&2; exit 1; }
cd "$SBX_TEST_ROOT"
# With PROVE_JOBS > 1, a rules file for TAP::Harness: the serial tests one
# after the other, alone, then all the rest in parallel.
jobs=${PROVE_JOBS:-1}
if [ "$jobs" -gt 1 ]; then
        {
                echo "---"; echo "seq:"; echo "  - seq:"
                for t in ${SERIAL_TESTS:-}; do echo "      - '$t'"; done
                echo "  - par: '**'"
        } > "$SBX_TEST_ROOT/testrules.yml"
        export HARNESS_RULESFILE=$SBX_TEST_ROOT/testrules.yml
fi
# shellcheck disable=SC2086 # PROVE_FLAGS is a list of options
prove ${PROVE_FLAGS:--v --timer} -j"$jobs" "${selected[@]}"
