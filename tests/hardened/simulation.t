#!/bin/bash
# The hardened-host simulation is what the other tests/hardened scripts take
# it for: under harden-exec --no-userns the test user cannot create a user
# namespace (EPERM, clone3 ENOSYS) yet a setuid-root exec still gains root;
# under --no-cap-sys-admin a setuid-root exec comes up without CAP_SYS_ADMIN.
# Each claim is checked against the control (the same tool, no restriction),
# so a simulation that restricts nothing, or everything, fails here.
. "$(dirname "$0")/../lib/lib.sh"
. "$(dirname "$0")/hardened.sh"
hardened_setup

CAP_SYS_ADMIN_BIT=21
CAP_CHOWN_BIT=0

# probe FLAGS NAME: try-syscall's errno name for one syscall, as the test user.
probe() {
        local flags=$1 name=$2
        HX_FLAGS=$flags as_user "$SBX_TRY_SYSCALL" "$name" 2>/dev/null | sed 's/^[^:]*: //'
}

# status_field FLAGS FIELD: FIELD of /proc/self/status of a setuid-root
# process started by the test user.
status_field() {
        HX_FLAGS=$1 as_user "$HX_DIR/suid-cat" /proc/self/status |
                awk -v f="$2:" '$1 == f { print $2 }'
}
cap_bit() { echo $(( (16#$1 >> $2) & 1 )); }

if [ -z "${SBX_TRY_SYSCALL:-}" ] || [ ! -x "$SBX_TRY_SYSCALL" ]; then
        not_ok "SBX_TRY_SYSCALL (tests/escape/try-syscall) is installed"
        done_testing
fi
# A setuid-root copy of cat, in our root-owned 0755 dir, to look at what a
# setuid exec gets under each restriction.
install -o root -g root -m 4755 /bin/cat "$HX_DIR/suid-cat"

# The control first: the same tool with no restriction lets the user in.
ctl=$(probe "" unshare)
if [ "$ctl" = ok ]; then
        ok "control: the test user can create a user namespace"
else
        ok "control: the test user can create a user namespace # SKIP this host already refuses ($ctl): the simulation cannot be told from the host"
fi
is "no-userns: unshare(CLONE_NEWUSER) fails with EPERM" "$(probe --no-userns unshare)" EPERM
is "no-userns: clone(CLONE_NEWUSER) fails with EPERM" "$(probe --no-userns clone-newuser)" EPERM
is "control: clone3 reaches the kernel (EFAULT on NULL args)" "$(probe "" clone3)" EFAULT
is "no-userns: clone3 fails with ENOSYS (glibc falls back to clone)" \
        "$(probe --no-userns clone3)" ENOSYS
is "no-userns --allow-clone3: clone3 reaches the kernel" "$(probe "--no-userns --allow-clone3" clone3)" EFAULT
is "no-userns --allow-clone3: unshare(CLONE_NEWUSER) still fails with EPERM" \
        "$(probe "--no-userns --allow-clone3" unshare)" EPERM
ctl_i386=$(probe "" i386)
if [ "$ctl_i386" = ok ]; then
        is "no-userns: a 32-bit syscall is not killed by the simulation" "$(probe --no-userns i386)" ok
else
        ok "no-userns: a 32-bit syscall is not killed by the simulation # SKIP this kernel runs no i386 code (control: '${ctl_i386:-killed}')"
fi

out=$(HX_FLAGS=--no-userns as_user bwrap --ro-bind / / /bin/true 2>&1)
case $out in
*"No permissions to create new namespace"*|*"user namespace"*|*"Operation not permitted"*)
        ok "no-userns: bwrap cannot set up its sandbox" ;;
*) not_ok "no-userns: bwrap cannot set up its sandbox"; diag "bwrap said: $out" ;;
esac
unshare_root_tier() { HX_FLAGS=$1 as_user unshare -rn /bin/true 2>/dev/null; }
check_fails "no-userns: unshare -rn (the unshare-root tier) fails" unshare_root_tier --no-userns

# The filter must survive the setuid exec and must not set no_new_privs:
# otherwise the helper would not be root, or not be under the simulation.
is "no-userns: a setuid-root exec is still root (CapEff has CAP_CHOWN)" \
        "$(cap_bit "$(status_field --no-userns CapEff)" $CAP_CHOWN_BIT)" 1
is "no-userns: the setuid exec runs under the filter (Seccomp: 2)" \
        "$(status_field --no-userns Seccomp)" 2
is "no-userns: no_new_privs is not set" "$(status_field --no-userns NoNewPrivs)" 0
is "control: a setuid-root exec has CAP_SYS_ADMIN" \
        "$(cap_bit "$(status_field "" CapEff)" $CAP_SYS_ADMIN_BIT)" 1
is "no-cap-sys-admin: a setuid-root exec lacks CAP_SYS_ADMIN" \
        "$(cap_bit "$(status_field --no-cap-sys-admin CapEff)" $CAP_SYS_ADMIN_BIT)" 0
is "no-cap-sys-admin: ... but keeps the other capabilities (CAP_CHOWN)" \
        "$(cap_bit "$(status_field --no-cap-sys-admin CapEff)" $CAP_CHOWN_BIT)" 1
is "no-cap-sys-admin: user namespaces still work (Docker's seccomp is not simulated)" \
        "$(probe --no-cap-sys-admin unshare)" "$ctl"

# Root itself stays restricted when it keeps uid 0 (tests re-run whole
# scripts this way): neither a user namespace nor CAP_SYS_ADMIN comes back.
as_root_hx() { "$HARDEN_EXEC" "$@" 2>/dev/null; }
check_fails "no-userns as root: root cannot create a user namespace either" \
        as_root_hx --no-userns -- unshare --user /bin/true
check "no-userns as root: other namespaces still work (only CLONE_NEWUSER is denied)" \
        as_root_hx --no-userns -- unshare --mount --pid --fork --net --ipc --uts /bin/true
check_fails "no-cap-sys-admin as root: root cannot mount" \
        as_root_hx --no-cap-sys-admin -- unshare --mount /bin/true
check_fails "harden-exec refuses to run as a non-root user" \
        setpriv --reuid="$SBX_TEST_USER" --regid="$SBX_TEST_USER" --clear-groups -- \
        "$HARDEN_EXEC" --no-userns -- /bin/true 2>/dev/null

done_testing
