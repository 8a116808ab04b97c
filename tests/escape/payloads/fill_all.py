# fill_all.py DIR...: fills each DIR with 1 MiB blocks until a write fails;
# prints "<dir> <bytes>" per DIR and "TOTAL <bytes>".
import os, sys

block = b'x' * (1 << 20)
total = 0
for d in sys.argv[1:]:
    written = 0
    try:
        fd = os.open(os.path.join(d, 'fill'), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        while written < (1 << 30):
            written += os.write(fd, block)
    except OSError as e:
        pass
    print(d, written)
    total += written
print('TOTAL', total, flush=True)
