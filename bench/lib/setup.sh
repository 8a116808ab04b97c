# The start every bench script shares (sourced; bench.mk runs only
# bench/*.sh, so this is not run on its own). Needs $repo set.
# bench_setup NAME [sbx-run]: checks for root, builds what is missing, sets
# up the test user and a temp root with the setuid helper
# (tests/lib/setup-root.sh; removed at exit) and installs timerun (and
# sbx-run) there. Sets build, timerun, py and home.
# as_bench_user DIR CMD...: runs CMD in DIR as the test user, clean env.
build=${BUILD:-build}; case $build in /*) ;; *) build=$repo/$build ;; esac
timerun=${TIMERUN:-$build/bench/timerun}; case $timerun in /*) ;; *) timerun=$repo/$timerun ;; esac
py=/usr/bin/python3

bench_setup() {
        local name=$1 want_run=${2:-}
        if [ "$(id -u)" -ne 0 ]; then
                echo "$name: needs root to install the setuid helper in a temp root" >&2
                echo "  (it measures as an unprivileged user): sudo make bench" >&2
                exit 1
        fi
        [ -x "$timerun" ] || make -s -C "$repo" BUILD="$build" "$timerun"
        [ -z "$want_run" ] || [ -x "$build/sbx-run" ] || make -s -C "$repo" BUILD="$build" "$build/sbx-run"
        . "$repo/tests/lib/setup-root.sh"
        trap teardown_root EXIT
        setup_users
        setup_root "$repo"
        install -m 0755 "$timerun" "$SBX_TEST_ROOT/bin/timerun"
        [ -z "$want_run" ] || install -m 0755 "$build/sbx-run" "$SBX_RUN"
        home=$(getent passwd "$SBX_TEST_USER" | cut -d: -f6)
}

as_bench_user() {
        local dir=$1; shift
        (cd "$dir" && env -i PATH=/usr/bin:/bin HOME="$home" SBX_HELPER="$SBX_HELPER" \
                setpriv --reuid="$SBX_TEST_USER" --regid="$SBX_TEST_USER" --init-groups -- "$@")
}
