#!/bin/bash
# A compiled sample meets the same walls as a Python one (issue 32): the
# escape payloads written in C with raw system calls
# (tests/escape/payloads/native.c, built here with the host's cc) run
# through sbx-run in each strong tier, helper and bwrap: no new namespace,
# no ptrace (of its own child, of itself, of a process of the same user on
# the host), no write outside the workdir, no way back to the host's
# network, memory and fork bombs contained. Each probe runs outside the
# sandbox first, as the same user, to show that it can succeed there.
. "$(dirname "$0")/../lib/lib.sh"
require_test_root
new_workspace
CC=${CC:-cc}
home=$(getent passwd "$SBX_TEST_USER" | cut -d: -f6)
marker=sbx-native-$$-$RANDOM

# The compiler is a build dependency: its absence fails, it is not skipped.
if ! "$CC" -O2 -o "$T/native" "$(dirname "$0")/payloads/native.c" 2>"$T/cc.err"; then
        not_ok "tests/escape/payloads/native.c builds with $CC"; diag "$(head -c 600 "$T/cc.err")"
        done_testing
fi
install -o "$SBX_TEST_USER" -m 0755 "$T/native" "$W/native"
N=$W/native

# sbx TIER SECONDS [sbx-run options] -- ARGV: runs sbx-run as the test user
# under an outer timeout; sets rc, $T/run.json (its JSON) and $T/out (the
# program's stdout).
sbx() {
        local tier=$1 secs=$2; shift 2
        rc=0
        hostile "$secs" setpriv --reuid="$SBX_TEST_USER" --regid="$SBX_TEST_USER" --init-groups -- \
                env -i PATH=/usr/bin:/bin HOME="$home" SBX_HELPER="$SBX_HELPER" \
                "$SBX_RUN" -q --tier "$tier" --json --workdir "$W" "$@" \
                >"$T/run.json" 2>"$T/err" </dev/null || rc=$?
        jq -r '.stdout // ""' "$T/run.json" >"$T/out" 2>/dev/null || : >"$T/out"
}
field() { jq -r ".$1 // empty" "$T/run.json" 2>/dev/null; }
# sbxc TIER SECONDS WORD...: native.c as a sample sbx builds itself (sbx-run
# --file, compiled in the sandbox, then run), its words on stdin; sets rc,
# $T/run.json and $T/out as sbx does.
install -o "$SBX_TEST_USER" -m 0644 "$(dirname "$0")/payloads/native.c" "$T/native.c"
sbxc() {
        local tier=$1 secs=$2; shift 2
        echo "$*" | put "$T/args"
        rc=0
        hostile "$secs" setpriv --reuid="$SBX_TEST_USER" --regid="$SBX_TEST_USER" --init-groups -- \
                env -i PATH=/usr/bin:/bin HOME="$home" SBX_HELPER="$SBX_HELPER" SBX_CACHE="$T/cache-$tier" \
                "$SBX_RUN" -q --tier "$tier" --json --stdin "$T/args" --file "$T/native.c" \
                >"$T/run.json" 2>"$T/err" </dev/null || rc=$?
        jq -r '.stdout // ""' "$T/run.json" >"$T/out" 2>/dev/null || : >"$T/out"
}
show() { diag "rc=$rc" "stdout: $(head -c 600 "$T/out")" "stderr: $(head -c 300 "$T/err")" \
                "run: $(jq -c 'del(.stdout)' "$T/run.json" 2>/dev/null | head -c 400)"; }
outside() { as_user "$N" "$@" >"$T/outside" 2>&1; diag "outside: $(tr '\n' ' ' <"$T/outside")"; }
# lines_none TEXT WORD FILE: ok when FILE has lines and none ends in WORD
lines_none() {
        if [ -s "$3" ] && ! grep -q ": $2\$" "$3"; then ok "$1"; else not_ok "$1"; show; fi
}

# A process of the same user on the host, for the ptrace and signal probes.
# (Its output away from prove's pipe, which it would otherwise hold open.)
as_user /bin/sleep "300.$$" >/dev/null 2>&1 </dev/null &
sleep 0.3
target=$(pgrep -u "$SBX_TEST_USER" -f "^/bin/sleep 300\.$$\$" -n)
at_exit "kill -KILL $target 2>/dev/null"
host_listener "$marker" "$T/listener"
host_ip=$(hostname -I 2>/dev/null | awk '{ print $1 }')

# ---- outside: each probe can succeed there ----
outside newns
check "sanity: outside, a user namespace can be made" grep -q '^unshare-user: OK$' "$T/outside"
outside ptrace "$target"
check "sanity: outside, its own child can be traced" grep -q '^attach-child: ATTACHED$' "$T/outside"
check "sanity: outside, the host process can be signalled" grep -q '^signal-host: OK$' "$T/outside"
outside write "$marker" "$T" /var/tmp /dev/shm
is "sanity: outside, files can be written beside the workdir, in /var/tmp, /dev/shm" \
        "$(grep -c ': WROTE$' "$T/outside")" 3
rm -f "$T/$marker" "/var/tmp/$marker" "/dev/shm/$marker"
for _ in 1 2 3; do     # under load a connect can time out
        outside connect "$port" "$marker" && grep -q '^tcp-loopback: CONNECTED' "$T/outside" && break
done
check "sanity: outside, the host's listener is reachable" grep -q '^tcp-loopback: CONNECTED' "$T/outside"
check "sanity: outside, the abstract socket is reachable" grep -q '^abstract-unix: CONNECTED' "$T/outside"
: >"$T/listener"

tier_works() {
        as_user env SBX_HELPER="$SBX_HELPER" "$SBX_RUN" -q --tier "$1" --workdir "$W" -- /bin/true \
                >/dev/null 2>&1
}

for tier in helper bwrap; do
        if ! tier_works $tier; then
                # the helper tier is what this test is for: it never skips
                [ $tier = helper ] && { not_ok "helper: the tier works"; continue; }
                ok "# SKIP $tier: the tier does not work here"; continue
        fi
        sbx $tier 30 -- "$N" newns
        lines_none "$tier: no new namespace of any kind (unshare, clone)" OK "$T/out"
        is "$tier: all nine namespace probes ran" "$(grep -c ': ' "$T/out")" 9 || show

        sbx $tier 30 -- "$N" ptrace "$target"
        lines_none "$tier: no ptrace of its child, itself or the host" ATTACHED "$T/out"
        check_fails "$tier: the host process cannot be signalled" grep -q '^signal-host: OK$' "$T/out"
        check_fails "$tier: the host process's memory cannot be read" grep -q '^read-host: OK$' "$T/out"
        is "$tier: all five ptrace probes ran" "$(grep -c ': ' "$T/out")" 5 || show

        # The system is read-only; /tmp, /dev/shm and the home (and the
        # workdir's parents, made in the tier's /tmp) are the run's own
        # tmpfs or absent: a write there must not reach the host.
        private=("$T" "$home" /tmp /var/tmp /dev/shm)
        sbx $tier 30 -- "$N" write "$marker" / /usr /etc "${private[@]}"
        for d in / /usr /etc; do
                check_fails "$tier: no write to $d" grep -q "^$d: WROTE\$" "$T/out"
        done
        is "$tier: all eight write probes ran" "$(grep -c ': ' "$T/out")" 8 || show
        for d in "${private[@]}"; do
                check_fails "$tier: nothing written in the host's $d" test -e "$d/$marker"
                rm -f "$d/$marker"
        done

        : >"$T/listener"
        sbx $tier 30 -- "$N" connect "$port" "$marker" $host_ip
        lines_none "$tier: no connection to the host's listener, socket or address" CONNECTED "$T/out"
        check "$tier: the loopback probe ran" grep -q '^tcp-loopback: refused' "$T/out"
        sleep 0.2
        is "$tier: the host listener saw no connection" "$(cat "$T/listener")" ""

        # the same probes in a sample sbx compiles itself (--file native.c)
        sbxc $tier 60 newns
        is "$tier, built by sbx: it was compiled in the sandbox (a cache of its own)" "$(jq -r '.compile.status' "$T/run.json")" \
                compiled || show
        lines_none "$tier, built by sbx: no new namespace of any kind" OK "$T/out"
        is "$tier, built by sbx: all nine namespace probes ran" "$(grep -c ': ' "$T/out")" 9 || show
        sbxc $tier 60 ptrace "$target"
        lines_none "$tier, built by sbx: no ptrace of its child, itself or the host" ATTACHED "$T/out"
        check_fails "$tier, built by sbx: the host process cannot be signalled" grep -q '^signal-host: OK$' "$T/out"
        sbxc $tier 60 write "$marker" / /usr /etc "${private[@]}"
        is "$tier, built by sbx: all eight write probes ran, none to /, /usr or /etc" \
                "$(grep -c ': ' "$T/out")/$(grep -cE '^(/|/usr|/etc): WROTE$' "$T/out")" 8/0 || show
        for d in "${private[@]}"; do
                check_fails "$tier, built by sbx: nothing written in the host's $d" test -e "$d/$marker"
                rm -f "$d/$marker"
        done

        sbx $tier 60 --memory 256M --timeout 20 -- "$N" membomb
        mb=$(grep -o 'after [0-9]*' "$T/out" | grep -o '[0-9]*')
        if [ "$(field returncode)" = 42 ] && [ -n "$mb" ] && [ "$mb" -lt 256 ]; then
                ok "$tier: memory bomb stopped by --memory 256M ($(head -n1 "$T/out"))"
        else
                not_ok "$tier: memory bomb stopped by --memory 256M"; show
        fi

        : >"$W/count"; chown "$SBX_TEST_USER:" "$W/count"
        start=$(date +%s)
        sbx $tier 60 --timeout 3 -- "$N" forkbomb "$W/count" "$marker"
        took=$(( $(date +%s) - start ))
        is "$tier: fork bomb: status timeout" "$(field status)" timeout || show
        check "$tier: fork bomb: the run ended (took ${took}s)" test "$took" -le 15
        n=$(cat "$W/count")
        diag "$tier: fork bomb got ${n:-?} forks"
        if [ $tier = helper ]; then     # the helper's per-run nproc (helper.conf)
                if [ -n "$n" ] && [ "$n" -lt 1000 ]; then ok "helper: fork bomb capped by nproc ($n)"
                else not_ok "helper: fork bomb capped by nproc"; show; fi
        fi
        sleep 0.5
        is "$tier: fork bomb: no process of it left on the host" "$(user_pids "$marker" | grep -vx "$target" | wc -l)" 0
        check "$tier: fork bomb: the host can still fork as the same user" \
                as_user sh -c 'for i in 1 2 3 4 5; do /bin/true & done; wait'
done
done_testing
