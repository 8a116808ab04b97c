#!/bin/bash
# Who may use the helper and how it must be installed: callers outside the
# configured group, a config an attacker could have written, a copy without
# setuid and a copy with file capabilities are all refused (exit 3).
. "$(dirname "$0")/../lib/lib.sh"
require_test_root
new_workspace
put "$W/mark.sh" <<SH
: > "$W/ran"
SH
chmod 0777 "$W"   # the other user must be able to leave its mark on failure

HRUN_AS=other refused "a caller outside $SBX_TEST_GROUP is refused" \
        --workdir "$W" -- /bin/sh "$W/mark.sh"
check "the refusal names the group or the permission" grep -Eqi 'group|allowed|permit' "$T/err"
chmod 0755 "$W"

# A copy the user made: not setuid, so it must say so and run nothing.
cp "$SBX_HELPER" "$T/helper-copy" && chown "$SBX_TEST_USER:" "$T/helper-copy"
HRUN_HELPER=$T/helper-copy refused "a copy without setuid is refused" \
        --workdir "$W" -- /bin/sh "$W/mark.sh"
check "  and says it is not installed setuid root" grep -qi setuid "$T/err"

# File capabilities instead of setuid: the helper must not run half-privileged.
if command -v setcap >/dev/null; then
        cp "$SBX_HELPER" "$T/helper-caps" && chmod 0755 "$T/helper-caps"
        if setcap cap_sys_admin+ep "$T/helper-caps"; then
                HRUN_HELPER=$T/helper-caps refused "a copy with file capabilities is refused" \
                        --workdir "$W" -- /bin/sh "$W/mark.sh"
                check "  and names capabilities" grep -qi capabilit "$T/err"
        else
                not_ok "setcap cap_sys_admin+ep failed on $T (filesystem without xattrs?)"
        fi
else
        not_ok "setcap missing (install libcap2-bin): file-capability refusal untested"
fi

# A second helper, built to read its config from a directory this test
# controls, so the config can be made unsafe in each way in turn.
build_alt_helper
good_conf() { write_helper_conf "$SBX_REPO/policy/helper.conf" "$alt/etc/helper.conf" "$SBX_TEST_GROUP"; }
HRUN_HELPER=$alt/libexec/sbx-helper

good_conf
hrun --workdir "$W" -- /bin/sh "$W/mark.sh"
if [ "$rc" -eq 0 ] && [ -e "$W/ran" ]; then ok "the second helper runs with a safe config"; else
        not_ok "the second helper runs with a safe config"; show_run; fi

good_conf; chown "$SBX_TEST_USER" "$alt/etc/helper.conf"
refused "a config owned by the caller is refused" --workdir "$W" -- /bin/sh "$W/mark.sh"
good_conf; chmod 0664 "$alt/etc/helper.conf"
refused "a group-writable config is refused" --workdir "$W" -- /bin/sh "$W/mark.sh"
good_conf; chmod 0646 "$alt/etc/helper.conf"
refused "a world-writable config is refused" --workdir "$W" -- /bin/sh "$W/mark.sh"
rm -f "$alt/etc/helper.conf"
refused "a missing config is refused" --workdir "$W" -- /bin/sh "$W/mark.sh"
good_conf; printf 'this line is not key = value\n' >> "$alt/etc/helper.conf"
n=$(wc -l < "$alt/etc/helper.conf")
refused "a malformed config is refused" --workdir "$W" -- /bin/sh "$W/mark.sh"
check "  and the error names the file and line $n" grep -Eq "helper\.conf.*\b$n\b" "$T/err"
good_conf; printf 'no_such_key = 1\n' >> "$alt/etc/helper.conf"
refused "an unknown config key is refused" --workdir "$W" -- /bin/sh "$W/mark.sh"
good_conf; printf 'allow_network = yes\n' >> "$alt/etc/helper.conf"
refused "allow_network = yes is refused (network is never granted)" --workdir "$W" -- /bin/sh "$W/mark.sh"
good_conf; sed -i "s/^group = .*/group = no-such-group-sbx/" "$alt/etc/helper.conf"
refused "a config naming a missing group lets nobody in" --workdir "$W" -- /bin/sh "$W/mark.sh"

# `make install` (as root, the group present) installs the helper
# root:GROUP 4750: a non-member cannot even execute it. (The test root
# above keeps 4755, so that the refusal of non-members is tested too.)
stage=$(mktemp -d /tmp/sbx-stage.XXXXXX); chmod 0755 "$stage"; at_exit "rm -rf $stage"
cp -a "$alt/build" "$stage/build"
make -s -C "$SBX_REPO" BUILD="$stage/build" HELPER_CONF="$alt/etc/helper.conf" \
        HELPER_PATH=/libexec/sbx-helper DESTDIR="$stage/root" SBX_GROUP="$SBX_TEST_GROUP" \
        install-helper >"$stage/log" 2>&1 || diag "make install-helper: $(tail -n 5 "$stage/log")"
h=$stage/root/libexec/sbx-helper
is "make install: the helper is root:$SBX_TEST_GROUP mode 4750" \
        "$(stat -c %a:%U:%G "$h" 2>&1)" "4750:root:$SBX_TEST_GROUP"
# through a shell: setpriv's own exec of it was seen to succeed here
rc=0; as_other sh -c 'exec "$0" --version' "$h" >"$T/out" 2>"$T/err" || rc=$?
if [ "$rc" -ne 0 ] && grep -qi "permission denied" "$T/err"; then
        ok "make install: a non-member cannot execute the helper"
else
        not_ok "make install: a non-member cannot execute the helper"; diag "rc=$rc $(head -c 300 "$T/err")"
fi
rc=0; as_user sh -c 'exec "$0" --version' "$h" >"$T/out" 2>"$T/err" || rc=$?
is "make install: a member can execute it" "$rc" 0
done_testing
