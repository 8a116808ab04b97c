#!/bin/bash
# What each option sbx-run gives bwrap costs, one interleaved timerun:
# `python3 -I -B trivial.py` bare, under compare.sh's bwrap variant (with
# the program bound in), under the bwrap argv sbx-run builds for
# `--tier bwrap --file` (`--print-argv`, its fds given as sbx-run gives
# them: the seccomp program on 3, the json status on 4 (to /dev/null), the
# program on 5), that argv without one option (or group) at a time, and
# the whole `sbx-run -q --tier bwrap --file`. Every variant starts through
# the same `sh -c` that opens the fds, so the differences are bwrap's.
# Wall and CPU medians (timerun's CPU counts what bwrap leaves behind).
# Not run by `make bench` (it is in bench/lib).
#   As root: [ROUNDS=200] bench/lib/bwrap-options.sh
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
. "$repo/bench/lib/setup.sh"
rounds=${ROUNDS:-200}
bench_setup bwrap-options sbx-run
bench_work bwrap-options
[ -x /usr/bin/bwrap ] || { echo "bwrap-options: /usr/bin/bwrap missing" >&2; exit 1; }
make -s -C "$repo" BUILD="$build" "$build/common/seccomp_bpf.o"
cc -I"$repo/common" -I"$build/gen" -o "$work/seccomp-dump" "$repo/bench/lib/seccomp-dump.c" \
        "$build/common/seccomp_bpf.o"
"$work/seccomp-dump" > "$work/seccomp.bpf"
chmod 0644 "$work/seccomp.bpf"
prog=$work/trivial.py
mapfile -t argv < <(as_bench_user / "$SBX_RUN" -q --tier bwrap --print-argv --file "$prog")
[ "${argv[0]}" = /usr/bin/bwrap ] || { echo "bwrap-options: sbx-run's argv: ${argv[*]}" >&2; exit 1; }
opener="exec 3<$work/seccomp.bpf 4>/dev/null 5<$prog; exec \"\$@\""
"$py" - "$opener" "$prog" "$SBX_RUN" "$home" "${argv[@]}" > "$work/options.spec" <<'PY'
import sys
opener, prog, sbx_run, home, argv = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5:]
sh = ["/bin/sh", "-c", opener, "sh"]
cut = argv.index("--")
opts, tail = argv[:cut], argv[cut:]
# (label, option words to find, how many words each group spans)
groups = [("cap-drop", ["--cap-drop"], 2), ("root tmpfs", ["--size", "1048576", "--tmpfs", "/"], 4),
          ("remount-ro /dev", ["--remount-ro", "/dev"], 2), ("/dev/shm tmpfs", None, 4),
          ("seccomp", ["--seccomp"], 2), ("json-status-fd", ["--json-status-fd"], 2),
          ("remount-ro /", ["--remount-ro", "/"], 2)]
def find(words, start=0):
    for i in range(start, len(opts) - len(words) + 1):
        if opts[i:i + len(words)] == words:
            return i
    return -1
rows = [("bare", sh + ["/usr/bin/python3", "-I", "-B", prog])]
cmp = ["/usr/bin/bwrap", "--unshare-all", "--die-with-parent", "--new-session",
       "--ro-bind", "/usr", "/usr", "--ro-bind", "/etc", "/etc"]
for i in range(len(opts) - 2):
    if opts[i] == "--symlink":
        cmp += opts[i:i + 3]
cmp += ["--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp", "--tmpfs", home,
        "--ro-bind", prog, prog, "--", "/usr/bin/python3", "-I", "-B", prog]
rows.append(("compare-bwrap", sh + cmp))
rows.append(("sbx-argv", sh + argv))
for label, words, n in groups:
    i = find(words) if words else find(["--tmpfs", "/dev/shm"]) - 2
    if i < 0:
        continue
    rows.append(("-" + label, sh + opts[:i] + opts[i + n:] + tail))
rows.append(("sbx-run", [sbx_run, "-q", "--tier", "bwrap", "--file", prog]))
for name, a in rows:
    print("\t".join([name.replace(" ", "_")] + a))
PY
chmod 0644 "$work/options.spec"
echo "bwrap-options: $rounds rounds, as $SBX_TEST_USER, $(bwrap --version), load before $(cut -d' ' -f1-3 /proc/loadavg)"
out=$(as_bench_user / "$SBX_TEST_ROOT/bin/timerun" "$rounds" "$work/options.spec")
echo "bwrap-options: load after $(cut -d' ' -f1-3 /proc/loadavg)"
awk 'NR == 1 { printf "%-20s %9s %9s %8s %9s\n", "variant", "median_ms", "vs_argv", "cpu_ms", "vs_argv"; next }
{ name[NR] = $1; med[$1] = $2; cpu[$1] = $7; order[++n] = $1 }
END {
        for (i = 1; i <= n; i++) {
                v = order[i]
                printf "%-20s %9.3f %+9.3f %8.3f %+9.3f\n", v, med[v], med[v] - med["sbx-argv"],
                       cpu[v], cpu[v] - cpu["sbx-argv"]
        }
}' <<<"$out"
