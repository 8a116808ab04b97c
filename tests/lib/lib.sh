# Shared TAP helpers for the integration tests (sourced by tests/*/*.t).
#
# tests/run-integration.sh prepares, as root, a fresh root-owned,
# world-readable directory and exports:
#   SBX_TEST_ROOT        the directory: bin/sbx-run, libexec/sbx-helper
#                        (setuid root, built to read etc/helper.conf here),
#                        etc/helper.conf, data/ (a copy of shared/suites),
#                        tests/ (a copy of this tests/ tree)
#   SBX_HELPER           $SBX_TEST_ROOT/libexec/sbx-helper
#   SBX_RUN              $SBX_TEST_ROOT/bin/sbx-run
#   SBX_TEST_USER        unprivileged user in the helper's allowed group
#   SBX_TEST_OTHER_USER  unprivileged user NOT in the allowed group
#   SBX_TEST_GROUP       the allowed group
#   SBX_DATA             $SBX_TEST_ROOT/data
# Scripts run as root and drop to the test user with as_user.

set -u
_tap_n=0
_tap_failed=0

plan() { echo "1..$1"; }
ok() { _tap_n=$((_tap_n + 1)); echo "ok $_tap_n - $*"; }
not_ok() { _tap_n=$((_tap_n + 1)); _tap_failed=$((_tap_failed + 1)); echo "not ok $_tap_n - $*"; }
diag() { printf '# %s\n' "$@" >&2; }
# skip_all REASON: the whole script is skipped, with the reason printed.
skip_all() { echo "1..0 # SKIP $*"; exit 0; }
# check DESCRIPTION CMD...: ok when CMD exits 0.
check() { local d=$1; shift; if "$@"; then ok "$d"; else not_ok "$d"; fi; }
# check_fails DESCRIPTION CMD...: ok when CMD exits non-zero.
check_fails() { local d=$1; shift; if "$@"; then not_ok "$d"; else ok "$d"; fi; }
done_testing() { echo "1..$_tap_n"; [ "$_tap_failed" -eq 0 ]; exit $?; }

# Every test script needs the prepared root; outside run-integration.sh
# there is nothing to test against, and that is said, not hidden.
require_test_root() {
        [ -n "${SBX_TEST_ROOT:-}" ] && [ -d "$SBX_TEST_ROOT" ] ||
                skip_all "SBX_TEST_ROOT not set: run through tests/run-integration.sh (make check)"
}

# as_user CMD...: runs CMD as the unprivileged test user with a clean
# environment (PATH, HOME, LANG only), from a directory it may enter.
as_user_named() {
        local user=$1; shift
        local home; home=$(getent passwd "$user" | cut -d: -f6)
        (cd / && env -i PATH=/usr/bin:/bin HOME="$home" LANG=C.UTF-8 \
                ${SBX_EXTRA_ENV:-} \
                setpriv --reuid="$user" --regid="$user" --init-groups -- "$@")
}
as_user() { as_user_named "$SBX_TEST_USER" "$@"; }
as_other() { as_user_named "$SBX_TEST_OTHER_USER" "$@"; }

# A fresh scratch dir owned by the test user, removed when the script ends.
user_tmpdir() {
        local d; d=$(mktemp -d /tmp/sbx-t.XXXXXX)
        chown "$SBX_TEST_USER:" "$d"
        _tmpdirs="${_tmpdirs:-} $d"
        trap 'rm -rf ${_tmpdirs:-}' EXIT
        echo "$d"
}

# Outer limits for hostile tests: a regression fails the test instead of
# taking the machine down. hostile SECONDS CMD...
hostile() {
        local secs=$1; shift
        (ulimit -v 8388608; ulimit -u 4096 2>/dev/null || true
         timeout -k 5 "$secs" "$@")
}
