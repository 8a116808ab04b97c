#!/bin/bash
# rlimits against the caller's (issue 14 item 10): the helper never raises a
# caller's hard limit, it clamps to it (and does not fail: no silent fall
# back to a weaker tier); STACK, MEMLOCK, MSGQUEUE and SIGPENDING are set,
# not inherited.
. "$(dirname "$0")/../lib/lib.sh"
require_test_root
new_workspace

put "$W/limits.py" <<'PY'
import resource as r
for name in ('NPROC', 'NOFILE', 'STACK', 'MEMLOCK', 'MSGQUEUE', 'SIGPENDING'):
    print(name, *r.getrlimit(getattr(r, 'RLIMIT_' + name)))
PY
# wrapper 'ULIMIT COMMANDS': a helper started by a caller with those ulimits.
wrapper() {
        printf '#!/bin/bash\n%s || exit 99\nexec "%s" "$@"\n' "$1" "$SBX_HELPER" > "$T/wrap.sh"
        chmod 0755 "$T/wrap.sh"
}
lim() { awk -v k="$1" '$1 == k { print $2, $3 }' "$T/out"; }

wrapper 'ulimit -u 40'
HRUN_HELPER=$T/wrap.sh hrun --workdir "$W" -- /usr/bin/python3 -I "$W/limits.py"
is "a caller with hard nproc 40 runs in the helper tier" "$rc $(jfield status)" "0 exited"
read -r s h <<< "$(lim NPROC)"
if [ -n "${h:-}" ] && [ "$h" != -1 ] && [ "$h" -le 40 ] && [ "$s" -le 40 ]; then
        ok "nproc stays within the caller's hard 40 ($s $h)"
else
        not_ok "nproc stays within the caller's hard 40 (got ${s:-?} ${h:-?})"; show_run
fi

wrapper 'ulimit -n 64'
HRUN_HELPER=$T/wrap.sh hrun --workdir "$W" -- /usr/bin/python3 -I "$W/limits.py"
is "a caller with hard nofile 64: not raised to the default 200" "$(lim NOFILE)" "64 64"

wrapper 'ulimit -S -s hard && ulimit -S -l hard && ulimit -S -i hard'
HRUN_HELPER=$T/wrap.sh hrun --workdir "$W" -- /usr/bin/python3 -I "$W/limits.py"
is "RLIMIT_STACK is 8 MiB whatever the caller's" "$(lim STACK)" "8388608 8388608"
is "RLIMIT_MEMLOCK is 0" "$(lim MEMLOCK)" "0 0"
is "RLIMIT_MSGQUEUE is 0" "$(lim MSGQUEUE)" "0 0"
is "RLIMIT_SIGPENDING is 256" "$(lim SIGPENDING)" "256 256"
done_testing
