#!/bin/bash
# rlimits (cpu, as, fsize, nproc, nofile, core 0): given ones are applied,
# missing ones come from helper.conf, ones above its ceilings are refused.
. "$(dirname "$0")/../lib/lib.sh"
require_test_root
new_workspace

put "$W/limits.py" <<'PY'
import os, resource as r
for name in ('CPU', 'AS', 'FSIZE', 'NPROC', 'NOFILE', 'CORE'):
    soft, hard = r.getrlimit(getattr(r, 'RLIMIT_' + name))
    print(name, soft, hard)
st = os.statvfs('/tmp')
print('TMPFS', st.f_blocks * st.f_frsize)
PY
soft() { awk -v k="$1" '$1 == k { print $2 }' "$T/out"; }
hard() { awk -v k="$1" '$1 == k { print $3 }' "$T/out"; }

hrun --workdir "$W" --cpu 7 --memory 300M --nproc 33 --fsize 1M --nofile 64 \
        --tmpfs-size 10M -- /usr/bin/python3 -I "$W/limits.py"
[ "$rc" -eq 0 ] || show_run
is "--cpu 7 sets RLIMIT_CPU" "$(soft CPU)" 7
is "--memory 300M sets RLIMIT_AS" "$(soft AS)" $((300 << 20))
is "--fsize 1M sets RLIMIT_FSIZE" "$(soft FSIZE)" $((1 << 20))
is "--nproc 33 sets RLIMIT_NPROC" "$(soft NPROC)" 33
is "--nofile 64 sets RLIMIT_NOFILE" "$(soft NOFILE)" 64
is "RLIMIT_CORE is 0 (soft)" "$(soft CORE)" 0
is "RLIMIT_CORE is 0 (hard: cannot be raised)" "$(hard CORE)" 0
is "hard RLIMIT_AS cannot be raised above --memory" "$(hard AS)" $((300 << 20))
is "hard RLIMIT_NOFILE cannot be raised above --nofile" "$(hard NOFILE)" 64
is "--tmpfs-size 10M caps /tmp" "$(soft TMPFS)" $((10 << 20))

# The test helper.conf (tests/lib/setup-root.sh) has values no built-in
# default would have: cpu 17, memory 1.5G, nproc 77, fsize 50M, nofile 200,
# tmpfs 40M.
hrun --workdir "$W" -- /usr/bin/python3 -I "$W/limits.py"
[ "$rc" -eq 0 ] || show_run
is "default RLIMIT_CPU from helper.conf" "$(soft CPU)" 17
is "default RLIMIT_AS from helper.conf" "$(soft AS)" 1610612736
is "default RLIMIT_FSIZE from helper.conf" "$(soft FSIZE)" 52428800
is "default RLIMIT_NPROC from helper.conf" "$(soft NPROC)" 77
is "default RLIMIT_NOFILE from helper.conf" "$(soft NOFILE)" 200
is "default /tmp size from helper.conf" "$(soft TMPFS)" 41943040
is "RLIMIT_CORE is 0 by default" "$(soft CORE) $(hard CORE)" "0 0"

# Ceilings: max_timeout 120, max_cpu 60, max_memory 8G, max_nproc 1024,
# max_fsize 1G, max_nofile 4096, max_tmpfs_size 1G.
put "$W/mark.sh" <<SH
: > "$W/ran"
SH
mark=(/bin/sh "$W/mark.sh")
refused "--timeout above max_timeout refused" --workdir "$W" --timeout 121 -- "${mark[@]}"
refused "--cpu above max_cpu refused" --workdir "$W" --cpu 61 -- "${mark[@]}"
refused "--memory above max_memory refused" --workdir "$W" --memory 9G -- "${mark[@]}"
refused "--nproc above max_nproc refused" --workdir "$W" --nproc 1025 -- "${mark[@]}"
refused "--fsize above max_fsize refused" --workdir "$W" --fsize 2G -- "${mark[@]}"
refused "--nofile above max_nofile refused" --workdir "$W" --nofile 4097 -- "${mark[@]}"
refused "--tmpfs-size above max_tmpfs_size refused" --workdir "$W" --tmpfs-size 2G -- "${mark[@]}"
refused "--memory none refused when max_memory is set" --workdir "$W" --memory none -- "${mark[@]}"
# Values that wrap or are not numbers must not turn into "unlimited".
refused "--nproc -1 refused" --workdir "$W" --nproc -1 -- "${mark[@]}"
refused "--memory 18446744073709551617 refused" --workdir "$W" --memory 18446744073709551617 -- "${mark[@]}"
refused "--fsize 16777216T refused" --workdir "$W" --fsize 16777216T -- "${mark[@]}"
refused "--cpu abc refused" --workdir "$W" --cpu abc -- "${mark[@]}"
refused "--timeout 0 refused" --workdir "$W" --timeout 0 -- "${mark[@]}"
refused "--nofile 12x refused" --workdir "$W" --nofile 12x -- "${mark[@]}"
refused "unknown option refused" --workdir "$W" --no-such-option -- "${mark[@]}"
refused "missing -- refused" --workdir "$W" "${mark[@]}"
refused "empty program refused" --workdir "$W" --
# At the ceiling is fine.
hrun --workdir "$W" --nproc 1024 --nofile 4096 -- "${mark[@]}"
if [ "$rc" -eq 0 ] && [ -e "$W/ran" ]; then ok "limits at the ceilings are accepted"; else
        not_ok "limits at the ceilings are accepted"; show_run; fi
done_testing
