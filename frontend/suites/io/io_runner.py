# sbx's io runner: `python -I -B -c RUNNER FILE ARG...` runs FILE as
# `python -I -B FILE ARG...` would: as __main__, sys.argv = [FILE, ARG...],
# stdin, stdout and exit status its own, a traceback without this frame.
# `... -c RUNNER --compile FILE` only compiles it: a program's build, once,
# before its tests (a SyntaxError is its compile error, exit 1).
# Fixed code, never program text: the warm zygote compiles it once.
import sys
def _sbx_io_run(argv):
    build = argv[1] == '--compile'
    path = argv[2] if build else argv[1]
    main = type(sys)('__main__')
    main.__file__, main.__cached__ = path, None
    sys.modules['__main__'] = main
    sys.argv = argv[1:]
    try:
        with open(path, 'rb') as f:
            code = compile(f.read(), path, 'exec')
        if not build:
            exec(code, main.__dict__)
    except SystemExit:
        raise
    except BaseException as e:
        sys.excepthook(type(e), e, e.__traceback__.tb_next)
        sys.exit(1)
_sbx_io_run(sys.argv)
