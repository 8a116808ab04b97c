# fill.py PATH LIMIT_BYTES: writes 1 MiB blocks to PATH until an error or
# LIMIT_BYTES; prints the errno name and the bytes written.
import errno, os, sys

path, limit = sys.argv[1], int(sys.argv[2])
written = 0
block = b'x' * (1 << 20)
fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
try:
    while written < limit:
        written += os.write(fd, block)
    print('NOERROR', written)
except OSError as e:
    print(errno.errorcode[e.errno], written)
