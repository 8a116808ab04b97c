#!/bin/bash
# The candidate sees a fresh root: read-only system dirs, nothing private of
# the host, every mount nosuid (and nodev but /dev), a minimal /dev.
. "$(dirname "$0")/../lib/lib.sh"
require_test_root
new_workspace
home=$(getent passwd "$SBX_TEST_USER" | cut -d: -f6)

put "$W/root.py" <<'PY'
import json, os, stat, sys
home = sys.argv[1]
out = {}
out['hidden'] = [p for p in ('/root', '/srv', '/mnt', '/media', '/run', '/var')
                 if os.path.lexists(p)]
# /home may exist only to hold the caller's (empty, private) home mount.
out['home'] = sorted(os.listdir('/home')) if os.path.isdir('/home') else []
out['home_files'] = sorted(os.listdir(home)) if os.path.isdir(home) else []
writable = []
for d in ('/', '/usr', '/usr/bin', '/etc', '/bin', '/sbin', '/lib', '/lib64', '/proc/sys'):
    try:
        with open(os.path.join(d, 'sbx-write-test'), 'w'):
            writable.append(d)
    except OSError:
        pass
out['writable'] = writable
mounts = {}
for line in open('/proc/self/mountinfo'):
    f = line.split()
    sep = f.index('-')
    opts = set(f[5].split(',')) | set(f[sep + 3].split(','))
    mounts[f[4]] = {'opts': sorted(opts), 'fstype': f[sep + 1]}
out['mounts'] = mounts
out['dev'] = sorted(os.listdir('/dev'))
out['devblock'] = [n for n in out['dev']
                   if stat.S_ISBLK(os.lstat('/dev/' + n).st_mode)]
print(json.dumps(out))
PY
hrun --workdir "$W" -- /usr/bin/python3 -I "$W/root.py" "$home"
[ "$rc" -eq 0 ] || show_run
q() { "$HOST_PY" -c "import json,sys; d=json.load(open('$T/out')); $1" "${@:2}"; }

is "no /root /srv /mnt /media /run /var" "$(q 'print(d["hidden"])')" "[]"
h=$(q 'print(d["home"])')
if [ "$h" = "[]" ] || [ "$h" = "['$(basename "$home")']" ]; then
        ok "/home holds nothing but the caller's own home ($h)"
else
        not_ok "/home holds nothing but the caller's own home"; diag "got $h"
fi
is "the caller's home inside is empty (host files not visible)" \
        "$(q 'print(d["home_files"])')" "[]"
is "no system directory is writable" "$(q 'print(d["writable"])')" "[]"

for m in /usr /etc; do
        o=$(q 'import sys; print(",".join(d["mounts"].get(sys.argv[1], {}).get("opts", [])))' "$m")
        case ",$o," in
        *,ro,*) ok "$m is mounted read-only" ;;
        *) not_ok "$m is mounted read-only"; diag "options: $o" ;;
        esac
done
for m in /bin /sbin /lib /lib64; do
        if [ -L "$m" ]; then
                t=$(q 'print(d["mounts"].get(sys.argv[1], {}).get("fstype", "symlink"))' "$m")
                is "$m is a symlink (merged /usr), not a separate mount" "$t" "symlink"
        fi
done

nosuid_missing=$(q 'print(" ".join(m for m, v in d["mounts"].items() if "nosuid" not in v["opts"]))')
is "every mount is nosuid" "$nosuid_missing" ""
nodev_missing=$(q 'print(" ".join(m for m, v in d["mounts"].items()
                 if "nodev" not in v["opts"] and m != "/dev" and not m.startswith("/dev/")))')
is "every mount but /dev is nodev" "$nodev_missing" ""
is "/tmp is a tmpfs" "$(q 'print(d["mounts"].get("/tmp", {}).get("fstype"))')" "tmpfs"
is "/proc is a proc mount" "$(q 'print(d["mounts"].get("/proc", {}).get("fstype"))')" "proc"
wd=$(q 'import sys; print(",".join(d["mounts"].get(sys.argv[1], {}).get("opts", [])))' "$W")
case ",$wd," in
*,rw,*) ok "the workdir is bound read-write at its own path" ;;
*) not_ok "the workdir is bound read-write at its own path"; diag "options: $wd" ;;
esac
is "/dev has no block devices" "$(q 'print(d["devblock"])')" "[]"
extra=$(q 'print(" ".join(n for n in d["dev"] if n not in
        ("null","zero","full","random","urandom","shm","pts","ptmx","fd","stdin","stdout","stderr","core","mqueue")))')
is "/dev holds only null zero full random urandom (+shm, fd links)" "$extra" ""
for n in null zero full random urandom; do
        check "/dev/$n present" q 'import sys; sys.exit(sys.argv[1] not in d["dev"])' "$n"
done

# The host /tmp is not the candidate's: a file made inside stays inside.
put "$W/tmpw.sh" <<'SH'
echo x > /tmp/sbx-rootfs-marker && ls /tmp
SH
hrun --workdir "$W" -- /bin/sh "$W/tmpw.sh"
# The workdir lives under /tmp here, so the path down to it is there too.
is "/tmp is writable and holds only the path to the workdir" "$(cat "$T/out" | tr '\n' ' ')" \
        "$(printf '%s\n' sbx-rootfs-marker "$(basename "$T")" | sort | tr '\n' ' ')"
check_fails "a file written to /tmp inside does not reach the host" test -e /tmp/sbx-rootfs-marker
done_testing
