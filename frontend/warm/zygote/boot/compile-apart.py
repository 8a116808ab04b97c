# sbx zygote, its start (appended by common/common.mk after the parts, which
# it holds above as the string _SBX_ZYGOTE): what runs first. The parts are
# compiled in a forked child and come back as marshal data, so that the
# compiler's garbage (2.4 MB of freed heap and 1.3 MB of pymalloc pages,
# interleaved with the code objects, resident after) is never the
# zygote's: every clone of B and fork of C copies the page tables of the
# zygote's memory and every exit frees them (8.4 MB of anonymous memory
# before, 5.8 after), and the code objects, made by marshal one after
# another, sit on fewer pages for B and C to write. Only os and marshal,
# which a fresh `python -I -B -c` has already imported.
import os, marshal


def _sbx_compile_apart(source):
    """compile(source, '<string>', 'exec'), done in a child; in-process if
    the child cannot be made or fails (then compile raises what it would)."""
    r, w = os.pipe()
    try:
        pid = os.fork()
    except OSError:
        pid = -1
    if pid == 0:
        status = 1
        try:
            view = memoryview(marshal.dumps(compile(source, '<string>', 'exec')))
            while view:
                view = view[os.write(w, view):]
            status = 0
        finally:
            os._exit(status)
    os.close(w)
    chunks = []
    while pid > 0:
        chunk = os.read(r, 1 << 20)
        if not chunk:
            break
        chunks.append(chunk)
    os.close(r)
    if pid < 0 or os.waitpid(pid, 0)[1] != 0:
        return compile(source, '<string>', 'exec')
    return marshal.loads(b''.join(chunks))


exec(_sbx_compile_apart(_SBX_ZYGOTE))
