#!/bin/bash
# A/B of the cold path: this tree's helper and sbx-run against BASE's (a
# source tree, e.g. `git archive main | tar -x -C /tmp/base`), in one
# interleaved timerun: the helper on /bin/true and on `python3 -I -c pass`,
# and whole `sbx-run -q --tier T --file trivial.py`, beside bare python3.
# Wall and CPU medians, and the load before and after. Not run by
# `make bench` (bench/lib).
#   As root: BASE=dir bench/lib/ab.sh; ROUNDS=100, TIERS="helper bwrap".
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
. "$repo/bench/lib/setup.sh"
rounds=${ROUNDS:-100}
tiers=${TIERS:-helper bwrap}
base=${BASE:?BASE=dir: the source tree to compare against}
bench_setup ab sbx-run
make -s -C "$base" HELPER_CONF="$SBX_TEST_ROOT/etc/helper.conf" BUILD="$SBX_TEST_ROOT/build-base" \
        "$SBX_TEST_ROOT/build-base/sbx-helper" "$SBX_TEST_ROOT/build-base/sbx-run" >&2
install -o root -g root -m 4755 "$SBX_TEST_ROOT/build-base/sbx-helper" "$SBX_TEST_ROOT/libexec/sbx-helper-base"
install -m 0755 "$SBX_TEST_ROOT/build-base/sbx-run" "$SBX_TEST_ROOT/bin/sbx-run-base"
work=$SBX_TEST_ROOT/share/ab
mkdir -p "$work" && echo 'x = 1' > "$work/trivial.py"
chown -R "$SBX_TEST_USER:" "$work"
chmod -R a+rX "$work"
spec=$work/ab.spec
{
        printf 'bare-py\t%s\t-I\t-c\tpass\n' "$py"
        for v in base new; do
                h=$SBX_HELPER; r=$SBX_RUN
                [ $v = new ] || { h=$h-base; r=$r-base; }
                printf 'helper-true:%s\t%s\t--workdir\t%s\t--timeout\t10\t--\t/bin/true\n' $v "$h" "$work"
                printf 'helper-py:%s\t%s\t--workdir\t%s\t--timeout\t10\t--\t%s\t-I\t-c\tpass\n' $v "$h" "$work" "$py"
                for t in $tiers; do
                        printf 'run-%s:%s\t/usr/bin/env\tSBX_HELPER=%s\t%s\t-q\t--tier\t%s\t--file\t%s\n' \
                                "$t" $v "$h" "$r" "$t" "$work/trivial.py"
                done
        done
        printf 'bare-file\t%s\t-I\t-B\t%s\n' "$py" "$work/trivial.py"
} > "$spec"
chmod 0644 "$spec"
echo "ab: $rounds rounds, as $SBX_TEST_USER, $(nproc) cpus, load before $(cut -d' ' -f1-3 /proc/loadavg)"
as_bench_user / "$SBX_TEST_ROOT/bin/timerun" "$rounds" "$spec"
echo "ab: load after $(cut -d' ' -f1-3 /proc/loadavg)"
