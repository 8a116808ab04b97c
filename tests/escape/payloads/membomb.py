# membomb.py: allocates 64 MiB chunks (touched) until it fails; exits 42 on
# MemoryError, so a test can tell the rlimit caught it.
chunks = []
try:
    while True:
        chunks.append(bytearray(64 << 20))
except MemoryError:
    print('MemoryError after %d MiB' % (64 * len(chunks)))
    raise SystemExit(42)
