# sbx's runner of an HTTP request's Python program: fixed code, never
# program text, so it may travel on argv as
#   python -I -B -c RUNNER PROGRAM STDIN MEMORY MODE
# (the shape a zygote runs warm, docs/warm.md). It runs PROGRAM as
# `python PROGRAM` would: as __main__, with STDIN's bytes (a file of the
# run's, "" for none) on fd 0, RLIMIT_AS lowered to MEMORY bytes (0: as it
# is), and with MODE "path" PROGRAM's directory first on sys.path (as
# SandboxFusion's `python FILE.py` has it, so uploaded files import);
# MODE "isolated" leaves sys.path as -I made it (--serve's run requests).
import os, sys
def _sbx_run(argv):
    path, stdin, memory, mode = argv[1], argv[2], int(argv[3]), argv[4]
    if stdin:
        fd = os.open(stdin, os.O_RDONLY)
        os.dup2(fd, 0)
        os.close(fd)
    if memory > 0:
        import resource
        hard = resource.getrlimit(resource.RLIMIT_AS)[1]
        if hard != resource.RLIM_INFINITY:
            memory = min(memory, hard)
        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    if mode == 'path':
        sys.path.insert(0, os.path.dirname(os.path.abspath(path)))
    sys.argv = [path]
    main = type(sys)('__main__')
    main.__file__, main.__cached__ = path, None
    sys.modules['__main__'] = main
    try:
        with open(path, 'rb') as f:
            code = compile(f.read(), path, 'exec')
    except SyntaxError as e:
        # as `python PROGRAM` shows it: the line and caret, no traceback
        sys.excepthook(type(e), e.with_traceback(None), None)
        sys.exit(1)
    try:
        exec(code, main.__dict__)
    except SystemExit:
        raise
    except BaseException as e:
        # the traceback from the program's first frame, not this one's
        tb = e.__traceback__.tb_next
        sys.excepthook(type(e), e.with_traceback(tb), tb)
        sys.exit(1)
_sbx_run(sys.argv)
