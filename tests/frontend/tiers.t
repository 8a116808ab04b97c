#!/bin/bash
# Each tier this host offers, forced with --tier, gives the isolation
# DESIGN.md's table promises: network, pid namespace, private /tmp and
# $HOME, seccomp, read-only system, non-root (except unshare-root).
. "$(dirname "$0")/../lib/lib.sh"
require_test_root

sbx() { as_user env SBX_HELPER="$SBX_HELPER" "$SBX_RUN" "$@"; }
dir=$(user_tmpdir)
home=$(getent passwd "$SBX_TEST_USER" | cut -d: -f6)
as_user sh -c "echo secret > $dir/host-marker; touch $home/.sbx-home-marker"

cat > "$dir/facts.py" <<'PY'
import json, os, socket
def seccomp():
    for line in open("/proc/self/status"):
        if line.startswith("Seccomp:"):
            return int(line.split()[1])
def ifaces():
    return sorted(l.split(":")[0].strip() for l in open("/proc/self/net/dev").readlines()[2:])
def can_write(p):
    try:
        open(p, "w").close(); os.unlink(p); return True
    except OSError:
        return False
print(json.dumps({
    "uid": os.getuid(), "ifaces": ifaces(),
    "pids_visible": len([p for p in os.listdir("/proc") if p.isdigit()]),
    "tmp_marker": os.path.exists(os.environ["MARKER"]),
    "home_marker": os.path.exists(os.environ["HOME_MARKER"]),
    "seccomp": seccomp(),
    "usr_writable": can_write("/usr/sbx-probe"),
    "etc_writable": can_write("/etc/sbx-probe"),
}))
PY
chmod 644 "$dir/facts.py"

probe=$(sbx --probe --json)
works() { echo "$probe" | jq -e --arg t "$1" '.tiers[] | select(.tier == $t) | .works' >/dev/null; }
diag "probe: $probe"

for tier in helper bwrap unshare unshare-root rlimit; do
        if ! works "$tier"; then
                why=$(echo "$probe" | jq -r --arg t "$tier" '.tiers[] | select(.tier == $t) | .why')
                if [ "$tier" = helper ] || [ "$tier" = bwrap ]; then
                        # the test root installs a setuid helper and bwrap is a build
                        # dependency: both must work here
                        not_ok "$tier works on this host: $why"
                else
                        ok "# SKIP $tier does not work here: $why"
                fi
                continue
        fi
        out=$(sbx --tier "$tier" -q --json --env MARKER="$dir/host-marker" \
                --env HOME_MARKER="$home/.sbx-home-marker" --file "$dir/facts.py")
        facts=$(echo "$out" | jq -r .stdout)
        check "$tier: result records the tier" test "$(echo "$out" | jq -r .tier)" = "$tier"
        check "$tier: passed" test "$(echo "$out" | jq -r .passed)" = true
        f() { echo "$facts" | jq -r "$1"; }
        # the rlimit tier promises no network isolation: nothing to check there
        [ "$tier" = rlimit ] ||
                check "$tier: no network but loopback" test "$(f '.ifaces|join(",")')" = lo
        case $tier in
        helper|bwrap)
                check "$tier: own pid namespace" test "$(f .pids_visible)" -le 5
                check "$tier: private /tmp" test "$(f .tmp_marker)" = false
                check "$tier: host \$HOME hidden" test "$(f .home_marker)" = false
                check "$tier: seccomp filter installed" test "$(f .seccomp)" = 2
                ;;
        *)
                check "$tier: no pid namespace (documented)" test "$(f .pids_visible)" -gt 5
                check "$tier: host /tmp visible (documented)" test "$(f .tmp_marker)" = true
                ;;
        esac
        check "$tier: /usr read-only" test "$(f .usr_writable)" = false
        check "$tier: /etc read-only" test "$(f .etc_writable)" = false
        if [ "$tier" = unshare-root ]; then
                check "$tier: candidate is root inside (warned)" test "$(f .uid)" = 0
                warn=$(sbx --tier "$tier" --file "$dir/facts.py" 2>&1 >/dev/null)
                check "$tier: warning printed once" test "$(echo "$warn" | grep -c 'runs candidates as root')" = 1
                warn=$(sbx --tier "$tier" -q --file "$dir/facts.py" 2>&1 >/dev/null)
                check_fails "$tier: --quiet silences the warning" grep -q 'as root' <<<"$warn"
        else
                check "$tier: candidate is not root" test "$(f .uid)" != 0
        fi
done
done_testing
