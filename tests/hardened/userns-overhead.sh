#!/bin/bash
# The helper's start-up overhead with and without user namespaces: the median
# of `/usr/bin/python3 -I -c pass` bare and under the setuid helper, each
# both plain and under harden-exec --no-userns (so the helper falls back from
# nproc_mode userns), all four interleaved round-robin by bench/timerun. Every
# arm goes through harden-exec (as root, dropping to the test user), so the
# tool's own exec cost is the same in all four and cancels out of
# "helper - bare" in each condition.
# Wall time suffers on a loaded machine; a second pass reports the CPU time
# (user + sys, whole tree, from wait4) of the same four, which suffers less.
#   As root. ROUNDS=200 (default), BUILD=build. Uses an existing test root
#   when SBX_TEST_ROOT is set (make check's), else sets up its own.
#   NOUSERNS="--no-userns --allow-clone3" (default: a host whose sysctl
#   refuses user namespaces; "--no-userns" is Docker's shape, clone3 ENOSYS).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
build=${BUILD:-build}; case $build in /*) ;; *) build=$repo/$build ;; esac
rounds=${ROUNDS:-200}
nouserns=${NOUSERNS:---no-userns --allow-clone3}
py=/usr/bin/python3

if [ "$(id -u)" -ne 0 ]; then
        echo "userns-overhead: needs root (setuid helper in a temp root, harden-exec)" >&2
        exit 1
fi
make -s -C "$repo" BUILD="$build" "$build/bench/timerun"
. "$repo/tests/lib/setup-root.sh"
own_root=no
if [ -z "${SBX_TEST_ROOT:-}" ]; then
        own_root=yes
        trap teardown_root EXIT
        setup_users
        setup_root "$repo"
fi
tmp=$(mktemp -d /tmp/sbx-hx.XXXXXX)
# Only a root we made is ours to remove.
trap 'rm -rf "$tmp"; [ $own_root = no ] || teardown_root' EXIT
chmod 0755 "$tmp"
cc -O2 -Wall -Wextra -Werror -o "$tmp/harden-exec" "$here/harden-exec.c" -lseccomp
wd=$(mktemp -d "$tmp/work.XXXXXX")
chown "$SBX_TEST_USER:" "$wd"

hx=$tmp/harden-exec
u=$SBX_TEST_USER
spec=$tmp/spec
{
        printf 'bare\t%s\t--user\t%s\t--\t%s\t-I\t-c\tpass\n' "$hx" "$u" "$py"
        printf 'helper\t%s\t--user\t%s\t--\t%s\t--workdir\t%s\t--\t%s\t-I\t-c\tpass\n' \
                "$hx" "$u" "$SBX_HELPER" "$wd" "$py"
        nu=$(printf '%s\t' $nouserns)
        printf 'bare-nouserns\t%s\t%s--user\t%s\t--\t%s\t-I\t-c\tpass\n' "$hx" "$nu" "$u" "$py"
        printf 'helper-nouserns\t%s\t%s--user\t%s\t--\t%s\t--workdir\t%s\t--\t%s\t-I\t-c\tpass\n' \
                "$hx" "$nu" "$u" "$SBX_HELPER" "$wd" "$py"
} > "$spec"

# Which nproc mode each condition really got: the numbers mean nothing if the
# fallback did not happen.
for flags in "" "$nouserns"; do
        mode=$(cd / && "$hx" $flags --user "$u" -- "$SBX_HELPER" --status-fd 3 --workdir "$wd" \
                -- /bin/true 3>&1 >/dev/null | "$py" -c 'import json,sys; print(json.loads(sys.stdin.readline())["nproc_mode"])')
        echo "userns-overhead: harden-exec ${flags:-(no restriction)}: nproc_mode $mode"
done

echo "userns-overhead: $rounds rounds each, as $u, $(uname -r), $(nproc) cpus"
(cd / && env -i PATH=/usr/bin:/bin HOME=/ "$build/bench/timerun" "$rounds" "$spec") | tee "$tmp/out"
awk '$1 ~ /^(bare|helper)/ { m[$1] = $2 }
     END {
        printf "userns-overhead: helper over bare, user namespaces available: %.3f ms\n", m["helper"] - m["bare"]
        printf "userns-overhead: helper over bare, no user namespaces:        %.3f ms\n", m["helper-nouserns"] - m["bare-nouserns"]
     }' "$tmp/out"

# CPU time per run, the same four commands interleaved, from wait4's rusage.
"$py" - "$rounds" "$spec" <<'PY'
import os, statistics, sys
rounds, spec = int(sys.argv[1]), sys.argv[2]
cmds = [l.rstrip("\n").split("\t") for l in open(spec) if l.strip()]
cpu = {c[0]: [] for c in cmds}
for _ in range(rounds):
    for name, *argv in cmds:
        pid = os.fork()
        if pid == 0:
            os.chdir("/")
            os.execve(argv[0], argv, {"PATH": "/usr/bin:/bin", "HOME": "/"})
        _, status, ru = os.wait4(pid, 0)
        if status != 0:
            sys.exit("userns-overhead: %s failed (wait status %#x)" % (name, status))
        cpu[name].append((ru.ru_utime + ru.ru_stime) * 1000)
med = {n: statistics.median(v) for n, v in cpu.items()}
print("%-16s %12s" % ("variant", "cpu_median_ms"))
for n in med:
    print("%-16s %12.3f" % (n, med[n]))
print("userns-overhead: helper CPU over bare, user namespaces available: %.3f ms" % (med["helper"] - med["bare"]))
print("userns-overhead: helper CPU over bare, no user namespaces:        %.3f ms" % (med["helper-nouserns"] - med["bare-nouserns"]))
PY
