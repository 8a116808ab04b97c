# shellcheck shell=bash
# HumanEval-X's canonical solutions through sbx-run --suite humaneval-x-LANG
# (issue 32), as the test user, in the helper and bwrap tiers, each with a
# cold compile cache of its own, then again with it warm: every language
# passes as the plain, unsandboxed loop does (bench/humanevalx-plain.py),
# with the same failing task ids, which are data or environment bugs
# (docs/languages.md): JavaScript/112 and /155 (wrong canonical
# solutions), Rust/50 (rand 0.4's API against Debian's 0.8). Go/95 passes
# or fails by Go's random map order, upstream too: it is left out of the
# comparison, whatever its verdict. The second run takes every build from
# the cache and gives the same verdicts.
#   TASKS: a list of task numbers (the quick subset), or "" (all 164)
#   JOBS: -j of the runs
. "$(dirname "$0")/../lib/lib.sh"
require_test_root

EXPECTED_FAILING="JavaScript/112 JavaScript/155 Rust/50"
NONDETERMINISTIC="Go/95"
T=$(user_tmpdir)
chmod 0755 "$T"

# tools each language needs (lib.sh have_toolchain)
tools_of() {
        case $1 in
        cpp) echo g++ ;; java) echo javac java ;; js) echo node ;;
        go) echo go gcc ;; rust) echo rustc cargo ;; python) echo python3 ;;
        esac
}
prefix_of() {
        case $1 in
        cpp) echo CPP ;; java) echo Java ;; js) echo JavaScript ;;
        go) echo Go ;; rust) echo Rust ;; python) echo Python ;;
        esac
}

# suite TIER LANG CACHE OUT: one canonical run; sets rc
suite() {
        local tier=$1 lang=$2 cache=$3 out=$4 tasks="" n p
        p=$(prefix_of "$lang")
        for n in ${TASKS:-}; do tasks="${tasks:+$tasks,}$p/$n"; done
        rc=0
        hostile 1800 setpriv --reuid="$SBX_TEST_USER" --regid="$SBX_TEST_USER" --init-groups -- \
                env -i PATH=/usr/bin:/bin HOME="$T" SBX_HELPER="$SBX_HELPER" SBX_CACHE="$cache" \
                SBX_SUITES_DIR="$SBX_DATA" "$SBX_RUN" -q --tier "$tier" --suite "humaneval-x-$lang" \
                --canonical ${tasks:+--tasks "$tasks" --allow-partial} -j "${JOBS:-2}" \
                --out "$out" --summary "$out.summary" >"$T/stdout" 2>"$T/err" </dev/null || rc=$?
}

# failing OUT: the failing task ids, sorted, Go/95 left out
failing() {
        jq -r 'select(.passed | not) | .task_id' "$1" | grep -vx "$NONDETERMINISTIC" | sort | tr '\n' ' '
}
expected_failing() {    # expected_failing LANG: those of the expected in the chosen tasks
        local p id n
        p=$(prefix_of "$1")
        for id in $EXPECTED_FAILING; do
                [ "${id%%/*}" = "$p" ] || continue
                if [ -n "${TASKS:-}" ]; then
                        for n in $TASKS; do [ "$id" = "$p/$n" ] && echo "$id"; done
                else
                        echo "$id"
                fi
        done | sort | tr '\n' ' '
}

run_language() {        # run_language TIER LANG
        local tier=$1 lang=$2 cache=$T/cache-$1-$2 cold=$T/$1-$2-cold.jsonl warm=$T/$1-$2-warm.jsonl
        # shellcheck disable=SC2046 # the tools are words
        have_toolchain $(tools_of "$lang") || return 0
        suite "$tier" "$lang" "$cache" "$cold"
        check "$tier $lang, cold cache: the suite ran to its end (rc $rc)" test "$rc" = 0 ||
                diag "$(tail -c 600 "$T/err")"
        local got want
        got=$(failing "$cold") want=$(expected_failing "$lang")
        check "$tier $lang, cold: failing ids as the plain loop's [${want% }]" test "$got" = "$want" ||
                diag "got [${got% }]" "$(jq -c 'select(.passed | not) | [.task_id, .result[:160]]' "$cold" | head -5)"
        check "$tier $lang, cold: every result in the tier asked" \
                test -z "$(jq -r "select(.tier != \"$tier\") | .task_id" "$cold")"
        case $lang in python|js) return 0 ;; esac       # nothing compiled
        check "$tier $lang, cold: nothing came from the cache" \
                test -z "$(jq -r 'select(.compile.cached == true) | .task_id' "$cold")"
        suite "$tier" "$lang" "$cache" "$warm"
        check "$tier $lang, warm cache: ran to its end (rc $rc)" test "$rc" = 0
        check "$tier $lang, warm: every build from the cache" \
                test -z "$(jq -r 'select(.compile.cached != true) | .task_id' "$warm")"
        check "$tier $lang, warm: the same verdicts" \
                test "$(jq -r 'select(.task_id != "Go/95") | [.task_id, .passed] | @tsv' "$cold" | sort)" = \
                     "$(jq -r 'select(.task_id != "Go/95") | [.task_id, .passed] | @tsv' "$warm" | sort)"
}

humanevalx_main() {
        local tier lang
        for tier in helper bwrap; do
                if [ "$tier" = bwrap ] && ! command -v bwrap >/dev/null; then
                        skip "bwrap not installed"; continue
                fi
                for lang in ${LANGS:-cpp java js go rust python}; do
                        run_language "$tier" "$lang"
                done
        done
        done_testing
}
