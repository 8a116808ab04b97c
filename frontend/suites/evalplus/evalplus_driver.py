# sbx's evalplus driver (embedded in sbx-run at build time, run as
# `python -I -B -c DRIVER MODE PROGRAM INPUTS`). It calls the task's function
# on each input and reports every return value, serialized in a closed format
# of builtin types, on a copy of the real stdout. It never compares: the
# expected values stay outside the sandbox and sbx-run judges the values
# (frontend/suites/evalplus/evalplus_compare.c). MODE is "truth" (the reference solution: no
# time limit, time recorded) or "check" (a sample: per-input limits).
import os, sys


def _sbx_evalplus(argv):
    # Bound before any candidate code runs: the candidate shares this process
    # and may rebind builtins, but not these locals.
    write, exit_now, dup2, clock = os.write, os._exit, os.dup2, None
    _type, _repr, _hex, _len, _str = type, repr, hex, len, str
    _list, _tuple, _dict, _set, _fset = list, tuple, dict, set, frozenset
    _map = map
    import json, json.encoder, time, signal, copy, collections, hashlib
    # Exact stdlib dicts a reference returns (Mbpp/88: Counter): sent as dicts,
    # compared as evalplus's dict == compares them.
    dict_types = (_dict, collections.Counter, collections.OrderedDict,
                  collections.defaultdict)
    clock, dumps, loads, deepcopy = time.time, json.dumps, json.loads, copy.deepcopy
    out = os.dup(1)
    nonce = os.urandom(16).hex()
    null = os.open(os.devnull, os.O_RDWR)
    mode, path, inputs_path = argv[1], argv[2], argv[3]

    def emit(rec, value=None):
        text = dumps(rec)
        if value is not None:           # "v" goes last, already serialized
            text = text[:-1] + ',"v":' + value + '}'
        write(out, ('@@SBX-EP %s %s\n' % (nonce, text)).encode())

    class Unsupported(Exception):
        pass

    frepr, jstr, join = float.__repr__, dumps, ''.join
    # json.dumps(s) for a str s, without its Python frames per call
    jstr_c = json.encoder.encode_basestring_ascii
    only_str = frozenset([_str])

    # Text pieces, appended as the value is walked: no second copy of the
    # value in memory. A list or tuple of 2+ numbers, each an exact int or
    # float, is one packed string, ["ln"|"tn", "x y z"] (ints in hex, floats
    # in repr): outputs of millions of numbers stay a few cJSON nodes outside.
    def ser(v, parts, depth):
        t = _type(v)
        if depth > 100:
            raise Unsupported('nesting deeper than 100')
        if v is None:
            parts.append('null')
        elif t is bool:
            parts.append('true' if v else 'false')
        elif t is int:
            parts.append('["i","%s"]' % _hex(v))
        elif t is float:
            parts.append('["f","%s"]' % frepr(v))
        elif t is complex:
            parts.append('["c","%s","%s"]' % (frepr(v.real), frepr(v.imag)))
        elif t is _str:
            parts.append(jstr(v))
        elif t is bytes:
            parts.append('["b","%s"]' % bytes.hex(v))
        elif t is _list or t is _tuple:
            ser_seq(v, 'l' if t is _list else 't', parts, depth)
        elif t is _dict or t is dict_types[1] or t is dict_types[2] or t is dict_types[3]:
            parts.append('["d"')
            for k, x in _dict.items(v):
                parts.append(',[')
                ser(k, parts, depth + 1)
                parts.append(',')
                ser(x, parts, depth + 1)
                parts.append(']')
            parts.append(']')
        elif t is _set or t is _fset:
            parts.append('["s"' if t is _set else '["z"')
            for x in v:
                parts.append(',')
                ser(x, parts, depth + 1)
            parts.append(']')
        else:
            raise Unsupported('unsupported return type %s' % t.__name__)

    def num(x):
        t = _type(x)
        if t is float:
            return frepr(x)
        if t is int:
            return _hex(x)
        raise Unsupported('')

    # A value whose text passes HASH_ABOVE bytes (Mbpp/255's reference
    # returns 1 GB of tuples) is sent as ["h", sha256 of its text]: equal
    # only to the same text. Pieces are joined every FLUSH_EVERY appends so
    # that memory stays about the text's size.
    HASH_ABOVE, FLUSH_EVERY = 8 << 20, 65536
    sink = {'chunks': [], 'size': 0, 'hash': None}

    def flush(parts):
        text = join(parts)
        del parts[:]
        sink['size'] += _len(text)
        if sink['hash'] is None and sink['size'] > HASH_ABOVE:
            sink['hash'] = hashlib.sha256()
            for c in sink['chunks']:
                sink['hash'].update(c.encode('utf-8', 'surrogatepass'))
            sink['chunks'] = []
        if sink['hash'] is not None:
            sink['hash'].update(text.encode('utf-8', 'surrogatepass'))
        else:
            sink['chunks'].append(text)

    def serialize(v):
        parts = []
        sink['chunks'], sink['size'], sink['hash'] = [], 0, None
        ser(v, parts, 0)
        flush(parts)
        if sink['hash'] is not None:
            return '["h","%s"]' % sink['hash'].hexdigest()
        return join(sink['chunks'])

    def ser_seq(v, tag, parts, depth):
        if _len(v) >= 2:
            try:
                parts.append('["%sn","%s"]' % (tag, ' '.join([num(x) for x in v])))
                return
            except Unsupported:
                pass
            # exact strs only (Mbpp/255: 1.7 M tuples of 77): the same text as
            # the loop below writes, at C speed
            if _set(_map(_type, v)) == only_str:
                parts.append('["%s",%s]' % (tag, ','.join(_map(jstr_c, v))))
                return
        parts.append('["%s"' % tag)
        for x in v:
            parts.append(',')
            ser(x, parts, depth + 1)
            if _len(parts) > FLUSH_EVERY:
                flush(parts)
        parts.append(']')

    class SbxTimeout(BaseException):
        pass

    def on_alarm(signum, frame):
        raise SbxTimeout()

    def describe(e):
        try:
            return ('%s: %s' % (_type(e).__name__, e))[:500]
        except BaseException:
            return _type(e).__name__

    def quiet():
        for f in (sys.stdout, sys.stderr):
            try:
                f.flush()
            except BaseException:
                pass
        dup2(null, 0)
        dup2(null, 1)
        dup2(null, 2)

    with open(inputs_path) as f:
        spec = loads(f.read())
    with open(path) as f:
        source = f.read()
    entry, deser = spec['entry_point'], spec.get('mbpp_deserialize')
    write(out, ('@@SBX-EP-BEGIN %s\n' % nonce).encode())
    quiet()
    signal.signal(signal.SIGALRM, on_alarm)
    for phase in spec['phases']:
        name, inputs, limits = phase['name'], phase['inputs'], phase.get('limits')
        deadline = phase.get('deadline')
        if _type(inputs) is _str:       # MBPP+ keeps plus_input as JSON text
            inputs = loads(inputs)
        if deser is not None:
            inputs = deser_mbpp(deser, inputs)
        started = clock()
        try:
            g = {}             # as evalplus: __name__ is not '__main__'
            exec(compile(source, path, 'exec'), g)
            fn = g[entry]
            spent = clock() - started
        except BaseException as e:
            emit({'p': name, 'i': -1, 's': 'exc', 'm': describe(e)})
            continue
        for i, inp in enumerate(inputs):
            if mode == 'truth':
                inp = deepcopy(inp)
            rec, value = {'p': name, 'i': i}, None
            try:
                if limits:
                    signal.setitimer(signal.ITIMER_REAL, limits[i])
                t0 = clock()
                try:
                    v = fn(*inp)
                finally:
                    signal.setitimer(signal.ITIMER_REAL, 0)
                rec['t'] = clock() - t0
                # evalplus's not-None tasks (re.Match results): the reference's
                # value becomes "is not None"; a sample's bool stays, anything
                # else is judged as "is not None" (evalplus's oracle).
                if spec.get('not_none') and (mode == 'truth' or _type(v) is not bool):
                    v = v is not None
                t1 = clock()
                value = serialize(v)
                rec['st'] = clock() - t1
                rec['s'] = 'ok'
                spent += rec['t']
            except SbxTimeout:
                rec['s'] = 'timeout'
            except Unsupported as e:
                rec['s'] = 'type'
                rec['m'] = e.args[0]
            except BaseException as e:
                rec['s'] = 'exc'
                rec['m'] = describe(e)
            try:
                emit(rec, value)
            except BaseException as e:
                emit({'p': name, 'i': i, 's': 'type', 'm': 'unserializable value: ' + describe(e)})
            if rec['s'] != 'ok' and mode == 'check':
                break
            # the phase's limit counts the calls (and the program's load), not
            # the serializing evalplus does not do
            if deadline is not None and spent > deadline:
                emit({'p': name, 'i': -3, 's': 'phase_timeout'})
                break
        emit({'p': name, 'i': -2, 's': 'end'})
    write(out, ('@@SBX-EP-END %s\n' % nonce).encode())
    exit_now(0)


def deser_mbpp(n, inputs):
    # evalplus's mbpp_deserialize_inputs: JSON has no tuples, sets or complex
    # numbers, so these MBPP+ tasks rebuild them (evalplus/data/mbpp.py).
    T = tuple
    if n in (2, 116, 132, 143, 222, 261, 273, 394, 399, 421, 424, 429, 470, 560,
             579, 596, 616, 630, 726, 740, 744, 809):
        return [[T(x) for x in inp] for inp in inputs]
    if n in (63, 64, 70, 94, 120, 237, 272, 299, 400, 409, 417, 438, 473, 614, 780):
        return [[[T(x) for x in xs] for xs in inp] for inp in inputs]
    if n in (75, 413, 444, 753):
        return [[[T(x) for x in inp[0]]] + [inp[1]] for inp in inputs]
    if n in (106, 750):
        return [[inp[0]] + [T(inp[1])] for inp in inputs]
    if n == 115:
        return [[[set(x) if isinstance(x, list) and len(x) else {} for x in inp[0]]]
                for inp in inputs]
    if n == 124:
        return [(float(inp[0]), complex(inp[1])) for inp in inputs]
    if n in (250, 405, 446, 617, 720, 763, 808):
        return [[T(inp[0])] + [inp[1]] for inp in inputs]
    if n in (259, 401, 445):
        inputs = [[[T(x) for x in xs] for xs in inp] for inp in inputs]
        return [[T(x) for x in inp] for inp in inputs]
    if n == 278:
        inputs = [[[T(x) if isinstance(x, list) else x for x in inp[0]]] for inp in inputs]
        return [[T(x) for x in inp] for inp in inputs]
    if n == 307:
        return [[T(inp[0])] + [inp[1], inp[2]] for inp in inputs]
    if n == 722:
        return [[{k: T(v) for k, v in inp[0].items()}] + inp[1:] for inp in inputs]
    if n == 252:
        return [[complex(inp[0])] for inp in inputs]
    if n in (580, 615, 791):
        def all_tuples(x):
            return T(all_tuples(y) for y in x) if isinstance(x, list) else x
        return [all_tuples(inp) for inp in inputs]
    return inputs


_sbx_evalplus(sys.argv)
