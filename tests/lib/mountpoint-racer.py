# The racer of tests/escape/mountpoints.t and warm_mountpoints.t (tests/lib/
# lib.sh race_bind_target): removes and re-creates DIR/f until STOP exists,
# noting in FOUND any root-owned file it meets there.
import os, sys, time
d, stop, found = sys.argv[1], sys.argv[2], sys.argv[3]
f = os.path.join(d, 'f')
while not os.path.exists(stop):
    try:
        st = os.lstat(f)
        if st.st_uid == 0:
            open(found, 'a').write('root-owned %o\n' % st.st_mode)
        os.unlink(f)
    except FileNotFoundError:
        pass
    time.sleep(0.001)    # absent about half the time: present at the check, gone at the mount
    try:
        os.close(os.open(f, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644))
    except FileExistsError:
        pass
    time.sleep(0.001)
