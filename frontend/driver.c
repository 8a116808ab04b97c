/* The trusted Python driver (fixed code, so it may travel on argv as
 * "python -I -B -c DRIVER"): it writes a begin marker with a nonce of its
 * own to a copy of the real stdout, runs the candidate, and writes an end
 * marker only when the candidate returned (or raised: then its message).
 * Modes: "script PROGRAM" runs it as __main__ (as runpy.run_path would), as plain
 * `python3 PROGRAM` would; "classeval PROGRAM LIMIT_S MODULE CLASS..."
 * imports it as MODULE and runs each unittest class with its own timer
 * (LIMIT_S of CPU, 2 x LIMIT_S + 2 wall), as ClassEval's harness does with
 * func_timeout(5). docs/suites.md describes the markers and their limits. */
#include "driver.h"

const char driver_source[] =
        "# sbx's trusted driver: runs the candidate program and reports, on a copy of\n"
        "# the real stdout, whether it returned normally. Fixed code, never program text.\n"
        "import os, sys\n"
        "def _sbx_main(argv):\n"
        "    write, exit_now, dup2 = os.write, os._exit, os.dup2\n"
        "    out = os.dup(1)\n"
        "    nonce = os.urandom(16).hex()\n"
        "    write(out, ('@@SBX-BEGIN %s@@\\n' % nonce).encode())\n"
        "    def describe(e):\n"
        "        try:\n"
        "            msg = str(e)\n"
        "        except BaseException:\n"
        "            msg = '<unprintable %s>' % type(e).__name__\n"
        "        return {'type': type(e).__name__, 'msg': msg[:1000]}\n"
        "    # JSON by hand, as json.dumps(ensure_ascii=True) would: importing json\n"
        "    # costs more than a trivial sample's whole run.\n"
        "    def jstr(s):\n"
        "        r = []\n"
        "        for c in s:\n"
        "            o = ord(c)\n"
        "            if 0x20 <= o < 0x7f and c != '\"' and c != '\\\\':\n"
        "                r.append(c)\n"
        "            elif o > 0xffff:\n"
        "                o -= 0x10000\n"
        "                r.append('\\\\u%04x\\\\u%04x' % (0xd800 + (o >> 10), 0xdc00 + (o & 0x3ff)))\n"
        "            else:\n"
        "                r.append('\\\\u%04x' % o)\n"
        "        return '\"' + ''.join(r) + '\"'\n"
        "    def dumps(v):\n"
        "        if v is None:\n"
        "            return 'null'\n"
        "        if isinstance(v, str):\n"
        "            return jstr(v)\n"
        "        if isinstance(v, dict):\n"
        "            return '{' + ','.join(jstr(k) + ':' + dumps(x) for k, x in v.items()) + '}'\n"
        "        return '[' + ','.join('%d' % x for x in v) + ']'\n"
        "    def finish(kind, payload):\n"
        "        for f in (sys.stdout, sys.stderr):\n"
        "            try:\n"
        "                f.flush()\n"
        "            except BaseException:\n"
        "                pass\n"
        "        null = os.open(os.devnull, os.O_WRONLY)\n"
        "        dup2(null, 1)\n"
        "        dup2(null, 2)\n"
        "        write(out, ('\\n@@SBX-END %s %s %s@@\\n' % (nonce, kind, dumps(payload))).encode())\n"
        "        exit_now(1 if kind == 'exc' else 0)\n"
        "    mode, path = argv[1], argv[2]\n"
        "    sys.path.insert(0, os.path.dirname(os.path.abspath(path)))\n"
        "    sys.argv = [path]\n"
        "    if mode == 'script':\n"
        "        # What runpy.run_path(path, run_name='__main__') does for a file,\n"
        "        # without importing runpy and pkgutil for every sample.\n"
        "        main = type(sys)('__main__')\n"
        "        main.__file__, main.__cached__ = path, None\n"
        "        sys.modules['__main__'] = main\n"
        "        try:\n"
        "            with open(path, 'rb') as f:\n"
        "                code = compile(f.read(), path, 'exec')\n"
        "            exec(code, main.__dict__)\n"
        "        except BaseException as e:\n"
        "            # the traceback goes to stderr, whose tail the result keeps\n"
        "            try:\n"
        "                import traceback\n"
        "                traceback.print_exception(type(e), e, e.__traceback__.tb_next)\n"
        "            except BaseException:\n"
        "                pass\n"
        "            finish('exc', describe(e))\n"
        "        finish('ok', None)\n"
        "    import importlib.util, signal, unittest\n"
        "    limit_s, modname, classes = float(argv[3]), argv[4], argv[5:]\n"
        "    class SbxTimeout(KeyboardInterrupt):\n"
        "        pass\n"
        "    def on_timer(signum, frame):\n"
        "        signal.setitimer(signal.ITIMER_REAL, 0.5)   # again, if it was swallowed\n"
        "        raise SbxTimeout()\n"
        "    def load():\n"
        "        mod = sys.modules.get(modname)\n"
        "        if mod is not None:\n"
        "            return mod\n"
        "        spec = importlib.util.spec_from_file_location(modname, path)\n"
        "        mod = importlib.util.module_from_spec(spec)\n"
        "        sys.modules[modname] = mod\n"
        "        try:\n"
        "            spec.loader.exec_module(mod)\n"
        "        except BaseException:\n"
        "            sys.modules.pop(modname, None)\n"
        "            raise\n"
        "        return mod\n"
        "    def run_class(name):\n"
        "        mod = load()\n"
        "        tests = unittest.TestLoader().loadTestsFromTestCase(getattr(mod, name))\n"
        "        with open(os.devnull, 'w') as log:\n"
        "            res = unittest.TextTestRunner(stream=log).run(tests)\n"
        "        return [res.testsRun, len(res.errors), len(res.failures)]\n"
        "    results = {}\n"
        "    for name in classes:\n"
        "        counts = [0, 0, 0]\n"
        "        try:\n"
        "            try:\n"
        "                signal.signal(signal.SIGALRM, on_timer)\n"
        "                signal.signal(signal.SIGPROF, on_timer)\n"
        "                signal.setitimer(signal.ITIMER_PROF, limit_s)\n"
        "                signal.setitimer(signal.ITIMER_REAL, 2 * limit_s + 2)\n"
        "                counts = run_class(name)\n"
        "            finally:\n"
        "                signal.setitimer(signal.ITIMER_REAL, 0)\n"
        "                signal.setitimer(signal.ITIMER_PROF, 0)\n"
        "        except BaseException:\n"
        "            pass\n"
        "        results[name] = counts\n"
        "    finish('classes', results)\n"
        "_sbx_main(sys.argv)\n"
        ;

#include <stdbool.h>
#include <string.h>

#define BEGIN_TAG "@@SBX-BEGIN "
#define END_TAG "\n@@SBX-END "
#define MARK_CLOSE "@@\n"

static bool is_hex(const char *p, size_t n)
{
        for (size_t i = 0; i < n; i++)
                if (!strchr("0123456789abcdef", p[i]) || !p[i])
                        return false;
        return true;
}

/* The last occurrence of needle in [hay, hay + n). */
static const char *last_mem(const char *hay, size_t n, const char *needle)
{
        size_t k = strlen(needle);
        const char *found = NULL, *p = hay;

        while (n >= k) {
                const char *hit = memmem(p, n, needle, k);
                if (!hit)
                        break;
                found = hit;
                n -= (size_t)(hit - p) + 1;
                p = hit + 1;
        }
        return found;
}

static bool begin_nonce(const struct run_output *out, char nonce[DRIVER_NONCE_HEX + 1])
{
        size_t tag = strlen(BEGIN_TAG), need = tag + DRIVER_NONCE_HEX + strlen(MARK_CLOSE);

        if (!out->data || out->len < need || memcmp(out->data, BEGIN_TAG, tag) ||
            !is_hex(out->data + tag, DRIVER_NONCE_HEX) ||
            memcmp(out->data + tag + DRIVER_NONCE_HEX, MARK_CLOSE, strlen(MARK_CLOSE)))
                return false;
        memcpy(nonce, out->data + tag, DRIVER_NONCE_HEX);
        nonce[DRIVER_NONCE_HEX] = '\0';
        return true;
}

void driver_parse(const struct run_output *out, struct driver_report *rep)
{
        char nonce[DRIVER_NONCE_HEX + 1];
        const char *tail = out->tail, *end = out->tail + out->tail_len;

        rep->outcome = DRIVER_NONE;
        rep->payload = NULL;
        if (!begin_nonce(out, nonce))
                return;
        const char *m = last_mem(tail, out->tail_len, END_TAG);
        size_t close = strlen(MARK_CLOSE);
        if (!m || out->tail_len < close || memcmp(end - close, MARK_CLOSE, close))
                return;
        const char *p = m + strlen(END_TAG);
        if ((size_t)(end - p) < DRIVER_NONCE_HEX + 1 ||
            memcmp(p, nonce, DRIVER_NONCE_HEX) || p[DRIVER_NONCE_HEX] != ' ')
                return;
        p += DRIVER_NONCE_HEX + 1;
        const char *sp = memchr(p, ' ', (size_t)(end - p));
        if (!sp)
                return;
        cJSON *payload = cJSON_ParseWithLength(sp + 1, (size_t)(end - close - sp - 1));
        if (!payload)
                return;
        size_t kind_len = (size_t)(sp - p);
        if (kind_len == 2 && !memcmp(p, "ok", 2) && cJSON_IsNull(payload))
                rep->outcome = DRIVER_RETURNED;
        else if (kind_len == 3 && !memcmp(p, "exc", 3) && cJSON_IsObject(payload))
                rep->outcome = DRIVER_RAISED;
        else if (kind_len == 7 && !memcmp(p, "classes", 7) && cJSON_IsObject(payload))
                rep->outcome = DRIVER_CLASSES;
        if (rep->outcome == DRIVER_RAISED || rep->outcome == DRIVER_CLASSES)
                rep->payload = payload;
        else
                cJSON_Delete(payload);
}

void driver_report_free(struct driver_report *rep)
{
        cJSON_Delete(rep->payload);
        rep->payload = NULL;
}
