#!/bin/bash
# sbx-helper --zygote runs sbx's own zygote and nothing else: PYTHON -I -B
# -c SOURCE, PYTHON absolute, SOURCE byte-equal to the built-in one; no
# workdir. The zygote keeps exactly CAP_SYS_ADMIN, CAP_NET_ADMIN and
# CAP_SETPCAP (all five sets but for the bounding set's others) in a user
# namespace of its own, as the caller (uid and gid mapped to themselves),
# with no_new_privs and without the seccomp filter; those capabilities do
# nothing outside it (no mount, no lo, no setns, no host file, no /proc/sys
# write). Where the caller may not create user namespaces, --zygote is
# refused (exit 3), never run without one.
. "$(dirname "$0")/../lib/lib.sh"
. "$(dirname "$0")/../hardened/hardened.sh"
HX_SRC=$(cd "$(dirname "$0")/../hardened" && pwd)/harden-exec.c
hardened_setup          # require_test_root, root, and harden-exec for the no-userns host
new_workspace

PY=/usr/bin/python3
uid=$(id -u "$SBX_TEST_USER") gid=$(id -g "$SBX_TEST_USER")
ZYGOTE_CAPS=0000000000201100    # CAP_SYS_ADMIN (21), CAP_NET_ADMIN (12), CAP_SETPCAP (8)
# read_text VAR FILE: the file byte for byte in VAR ($(cat) drops trailing newlines).
read_text() { local s; s=$(cat "$2"; printf x); printf -v "$1" '%s' "${s%x}"; }
# The source the installed helper has built in (frontend/warm/zygote/, joined when it was built).
read_text ZSRC "$SBX_ZYGOTE_PY"
[ -n "$ZSRC" ] || { not_ok "read $SBX_ZYGOTE_PY"; done_testing; }
# one_of TESTNAME GOT WANT...: ok when GOT is one of the WANTs.
one_of() {
        local d=$1 got=$2 w; shift 2
        for w in "$@"; do [ "$got" = "$w" ] && { ok "$d ($got)"; return; }; done
        not_ok "$d"; diag "got '$got', want one of: $*"
}
field() { awk -v f="$1:" '$1 == f { $1 = ""; sub(/^ /, ""); print }' "$T/out"; }

# Can the test user make a user namespace here at all? CI's hosts can: there
# a "no" fails the tests that need one, elsewhere it skips them, saying so.
HOST_USERNS=yes
as_user unshare --user /bin/true 2>/dev/null || HOST_USERNS=no
needs_userns() {
        [ "$HOST_USERNS" = yes ] && return 0
        if [ "${CI:-}" = true ]; then not_ok "$1 (this CI host refuses unprivileged user namespaces)"
        else ok "$1 # SKIP this host refuses unprivileged user namespaces (unshare --user fails)"; fi
        return 1
}

# zrefused DESCRIPTION HELPER-ARGS...: exit 3, "sbx-helper: " and the
# refusal on stderr, a setup-error status line saying --zygote, nothing run.
zrefused() {
        local d=$1; shift
        hrun "$@"
        if [ "$rc" -eq 3 ] && grep -q '^sbx-helper: .*--zygote' "$T/err" && [ ! -s "$T/out" ] &&
           [ "$(jfield status)" = setup-error ] && jfield message | grep -q -- '--zygote'; then
                ok "$d"; diag "  $(head -n1 "$T/err")"
        else
                not_ok "$d"; show_run
        fi
}

# --- only the zygote, only so --------------------------------------------------
changed=$(printf '%s' "$ZSRC" | "$HOST_PY" -c 'import sys; s = sys.stdin.read(); i = len(s) // 2; sys.stdout.write(s[:i] + chr(ord(s[i]) ^ 1) + s[i + 1:])'; printf x)
changed=${changed%x}
[ "$changed" != "$ZSRC" ] && [ "${#changed}" -eq "${#ZSRC}" ] || not_ok "the changed source differs by one byte"
zrefused "--zygote with /bin/sh is refused" --zygote -- /bin/sh -c "echo ran"
zrefused "--zygote with /bin/sh -c SOURCE is refused" --zygote -- /bin/sh -c "$ZSRC"
zrefused "--zygote with python -c 'other code' is refused" --zygote -- $PY -I -B -c 'print("ran")'
zrefused "--zygote with the source one byte changed is refused" --zygote -- $PY -I -B -c "$changed"
zrefused "--zygote with the source and one more byte is refused" --zygote -- $PY -I -B -c "$ZSRC "
zrefused "--zygote with the source less its last byte is refused" --zygote -- $PY -I -B -c "${ZSRC%?}"
zrefused "--zygote with an extra argv word is refused" --zygote -- $PY -I -B -c "$ZSRC" extra
zrefused "--zygote without -B is refused" --zygote -- $PY -I -c "$ZSRC"
zrefused "--zygote with -I and -B swapped is refused" --zygote -- $PY -B -I -c "$ZSRC"
zrefused "--zygote with a relative interpreter is refused" --zygote -- python3 -I -B -c "$ZSRC"
zrefused "--zygote with ./python3 is refused" --zygote -- ./python3 -I -B -c "$ZSRC"
zrefused "--zygote with /usr/bin/../bin/python3 is refused" --zygote -- /usr/bin/../bin/python3 -I -B -c "$ZSRC"
zrefused "--zygote with --workdir is refused" --zygote --workdir "$W" -- $PY -I -B -c "$ZSRC"
zrefused "--zygote with --private-workdir is refused" --private-workdir /tmp/zw --zygote -- $PY -I -B -c "$ZSRC"

# --- the real zygote source is accepted and run ----------------------------------
if needs_userns "--zygote runs the built-in zygote source"; then
        hrun --zygote -- $PY -I -B -c "$ZSRC"
        # The placeholder exits 1 with a message, the real zygote at the EOF of
        # its control socket (/dev/null here): either way, not the helper's refusal.
        if [ "$rc" -ne 3 ] && [ "$(jfield status)" != setup-error ] && ! grep -q '^sbx-helper: ' "$T/err"; then
                ok "--zygote runs the built-in zygote source (rc $rc, stderr: $(head -c 80 "$T/err"))"
        else
                not_ok "--zygote runs the built-in zygote source"; show_run
        fi
        is "  in a user namespace of its own (nproc_mode)" "$(jfield nproc_mode)" userns
fi

# --- a zygote's life: max_zygote_life, not max_timeout -------------------------------
# The test config: max_timeout 120, max_zygote_life 1800 (tests/lib/setup-root.sh).
if needs_userns "--zygote runs with --timeout 600 (above max_timeout, within max_zygote_life)"; then
        hrun --zygote --timeout 600 -- $PY -I -B -c "$ZSRC"
        if [ "$rc" -ne 3 ] && [ "$(jfield status)" != setup-error ] && ! grep -q '^sbx-helper: ' "$T/err"; then
                ok "--zygote runs with --timeout 600 (above max_timeout, within max_zygote_life) (rc $rc)"
        else
                not_ok "--zygote runs with --timeout 600 (above max_timeout, within max_zygote_life)"; show_run
        fi
fi
hrun --zygote --timeout 1800.001 -- $PY -I -B -c "$ZSRC"
if [ "$rc" -eq 3 ] && grep -q '^sbx-helper: --timeout is above the ceiling set in .*(max_zygote_life, for --zygote)' "$T/err" &&
   [ ! -s "$T/out" ]; then
        ok "--zygote --timeout above max_zygote_life is refused"; diag "  $(head -n1 "$T/err")"
else
        not_ok "--zygote --timeout above max_zygote_life is refused"; show_run
fi
hrun --timeout 600 -- /bin/echo ran
if [ "$rc" -eq 3 ] && grep -q '^sbx-helper: --timeout is above the ceiling set in ' "$T/err" &&
   ! grep -q max_zygote_life "$T/err" && [ ! -s "$T/out" ]; then
        ok "a run (not --zygote) with --timeout 600, within max_zygote_life, is still refused by max_timeout"
else
        not_ok "a run (not --zygote) with --timeout 600, within max_zygote_life, is still refused by max_timeout"; show_run
fi
HRUN_NOSTATUS=1 hrun --probe
is "--probe says max_zygote_life" "$("$HOST_PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["config"]["max_zygote_life"])' "$T/out" 2>&1)" 1800.0

# --- what the zygote holds: a helper built around a probe ------------------------
# The powers do not depend on the source: a helper of this test's own has
# tests/helper/zygote-probe.py built in, and --zygote runs that, to report.
alt=$(mktemp -d /tmp/sbx-zygote.XXXXXX); chmod 0755 "$alt"
at_exit "rm -rf $alt"
. "$SBX_TEST_ROOT/tests/lib/setup-root.sh"
PROBE=$(dirname "$0")/zygote-probe.py
cp "$PROBE" "$alt/probe.py"
if (ZYGOTE_PY=$alt/probe.py build_helper "$SBX_REPO" "$alt" "$SBX_TEST_ROOT/etc/helper.conf") >"$alt/build.log" 2>&1 &&
   [ -u "$alt/libexec/sbx-helper" ]; then
        ok "a helper with the probe as its zygote builds"
else
        not_ok "a helper with the probe as its zygote builds"; sed 's/^/# /' "$alt/build.log" >&2; done_testing
fi
read_text PSRC "$alt/probe.py"
# A directory of the caller's, bound read-only: a root file and one of theirs.
D=$T/robind; mkdir -m 0755 "$D" && chown "$SBX_TEST_USER:" "$D"
echo root > "$D/root.txt"; chmod 0644 "$D/root.txt"
echo mine > "$D/mine.txt"; chown "$SBX_TEST_USER:" "$D/mine.txt"

zrun() { HRUN_HELPER=$alt/libexec/sbx-helper hrun --ro-bind "$D" --env ZPROBE_DIR="$D" "$@"; }
as_user readlink /proc/self/ns/user >"$T/host_userns"
host_userns=$(cat "$T/host_userns")

HRUN_HELPER=$alt/libexec/sbx-helper zrefused "the probe helper refuses the real zygote's source" --zygote -- $PY -I -B -c "$ZSRC"

# The control: the probe as an ordinary program of the same helper (the cold
# sandbox) reads no capability, the filter in force, /proc/sys bound.
zrun -- $PY -I -B -c "$PSRC"
if [ "$rc" -eq 0 ] && [ "$(field CapEff)" = 0000000000000000 ] && [ "$(field Seccomp)" = 2 ] &&
   [ "$(field proc_sys_bound)" = yes ]; then
        ok "control: the probe run without --zygote has no capability, seccomp 2, /proc/sys bound"
else
        not_ok "control: the probe run without --zygote has no capability, seccomp 2, /proc/sys bound"; show_run
fi

if needs_userns "--zygote runs the probe zygote"; then
        HRUN_STDIN=/proc/self/ns/mnt zrun --zygote -- $PY -I -B -c "$PSRC"
        is "--zygote runs the probe zygote (rc 0, status exited)" "$rc $(jfield status)" "0 exited"
        [ "$rc" -eq 0 ] || show_run
        is "  CapEff is exactly the three" "$(field CapEff)" $ZYGOTE_CAPS
        is "  CapPrm is exactly the three" "$(field CapPrm)" $ZYGOTE_CAPS
        is "  CapInh is exactly the three" "$(field CapInh)" $ZYGOTE_CAPS
        is "  CapAmb is exactly the three (they survived the exec)" "$(field CapAmb)" $ZYGOTE_CAPS
        is "  CapBnd is exactly the three" "$(field CapBnd)" $ZYGOTE_CAPS
        is "  no_new_privs is set" "$(field NoNewPrivs)" 1
        is "  no seccomp filter" "$(field Seccomp)" 0
        is "  uid is the caller's (real, effective, saved, fs)" "$(field Uid)" "$uid $uid $uid $uid"
        is "  gid is the caller's" "$(field Gid)" "$gid $gid $gid $gid"
        inside=$(field ns_user)
        if [ -n "$inside" ] && [ -n "$host_userns" ] && [ "$inside" != "$host_userns" ]; then
                ok "  a user namespace other than the host's ($inside, host $host_userns)"
        else
                not_ok "  a user namespace other than the host's"; diag "inside '$inside' host '$host_userns'"
        fi
        is "  /proc without the read-only binds (the zygote's init adds them)" "$(field proc_sys_bound)" no
        # Useless outside its own namespaces:
        is "  cannot mount in the sandbox's mount namespace" "$(field sandbox_mount)" EPERM
        is "  cannot configure the sandbox's network namespace" "$(field sandbox_lo_up)" EPERM
        is "  cannot set the sandbox's hostname" "$(field sandbox_sethostname)" EPERM
        is "  cannot write /proc/sys (not bound read-only here)" "$(field sandbox_proc_sys_write)" EACCES
        one_of "  cannot write /proc/sysrq-trigger (EACCES; ENOENT without CONFIG_MAGIC_SYSRQ)" \
                "$(field sandbox_sysrq_write)" EACCES ENOENT
        is "  cannot setns to the host's mount namespace (an fd on stdin)" "$(field setns_stdin)" EPERM
        is "  cannot write a file of its own on a read-only bind" "$(field robind_write_own)" EROFS
        # Where it needs them, they work:
        is "  mounts in a mount namespace of its own" "$(field own_mount)" ok
        is "  mounts a fresh /proc in a pid namespace of its own" "$(field own_proc)" ok
        is "  brings up lo in a network namespace of its own" "$(field own_lo_up)" ok
        is "  sets the hostname in a uts namespace of its own" "$(field own_sethostname)" ok
        # ... and there the host's mounts stay locked:
        is "  cannot remount a read-only bind read-write in its own mount namespace" \
                "$(field own_remount_rw)" EPERM
        one_of "  cannot unmount a bind the helper made" "$(field own_umount_robind)" EINVAL EPERM
        one_of "  cannot write a root file under the bind in its own mount namespace" \
                "$(field own_write_root_file)" EACCES EROFS
        is "  cannot write its own file under the bind in its own mount namespace" \
                "$(field own_write_own_file)" EROFS
        is "  the host's files are unchanged" "$(cat "$D/root.txt") $(cat "$D/mine.txt")" "root mine"

        HRUN_STDIN=/proc/self/ns/net zrun --zygote -- $PY -I -B -c "$PSRC"
        is "  cannot setns to the host's network namespace (an fd on stdin)" "$(field setns_stdin)" EPERM
        HRUN_STDIN=/proc/self/ns/user zrun --zygote -- $PY -I -B -c "$PSRC"
        is "  cannot setns to the host's user namespace (an fd on stdin)" "$(field setns_stdin)" EPERM
fi

# --- where user namespaces are refused: --zygote is refused, never run -----------
# tests/hardened/harden-exec: a seccomp filter answering CLONE_NEWUSER with
# EPERM (Docker's profile; with --allow-clone3 a sysctl-like host).
no_userns_refused() {
        local label=$1; shift
        HX_FLAGS="$*"
        SBX_HELPER=$alt/libexec/sbx-helper hx_run --zygote -- $PY -I -B -c "$PSRC"
        if [ "$rc" -eq 3 ] && [ ! -s "$T/out" ] &&
           grep -qx 'sbx-helper: --zygote needs unprivileged user namespaces, refused here: Operation not permitted' "$T/err"; then
                ok "$label: --zygote exits 3 with the message, the zygote never ran"
        else
                not_ok "$label: --zygote exits 3 with the message, the zygote never ran"; show_run
        fi
        is "$label: status setup-error" "$(jfield status)" setup-error
        is "$label: the status message says why" "$(jfield message)" \
                "--zygote needs unprivileged user namespaces, refused here: Operation not permitted"
        SBX_HELPER=$alt/libexec/sbx-helper hx_run -- $PY -I -B -c "$PSRC"
        is "$label: the same program without --zygote still runs (cold)" "$rc $(field CapEff)" "0 0000000000000000"
}
no_userns_refused "no-userns (seccomp, clone3 ENOSYS)" --no-userns
no_userns_refused "no-userns (sysctl-like, clone3 allowed)" --no-userns --allow-clone3
if needs_userns "control: through harden-exec without restrictions --zygote runs"; then
        HX_FLAGS=""
        SBX_HELPER=$alt/libexec/sbx-helper hx_run --zygote -- $PY -I -B -c "$PSRC"
        is "control: through harden-exec without restrictions --zygote runs" "$rc $(field CapAmb)" "0 $ZYGOTE_CAPS"
fi

done_testing
