#!/bin/bash
# A/B of the cold path in one interleaved timerun (round-robin, so drift
# hits every variant alike): this tree's helper and sbx-run ("new") against
# BASE's (a source tree, e.g. `git archive main | tar -x -C /tmp/base`),
# and with STATIC=1 this tree's helper linked static-pie too ("static",
# HELPER_STATIC=1), and isolate when ISOLATE names one: the helper on
# `python3 -I -c pass` and on /bin/true, as time added to bare, and whole
# `sbx-run -q --tier helper --file trivial.py` (and `--tier bwrap`, base
# and new) against bare python3. Wall
# and CPU medians (timerun's CPU: the command and everything it left
# behind, timerun being a subreaper), and the load before and after.
# SUITE=N adds a second interleaved timerun of N rounds: HumanEval's 164
# canonical programs at -j2 through each variant's `sbx-run --suite` (helper
# tier, cold) against suite-bench.sh's bare xargs -P2 loop; with WARM=1 also
# the fork floor (fork_floor.py) and each variant's `--warm` suite.
# Not run by `make bench` (it is in bench/lib).
#   As root: BASE=dir [STATIC=1] [ISOLATE=/opt/isolate/isolate] [SUITE=5] bench/lib/ab.sh
#   ROUNDS=100 (default)
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
. "$repo/bench/lib/setup.sh"
rounds=${ROUNDS:-100}
base=${BASE:?BASE=dir: the source tree to compare against}
isolate=${ISOLATE:-}
bench_setup ab sbx-run
conf=$SBX_TEST_ROOT/etc/helper.conf
make -s -C "$base" HELPER_CONF="$conf" BUILD="$SBX_TEST_ROOT/build-base" \
        "$SBX_TEST_ROOT/build-base/sbx-helper" "$SBX_TEST_ROOT/build-base/sbx-run" >&2
install -o root -g root -m 4755 "$SBX_TEST_ROOT/build-base/sbx-helper" "$SBX_HELPER-base"
install -m 0755 "$SBX_TEST_ROOT/build-base/sbx-run" "$SBX_RUN-base"
variants="base new"
if [ "${STATIC:-0}" = 1 ]; then
        make -s -C "$repo" HELPER_CONF="$conf" HELPER_STATIC=1 BUILD="$SBX_TEST_ROOT/build-static" \
                "$SBX_TEST_ROOT/build-static/sbx-helper" 2>/dev/null >&2
        install -o root -g root -m 4755 "$SBX_TEST_ROOT/build-static/sbx-helper" "$SBX_HELPER-static"
        variants="$variants static"
fi
bench_work ab
user() { as_bench_user / "$@"; }
bench_isolate_box "$isolate"
helper_of() { case $1 in base) echo "$SBX_HELPER-base" ;; new) echo "$SBX_HELPER" ;; *) echo "$SBX_HELPER-$1" ;; esac; }
spec=$work/ab.spec
{
        for prog in "py $py -I -c pass" "true /bin/true"; do
                set -- $prog; what=$1; shift
                (IFS=$'\t'; printf 'bare-%s\t%s\n' "$what" "$*")
                [ -z "$isolate" ] || (IFS=$'\t'; printf 'isolate-%s\t%s\t--box-id=%s\t--run\t--\t%s\n' \
                        "$what" "$isolate" "$box" "$*")
                for v in $variants; do
                        (IFS=$'\t'; printf 'helper-%s:%s\t%s\t--workdir\t%s\t--timeout\t10\t--\t%s\n' \
                                "$what" $v "$(helper_of $v)" "$work" "$*")
                done
        done
        printf 'bare-file\t%s\t-I\t-B\t%s\n' "$py" "$work/trivial.py"
        for v in $variants; do
                r=$SBX_RUN; [ $v != base ] || r=$SBX_RUN-base
                printf 'run-helper:%s\t/usr/bin/env\tSBX_HELPER=%s\t%s\t-q\t--tier\thelper\t--file\t%s\n' \
                        $v "$(helper_of $v)" "$r" "$work/trivial.py"
        done
        for v in $variants; do
                [ $v != static ] || continue
                r=$SBX_RUN; [ $v != base ] || r=$SBX_RUN-base
                printf 'run-bwrap:%s\t%s\t-q\t--tier\tbwrap\t--file\t%s\n' $v "$r" "$work/trivial.py"
        done
} > "$spec"
chmod 0644 "$spec"
echo "ab: $rounds rounds, as $SBX_TEST_USER, $(uname -r), $(nproc) cpus, load before $(cut -d' ' -f1-3 /proc/loadavg)"
out=$(user "$SBX_TEST_ROOT/bin/timerun" "$rounds" "$spec" 2> >(grep -v '^OK (' >&2))
echo "ab: load after $(cut -d' ' -f1-3 /proc/loadavg)"
if [ "${SUITE:-0}" -gt 0 ]; then
        humaneval_programs "$work"
        {
                printf 'bare-loop\t/bin/sh\t-c\tcd %s && ls programs/*.py | xargs -P 2 -n 1 timeout 3 %s > /dev/null\n' "$work" "$py"
                for v in $variants; do
                        r=$SBX_RUN; [ $v != base ] || r=$SBX_RUN-base
                        printf 'suite:%s\t/usr/bin/env\tSBX_HELPER=%s\t%s\t--tier\thelper\t--suite\thumaneval\t--problems\t%s\t--canonical\t-j\t2\t--cold\t--out\t%s\t--no-progress\t--json\n' \
                                $v "$(helper_of $v)" "$r" "$work/HumanEval.jsonl.gz" "$work/suite-$v.jsonl"
                done
                # The warm path too: the fork floor, each variant's --warm.
                [ "${WARM:-0}" = 1 ] && install -m 0644 "$repo/bench/lib/fork_floor.py" "$work/" &&
                printf 'floor\t/bin/sh\t-c\tcd %s && %s fork_floor.py 2 programs/*.py > /dev/null\n' "$work" "$py"
                for v in $variants; do
                        [ "${WARM:-0}" = 1 ] && [ $v != static ] || continue
                        r=$SBX_RUN; [ $v != base ] || r=$SBX_RUN-base
                        printf 'warm:%s\t/usr/bin/env\tSBX_HELPER=%s\t%s\t--tier\thelper\t--suite\thumaneval\t--problems\t%s\t--canonical\t-j\t2\t--warm\t--out\t%s\t--no-progress\t--json\n' \
                                $v "$(helper_of $v)" "$r" "$work/HumanEval.jsonl.gz" "$work/warm-$v.jsonl"
                done
        } > "$work/suite.spec"
        chmod 0644 "$work/suite.spec"
        echo "ab: suite, $SUITE rounds, load before $(cut -d' ' -f1-3 /proc/loadavg)"
        user "$SBX_TEST_ROOT/bin/timerun" "$SUITE" "$work/suite.spec"
        echo "ab: suite, load after $(cut -d' ' -f1-3 /proc/loadavg)"
fi
# added to the bare run of the same program (ms), and sbx-run's ratio to bare-file
awk 'NR == 1 { next }
{ name[NR] = $1; med[$1] = $2; cpu[$1] = $7; order[++n] = $1 }
END {
        printf "%-18s %9s %9s %8s %9s %7s %7s\n", "variant", "median_ms", "added_ms", "cpu_ms", "added_cpu", "ratio", "cpu_x"
        for (i = 1; i <= n; i++) {
                v = order[i]; b = v ~ /^run-|^bare-file/ ? "bare-file" : v ~ /-py/ ? "bare-py" : "bare-true"
                printf "%-18s %9.3f %9.3f %8.3f %9.3f %6.2fx %6.2fx\n", v, med[v], med[v] - med[b],
                       cpu[v], cpu[v] - cpu[b], med[v] / med[b], cpu[v] / cpu[b]
        }
}' <<<"$out"
