# read_secrets.py TOKEN PATH...: tries to read each path; prints LEAKED with
# the content, or the error. Then walks the visible tree for files holding
# TOKEN (given on argv, so this file itself does not contain it).
import os, sys

token = sys.argv[1]
for path in sys.argv[2:]:
    try:
        print('%s: LEAKED %s' % (path, open(path).read().strip()))
    except OSError as e:
        print('%s: %s' % (path, e.__class__.__name__))
for top in ('/tmp', '/home', os.environ.get('HOME', '/'), '/dev/shm'):
    for root, dirs, files in os.walk(top):
        for f in files:
            p = os.path.join(root, f)
            try:
                if token in open(p, errors='replace').read(1 << 16):
                    print('%s: LEAKED by walk' % p)
            except OSError:
                pass
