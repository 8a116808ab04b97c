# write_outside.py MARKER PATH...: tries to create MARKER in each directory;
# prints "dir: WROTE" or the error.
import os, sys

marker = sys.argv[1]
for d in sys.argv[2:]:
    try:
        with open(os.path.join(d, marker), 'w') as f:
            f.write('escaped\n')
        print(d + ': WROTE')
    except OSError as e:
        print('%s: %s' % (d, e.__class__.__name__))
