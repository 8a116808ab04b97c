#!/bin/bash
# Start-up cost of the sandbox: `/usr/bin/python3 -I -c pass` bare, under
# the setuid sbx-helper, under bubblewrap with the same isolation, and under
# `unshare -rn`, interleaved round-robin (so drift hits all alike); median,
# p90, ratio to bare and overhead in ms.
#   As root: sets up the test user and a temp root with a setuid helper
#   (tests/lib/setup-root.sh), measures as that user, removes the root.
#   ROUNDS=200 (default), BUILD=build, TIMERUN=$BUILD/bench/timerun.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-build}; case $build in /*) ;; *) build=$repo/$build ;; esac
timerun=${TIMERUN:-$build/bench/timerun}; case $timerun in /*) ;; *) timerun=$repo/$timerun ;; esac
rounds=${ROUNDS:-200}
py=/usr/bin/python3

if [ "$(id -u)" -ne 0 ]; then
        echo "helper-bench: needs root to install the setuid helper in a temp root" >&2
        echo "  (it measures as an unprivileged user): sudo make bench" >&2
        exit 1
fi
[ -x "$timerun" ] || make -s -C "$repo" BUILD="$build" "$timerun"
. "$repo/tests/lib/setup-root.sh"
trap teardown_root EXIT
setup_users
setup_root "$repo"
install -m 0755 "$timerun" "$SBX_TEST_ROOT/bin/timerun"
home=$(getent passwd "$SBX_TEST_USER" | cut -d: -f6)

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
(cd / && env -i PATH=/usr/bin:/bin HOME="$home" \
        setpriv --reuid="$SBX_TEST_USER" --regid="$SBX_TEST_USER" --init-groups -- \
        "$SBX_TEST_ROOT/bin/timerun" "$rounds" "$spec")
