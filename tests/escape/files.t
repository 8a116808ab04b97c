#!/bin/bash
# The caller's files stay out of reach (home, host /tmp) and nothing the
# candidate writes outside its workdir reaches the host.
. "$(dirname "$0")/../lib/lib.sh"
require_test_root
new_workspace
home=$(getent passwd "$SBX_TEST_USER" | cut -d: -f6)
token=SBX-SECRET-$$-$RANDOM
echo "$token" > "$home/sbx-secret.txt"; chown "$SBX_TEST_USER:" "$home/sbx-secret.txt"; chmod 0600 "$home/sbx-secret.txt"
host_tmp=$(mktemp /tmp/sbx-secret.XXXXXX); echo "$token" > "$host_tmp"; chmod 0644 "$host_tmp"
marker=sbx-escape-marker-$$
at_exit 'rm -rf "$home/sbx-secret.txt" "$host_tmp" "$home/$marker" "/tmp/$marker" "/dev/shm/$marker"'

as_user /usr/bin/python3 -I "$(payload read_secrets.py)" "$token" "$home/sbx-secret.txt" "$host_tmp" >"$T/outside"
check "sanity: outside the sandbox the user reads both secrets" test "$(grep -c ': LEAKED SBX' "$T/outside")" -eq 2

HRUN_HOSTILE=60 hrun --workdir "$W" --timeout 30 -- /usr/bin/python3 -I "$W/read_secrets.py" \
        "$token" "$home/sbx-secret.txt" "$host_tmp" /etc/shadow /proc/1/environ "/proc/$$/environ"
[ "$rc" -eq 0 ] || show_run
check_fails "the caller's home file is not readable inside" grep -q "^$home/sbx-secret.txt: LEAKED" "$T/out"
check_fails "a world-readable host /tmp file is not visible inside" grep -q "^$host_tmp: LEAKED" "$T/out"
check_fails "/etc/shadow is not readable inside" grep -q "^/etc/shadow: LEAKED" "$T/out"
check_fails "no file with the secret is found walking /tmp /home HOME /dev/shm" grep -q "LEAKED by walk" "$T/out"
check_fails "a host process's environment is not readable via /proc" grep -q "^/proc/$$/environ: LEAKED" "$T/out"

HRUN_HOSTILE=60 hrun --workdir "$W" --timeout 30 -- /usr/bin/python3 -I "$(payload write_outside.py)" \
        "$marker" / /usr /usr/lib /etc /bin /sbin /lib /var /var/tmp /proc /sys /dev \
        /tmp /dev/shm "$home" "$W"
[ "$rc" -eq 0 ] || show_run
wrote=$(grep ': WROTE' "$T/out" | cut -d: -f1 | tr '\n' ' ')
ok_writes=" "
for d in /tmp /dev/shm "$home" "$W"; do
        case " $wrote" in *" $d "*) ok_writes="$ok_writes$d " ;; esac
done
is "writes succeed only in the workdir and the private tmpfs mounts" " $wrote" "$ok_writes"
check "a write to the workdir reaches the host (the one shared directory)" test -e "$W/$marker"
for d in /tmp /dev/shm "$home" / /etc /usr; do
        check_fails "a write to $d inside does not reach the host" test -e "$d/$marker"
done
done_testing
