# sbx's trusted driver: runs the candidate program and reports, on a copy of
# the real stdout, whether it returned normally; in plain mode, runs a single
# run's program as `python PROGRAM` would. Fixed code, never program text.
import os, sys
def _sbx_plain(argv):
    # plain PROGRAM SYSPATH: PROGRAM as __main__, no markers, its own exit
    # status. SYSPATH "path" puts its directory first on sys.path (as
    # `python PROGRAM` does: SandboxFusion's runs, whose uploaded files
    # import); "isolated" leaves sys.path as -I made it.
    path, syspath = argv[2], argv[3]
    if syspath == 'path':
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
        # the traceback from the program's first frame, not the driver's
        tb = e.__traceback__.tb_next
        sys.excepthook(type(e), e.with_traceback(tb), tb)
        if isinstance(e, KeyboardInterrupt):
            # python dies of SIGINT then
            import signal
            for f in (sys.stdout, sys.stderr):
                try:
                    f.flush()
                except BaseException:
                    pass
            signal.signal(signal.SIGINT, signal.SIG_DFL)
            os.kill(os.getpid(), signal.SIGINT)
        sys.exit(1)
def _sbx_main(argv):
    if argv[1] == 'plain':
        return _sbx_plain(argv)
    write, exit_now, dup2 = os.write, os._exit, os.dup2
    out = os.dup(1)
    nonce = os.urandom(16).hex()
    write(out, ('@@SBX-BEGIN %s@@\n' % nonce).encode())
    def describe(e):
        try:
            msg = str(e)
        except BaseException:
            msg = '<unprintable %s>' % type(e).__name__
        return {'type': type(e).__name__, 'msg': msg[:1000]}
    # JSON by hand, as json.dumps(ensure_ascii=True) would: importing json
    # costs more than a trivial sample's whole run.
    def jstr(s):
        r = []
        for c in s:
            o = ord(c)
            if 0x20 <= o < 0x7f and c != '"' and c != '\\':
                r.append(c)
            elif o > 0xffff:
                o -= 0x10000
                r.append('\\u%04x\\u%04x' % (0xd800 + (o >> 10), 0xdc00 + (o & 0x3ff)))
            else:
                r.append('\\u%04x' % o)
        return '"' + ''.join(r) + '"'
    def dumps(v):
        if v is None:
            return 'null'
        if isinstance(v, str):
            return jstr(v)
        if isinstance(v, dict):
            return '{' + ','.join(jstr(k) + ':' + dumps(x) for k, x in v.items()) + '}'
        return '[' + ','.join('%d' % x for x in v) + ']'
    def finish(kind, payload):
        for f in (sys.stdout, sys.stderr):
            try:
                f.flush()
            except BaseException:
                pass
        null = os.open(os.devnull, os.O_WRONLY)
        dup2(null, 1)
        dup2(null, 2)
        write(out, ('\n@@SBX-END %s %s %s@@\n' % (nonce, kind, dumps(payload))).encode())
        exit_now(1 if kind == 'exc' else 0)
    mode, path = argv[1], argv[2]
    sys.path.insert(0, os.path.dirname(os.path.abspath(path)))
    sys.argv = [path]
    if mode == 'script':
        # What runpy.run_path(path, run_name='__main__') does for a file,
        # without importing runpy and pkgutil for every sample.
        main = type(sys)('__main__')
        main.__file__, main.__cached__ = path, None
        sys.modules['__main__'] = main
        try:
            with open(path, 'rb') as f:
                code = compile(f.read(), path, 'exec')
            exec(code, main.__dict__)
        except BaseException as e:
            # the traceback goes to stderr, whose tail the result keeps
            try:
                import traceback
                traceback.print_exception(type(e), e, e.__traceback__.tb_next)
            except BaseException:
                pass
            finish('exc', describe(e))
        finish('ok', None)
    import importlib.util, signal, unittest
    limit_s, modname, classes = float(argv[3]), argv[4], argv[5:]
    class SbxTimeout(KeyboardInterrupt):
        pass
    def on_timer(signum, frame):
        signal.setitimer(signal.ITIMER_REAL, 0.5)   # again, if it was swallowed
        raise SbxTimeout()
    def load():
        mod = sys.modules.get(modname)
        if mod is not None:
            return mod
        spec = importlib.util.spec_from_file_location(modname, path)
        mod = importlib.util.module_from_spec(spec)
        sys.modules[modname] = mod
        try:
            spec.loader.exec_module(mod)
        except BaseException:
            sys.modules.pop(modname, None)
            raise
        return mod
    def run_class(name):
        mod = load()
        tests = unittest.TestLoader().loadTestsFromTestCase(getattr(mod, name))
        with open(os.devnull, 'w') as log:
            res = unittest.TextTestRunner(stream=log).run(tests)
        return [res.testsRun, len(res.errors), len(res.failures)]
    results = {}
    for name in classes:
        counts = [0, 0, 0]
        try:
            try:
                signal.signal(signal.SIGALRM, on_timer)
                signal.signal(signal.SIGPROF, on_timer)
                signal.setitimer(signal.ITIMER_PROF, limit_s)
                signal.setitimer(signal.ITIMER_REAL, 2 * limit_s + 2)
                counts = run_class(name)
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)
                signal.setitimer(signal.ITIMER_PROF, 0)
        except BaseException:
            pass
        results[name] = counts
    finish('classes', results)
_sbx_main(sys.argv)
