# sbx's io runner: `python -I -B -c RUNNER [OPTIONS] FILE ARG...` runs FILE
# as `python -I -B FILE ARG...` would: as __main__, sys.argv = [FILE,
# ARG...], stdin, stdout and exit status its own, a traceback without this
# frame.
#   --compile FILE     only compiles it: a program's build, once, before its
#                      tests (a SyntaxError is its compile error, exit 1)
#   --prelude NAME     first runs a harness's imports in the program's
#                      namespace (lcb: LiveCodeBench's import_string; apps:
#                      APPS's testing_util header), as that harness does
#   --call STYLE FN    a call-based problem: the program runs as module
#                      tmp_sol (not __main__), then FN (Solution().FN when
#                      it has a class Solution) is called with the
#                      arguments on stdin (apps: one JSON list, a dict
#                      first argument with its keys made ints where all
#                      are, as APPS's testing_util; lcb: one JSON value a
#                      line) and its value printed as JSON
# Fixed code, never program text: the warm zygote compiles it once.
import sys
PRELUDES = {
    'lcb': 'from string import *\nfrom re import *\nfrom datetime import *\nfrom collections import *\n'
           'from heapq import *\nfrom bisect import *\nfrom copy import *\nfrom math import *\n'
           'from random import *\nfrom statistics import *\nfrom itertools import *\nfrom functools import *\n'
           'from operator import *\nfrom io import *\nfrom sys import *\nfrom json import *\n'
           'from builtins import *\nfrom typing import *\nimport string\nimport re\nimport datetime\n'
           'import collections\nimport heapq\nimport bisect\nimport copy\nimport math\nimport random\n'
           'import statistics\nimport itertools\nimport functools\nimport operator\nimport io\nimport sys\n'
           'import json\nsys.setrecursionlimit(50000)\n',
    # numpy where it is installed: APPS's header imports it unconditionally
    'apps': 'import sys\nimport time\nimport itertools\n'
            'from itertools import accumulate, product, permutations, combinations\nimport collections\n'
            'from collections import Counter, OrderedDict, deque, defaultdict, ChainMap\n'
            'from functools import lru_cache\nimport math\n'
            'from math import sqrt, sin, cos, tan, ceil, fabs, floor, gcd, exp, log, log2\nimport fractions\n'
            'from typing import List, Tuple\ntry:\n    import numpy as np\nexcept ImportError:\n    pass\n'
            'import random\nimport heapq\nfrom heapq import *\n',
}
def _sbx_call(mod, code, style, fn):
    import json
    text = sys.stdin.read()
    args = json.loads(text) if style == 'apps' else [json.loads(l) for l in text.rstrip('\n').split('\n')]
    if style == 'apps':
        # APPS's testing_util: a dict first argument gets int keys back
        # (JSON made them strings), and is then the only argument
        try:
            if isinstance(args[0], dict):
                args = [{int(k): v for k, v in args[0].items()}]
        except Exception:
            pass
    target = getattr(mod.Solution(), fn) if 'class Solution' in code else getattr(mod, fn)
    value = target(*args)
    if isinstance(value, tuple):
        value = list(value)
    sys.stdout.write(json.dumps(value) + '\n')
def _sbx_io_run(argv):
    opts, i = {}, 1
    while argv[i] in ('--compile', '--prelude', '--call'):
        n = {'--compile': 0, '--prelude': 1, '--call': 2}[argv[i]]
        opts[argv[i]] = argv[i + 1:i + 1 + n]
        i += 1 + n
    path = argv[i]
    name = 'tmp_sol' if '--call' in opts else '__main__'
    main = type(sys)(name)
    main.__file__, main.__cached__ = path, None
    sys.modules[name] = main
    sys.argv = argv[i:]
    try:
        with open(path, 'rb') as f:
            text = f.read()
        code = compile(text, path, 'exec')
        if '--compile' in opts:
            return
        if '--prelude' in opts:
            exec(PRELUDES[opts['--prelude'][0]], main.__dict__)
        exec(code, main.__dict__)
        if '--call' in opts:
            _sbx_call(main, text.decode('utf-8', 'replace'), *opts['--call'])
    except SystemExit:
        raise
    except BaseException as e:
        sys.excepthook(type(e), e, e.__traceback__.tb_next)
        sys.exit(1)
_sbx_io_run(sys.argv)
