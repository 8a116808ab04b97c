#!/bin/bash
# Start-up cost of the sandbox: `/usr/bin/python3 -I -c pass` bare, under
# the setuid sbx-helper, under bubblewrap with the same isolation, and under
# `unshare -rn`, interleaved round-robin (so drift hits all alike); median,
# p90, ratio to bare and overhead in ms; then /bin/true bare and under the
# helper, for what a process alone costs on this host.
#   As root: sets up the test user and a temp root with a setuid helper
#   (tests/lib/setup-root.sh), measures as that user, removes the root.
#   ROUNDS=200 (default), BUILD=build, TIMERUN=$BUILD/bench/timerun.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
. "$repo/bench/lib/setup.sh"
rounds=${ROUNDS:-200}
bench_setup helper-bench

# bwrap with what the helper gives: all namespaces, read-only system, fresh
# /proc and /dev, private /tmp and home; the host's merged-/usr symlinks.
bwrap_args=(/usr/bin/bwrap --unshare-all --die-with-parent --new-session
            --ro-bind /usr /usr --ro-bind /etc /etc)
for l in /bin /sbin /lib /lib32 /lib64 /libx32; do
        if [ -L "$l" ]; then bwrap_args+=(--symlink "$(readlink "$l")" "$l")
        elif [ -d "$l" ]; then bwrap_args+=(--ro-bind "$l" "$l"); fi
done
bwrap_args+=(--proc /proc --dev /dev --tmpfs /tmp --tmpfs "$home" --)

spec=$SBX_TEST_ROOT/etc/bench.spec
{
        printf 'bare\t%s\t-I\t-c\tpass\n' "$py"
        printf 'sbx-helper\t%s\t--\t%s\t-I\t-c\tpass\n' "$SBX_HELPER" "$py"
        if [ -x /usr/bin/bwrap ]; then
                (IFS=$'\t'; printf 'bwrap\t%s\t%s\t-I\t-c\tpass\n' "${bwrap_args[*]}" "$py")
        fi
        printf 'unshare-rn\t/usr/bin/unshare\t-rn\t%s\t-I\t-c\tpass\n' "$py"
} > "$spec"
chmod 0644 "$spec"

echo "helper-bench: $rounds rounds, as $SBX_TEST_USER, $(uname -r), $(nproc) cpus"
as_bench_user / "$SBX_TEST_ROOT/bin/timerun" "$rounds" "$spec"

# What one process costs on this host, whatever the sandbox: /bin/true bare
# and under the helper (fork + exec + wait; the helper adds its own exec and
# two forks: init and the candidate).
spec_true=$SBX_TEST_ROOT/etc/bench-true.spec
printf 'bare-true\t/bin/true\nsbx-helper-true\t%s\t--\t/bin/true\n' "$SBX_HELPER" > "$spec_true"
chmod 0644 "$spec_true"
echo "helper-bench: the same for /bin/true, $rounds rounds"
as_bench_user / "$SBX_TEST_ROOT/bin/timerun" "$rounds" "$spec_true"
