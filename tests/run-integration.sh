#!/bin/bash
# Runs the integration tests (tests/{helper,escape,frontend,suites}/*.t) as
# root against a setuid helper installed in a fresh temp root; the tests drop
# to an unprivileged user themselves (tests/lib/lib.sh).
#   TESTS="tests/helper/status.t ..."  run only these
#   BUILD=dir        the build tree holding sbx-run (default: build)
#   SBX_SHARED=dir   where suites/ lives (default: ../shared beside the repo)
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

started_pids=""
cleanup() {
        local pid
        for pid in $started_pids; do kill "$pid" 2>/dev/null || true; done
        teardown_root
}
trap cleanup EXIT
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
# a full sandbox set-up and supervision.
valgrind_pass() {
        local vg=(valgrind --quiet --error-exitcode=99 --leak-check=full
                  --errors-for-leak-kinds=definite --trace-children=no)
        local h=$SBX_TEST_ROOT/build/sbx-helper rc=0 what
        local as_caller=(setpriv --ruid="$SBX_TEST_USER" --rgid="$SBX_TEST_USER"
                         --groups="$(getent group "$SBX_TEST_GROUP" | cut -d: -f3)" --)
        command -v valgrind >/dev/null || { echo "run-integration: valgrind missing" >&2; return 1; }
        for what in --version --probe "--timeout 20 -- /bin/true"; do
                rc=0
                # shellcheck disable=SC2086 # $what is a list of options
                (cd / && "${as_caller[@]}" "${vg[@]}" "$h" $what >/dev/null) || rc=$?
                if [ "$rc" -eq 99 ]; then
                        echo "run-integration: valgrind found errors in sbx-helper $what" >&2
                        return 1
                fi
                echo "run-integration: valgrind memcheck clean: sbx-helper $what (rc $rc)" >&2
        done
}
if [ "${SBX_VALGRIND:-1}" = 1 ]; then valgrind_pass; fi

if [ -n "${TESTS:-}" ]; then
        read -r -a selected <<<"$TESTS"
else
        selected=()
        for area in helper escape frontend suites; do
                compgen -G "$repo/tests/$area/*.t" >/dev/null && selected+=("tests/$area")
        done
fi
[ "${#selected[@]}" -gt 0 ] || { echo "run-integration: no tests found" >&2; exit 1; }
cd "$SBX_TEST_ROOT"
prove ${PROVE_FLAGS:--v} "${selected[@]}"
