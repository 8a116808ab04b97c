# The HTTP checks of tests/serve/http.t, run as the test user against a
# running `sbx-run --http`: python3 http_checks.py GROUP URL [ARG...].
# Prints one "ok - NAME" or "not ok - NAME" line a check (and "# " lines
# saying why), which http.t turns into TAP. Standard library and Debian's
# python3-requests only.
import base64
import http.client
import json
import os
import socket
import sys
import threading
import time
import urllib.parse

import requests

URL = ""
failed = 0


def check(name, cond, why=""):
    global failed
    if cond:
        print("ok - %s" % name)
    else:
        failed += 1
        print("not ok - %s" % name)
        if why:
            for line in str(why)[:2000].splitlines():
                print("# " + line)
    sys.stdout.flush()
    return cond


def b64(data):
    return base64.b64encode(data if isinstance(data, bytes) else data.encode()).decode()


def run_code(code, headers=None, **kw):
    body = {"code": code, "language": "python"}
    body.update(kw)
    return requests.post(URL + "/run_code", json=body, headers=headers, timeout=60)


def run_json(code, **kw):
    r = run_code(code, **kw)
    try:
        return r.status_code, r.json()
    except ValueError:
        return r.status_code, {"raw": r.text}


def host_port():
    u = urllib.parse.urlparse(URL)
    return u.hostname, u.port


def raw(data, read=True, timeout=10):
    """Sends bytes on a fresh connection; the answer's bytes."""
    s = socket.create_connection(host_port(), timeout=timeout)
    try:
        s.sendall(data)
        if not read:
            return b""
        out = b""
        while True:
            try:
                chunk = s.recv(65536)
            except (ConnectionResetError, socket.timeout):
                break
            if not chunk:
                break
            out += chunk
        return out
    finally:
        s.close()


def status_of(answer):
    try:
        return int(answer.split(b" ", 2)[1])
    except (IndexError, ValueError):
        return None


def metric(name):
    text = requests.get(URL + "/metrics", timeout=10).text
    for line in text.splitlines():
        if line.startswith(name + " "):
            return float(line.split()[-1])
    return None


def health():
    return requests.get(URL + "/health", timeout=10).json()


# ---- basic ---------------------------------------------------------------

def group_basic():
    h = health()
    check("GET /health is ok and names the tier", h.get("status") == "ok" and h.get("tier"), h)
    check("GET /v1/ping is SandboxFusion's pong", requests.get(URL + "/v1/ping").json() == "pong")
    # verl's call_sandbox_api body, as json.dumps writes it
    payload = json.dumps({"compile_timeout": 10, "run_timeout": 10, "code": "print(int(input()) * 2)",
                          "stdin": "21\n", "memory_limit_MB": 1024, "language": "python",
                          "files": {}, "fetch_files": []})
    r = requests.post(URL + "/run_code", data=payload, timeout=30,
                      headers={"Content-Type": "application/json", "Accept": "application/json"})
    j = r.json()
    check("verl's request: Success, stdout from stdin", r.status_code == 200 and j["status"] == "Success"
          and j["run_result"]["status"] == "Finished" and j["run_result"]["stdout"] == "42\n"
          and j["run_result"]["return_code"] == 0 and j["compile_result"] is None
          and j["message"] == "" and j["files"] == {} and "executor_pod_name" in j, j)
    _, j = run_json("import sys; print('x'); sys.exit(3)")
    check("a non-zero exit: Failed, Finished, return_code 3", j["status"] == "Failed" and
          j["run_result"]["status"] == "Finished" and j["run_result"]["return_code"] == 3, j)
    _, j = run_json("import os, signal; os.kill(os.getpid(), signal.SIGKILL)")
    check("killed by a signal: return_code -9", j["status"] == "Failed" and
          j["run_result"]["return_code"] == -9, j)
    t0 = time.time()
    _, j = run_json("import time; print('started', flush=True); time.sleep(30)", run_timeout=1)
    check("a time limit: TimeLimitExceeded, no return code, killed at once",
          j["status"] == "Failed" and j["run_result"]["status"] == "TimeLimitExceeded" and
          j["run_result"]["return_code"] is None and time.time() - t0 < 10 and
          j["run_result"]["stdout"] == "started\n", j)
    _, j = run_json("x = bytearray(300 * 1024 * 1024); print('allocated')", memory_limit_MB=64)
    check("memory_limit_MB 64: 300 MB is a MemoryError", j["status"] == "Failed" and
          "MemoryError" in j["run_result"]["stderr"], j)
    _, j = run_json("x = bytearray(30 * 1024 * 1024); print('allocated')", memory_limit_MB=512)
    check("memory_limit_MB 512: 30 MB is fine", j["status"] == "Success", j)
    _, j = run_json("1/0")
    check("a traceback names the program, not sbx's runner", "ZeroDivisionError" in
          j["run_result"]["stderr"] and "<string>" not in j["run_result"]["stderr"], j)
    _, j = run_json("import sys; sys.stdout.buffer.write(b'a\\xffb'); print('\\u00e9')")
    check("output that is not UTF-8 is repaired", j["run_result"]["stdout"] == "a\ufffdb\u00e9\n", j)
    _, j = run_json("import sys\nfor i in range(100000): sys.stdout.write('y' * 99 + '\\n')")
    check("10 MB of output is capped", j["status"] == "Success" and
          0 < len(j["run_result"]["stdout"]) <= 1100000, len(j["run_result"]["stdout"]))
    c, j = run_json("print(1)", language="php")
    check("a language this server does not run: SandboxError", c == 200 and j["status"] == "SandboxError"
          and "php" in j["message"] and "python, cpp" in j["message"], j)
    c, j = run_json("print(1)", language="js")
    check("a language SandboxFusion does not know: 422", c == 422 and
          j["detail"][0]["loc"] == ["body", "language"], j)
    r = requests.post(URL + "/run_code", data="{not json", timeout=10)
    check("malformed JSON: 422", r.status_code == 422 and r.json()["detail"][0]["type"] == "json_invalid",
          r.text)
    r = requests.post(URL + "/run_code", json={"language": "python"}, timeout=10)
    check("a missing field: 422 naming it", r.status_code == 422 and
          r.json()["detail"][0]["loc"] == ["body", "code"], r.text)
    r = requests.get(URL + "/run_code", timeout=10)
    check("GET /run_code: 405, Allow: POST", r.status_code == 405 and r.headers.get("Allow") == "POST")
    r = requests.get(URL + "/nope", timeout=10)
    check("an unknown path: 404", r.status_code == 404)
    # keep-alive: two requests on one connection
    s = requests.Session()
    ok = all(s.post(URL + "/run_code", json={"code": "print(%d)" % i, "language": "python"},
                    timeout=30).json()["run_result"]["stdout"] == "%d\n" % i for i in range(3))
    check("three requests on one kept-alive connection", ok)
    m = metric('sbx_runs_total{outcome="success"}')
    check("/metrics counts the runs", m is not None and m >= 5, m)
    check("/metrics has latency percentiles", metric('sbx_request_latency_seconds{quantile="0.99"}')
          is not None)


# ---- files ---------------------------------------------------------------

def group_files(secret):
    _, j = run_json("print(open('d1/d2/f.txt').read())", files={"d1/d2/f.txt": b64("nested")})
    check("files: a nested file is written", j["run_result"]["stdout"] == "nested\n", j)
    _, j = run_json("import helper; print(helper.X)", files={"helper.py": b64("X = 5\n")})
    check("files: an uploaded module imports, as in SandboxFusion", j["run_result"]["stdout"] == "5\n", j)
    _, j = run_json("print(1)", files={"skip": None, "a_IGNORE_THIS_FILE": "!!"})
    check("files: null and IGNORE_THIS_FILE are skipped", j["status"] == "Success", j)
    for name in ["../escaped", "a/../../escaped", "/tmp/escaped-abs", "a//b", "./x", "a\\b"]:
        c, j = run_json("print(1)", files={name: b64("x")})
        check("files: %r refused with a SandboxError naming it" % name, c == 200 and
              j["status"] == "SandboxError" and name.split("/")[0] in j["message"] and
              j["run_result"] is None, j)
    check("files: nothing was written outside a workdir", not os.path.exists("/tmp/escaped-abs"))
    c, j = run_json("print(1)", files={"program.py": b64("print(666)")})
    check("files: the program's own name is refused", j["status"] == "SandboxError", j)
    c, j = run_json("print(1)", files={"f%d" % i: "" for i in range(65)})
    check("files: 65 files are refused (at most 64)", j["status"] == "SandboxError" and "64" in j["message"], j)
    c, j = run_json("print(1)", files={"f": "not base64!"})
    check("files: bad base64 is refused", j["status"] == "SandboxError" and "base64" in j["message"], j)
    _, j = run_json("open('out.txt', 'w').write('result'); import os; os.mkdir('sub');"
                    "open('sub/o2', 'wb').write(bytes(range(256)))",
                    fetch_files=["out.txt", "sub/o2", "missing"])
    check("fetch_files: written files come back base64", j["files"].get("out.txt") == b64("result") and
          base64.b64decode(j["files"].get("sub/o2", "")) == bytes(range(256)) and
          "missing" not in j["files"] and "missing" in j["message"], j)
    # the run plants links to a file of the user's outside the workdir
    _, j = run_json("import os\nos.symlink(%r, 'leak')\nos.symlink(%r, 'dir')\nos.mkfifo('fifo')\n"
                    "open('big', 'wb').write(b'x' * (17 << 20))\n" % (secret, os.path.dirname(secret)),
                    fetch_files=["leak", "dir/" + os.path.basename(secret), "fifo", "big"])
    check("fetch_files: a symlink, a symlinked directory, a FIFO and 17 MB are not read",
          j["files"] == {} and "symlink" in j["message"] and "not a plain directory" in j["message"]
          and "not a regular file" in j["message"] and "size limit" in j["message"], j)
    for name in ["../x", "/etc/passwd", secret]:
        c, j = run_json("print(1)", fetch_files=[name])
        check("fetch_files: %r is refused" % name, j["status"] == "SandboxError", j)


# ---- abuse ---------------------------------------------------------------

def group_abuse(max_body, request_timeout):
    a = raw(b"POST /run_code HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            b"Content-Length: %d\r\n\r\n" % (max_body + 1))
    check("a Content-Length over the cap: 413 before the body", status_of(a) == 413, a[:200])
    body = json.dumps({"code": "#" * (max_body + 10), "language": "python"}).encode()
    c = http.client.HTTPConnection(*host_port(), timeout=30)
    c.putrequest("POST", "/run_code")
    c.putheader("Transfer-Encoding", "chunked")
    c.endheaders()
    try:
        for i in range(0, len(body), 65536):
            part = body[i:i + 65536]
            c.send(b"%x\r\n%s\r\n" % (len(part), part))
        c.send(b"0\r\n\r\n")
        st = c.getresponse().status
    except (ConnectionError, http.client.HTTPException) as e:
        st = str(e)
    check("a chunked body over the cap: 413", st == 413, st)
    a = raw(b"GET /health HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 40000 + b"\r\n\r\n")
    check("40 KB of headers: refused (413/431)", status_of(a) in (413, 431), a[:200])
    a = raw(b"\x00\x01GARBAGE \xff\r\n\r\n")
    check("binary junk instead of a request: 400 or closed", status_of(a) in (400, None), a[:200])
    a = raw(b"GET /health HTTP/1.1\r\nHost: x\r\nNo colon here\r\n\r\n")
    check("a header line without a colon: 400", status_of(a) == 400, a[:200])
    a = raw(b"POST /run_code HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nContent-Length: 7\r\n\r\nhello")
    check("two Content-Lengths: 400", status_of(a) == 400, a[:200])
    a = raw(b"POST /run_code HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n"
            b"Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n")
    check("Content-Length and Transfer-Encoding both: 400", status_of(a) == 400, a[:200])
    check("after the junk it still answers", health().get("status") == "ok")
    # bodies announced and not sent are held for: their sum is bounded
    held = []
    for length in (max_body - 10, max_body - 10):
        h = socket.create_connection(host_port(), timeout=30)
        h.sendall(b"POST /run_code HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n" % length)
        held.append(h)
    wait_for(lambda: health().get("reading") == 2, 5)
    a = raw(b"POST /run_code HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n" % (max_body // 2))
    check("past the bytes held for bodies (--http-max-buffered): 503", status_of(a) == 503, a[:300])
    for h in held:
        h.close()
    check("their bytes are given back when their clients leave",
          wait_for(lambda: health().get("reading") == 0, 5) and run_code("print(1)").status_code == 200)
    # slow clients: headers a byte a second, an idle socket, a body a byte a second
    socks = []
    for i in range(4):
        s = socket.create_connection(host_port(), timeout=30)
        s.sendall(b"POST /run_code HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n" if i == 3 else b"GE")
        socks.append(s)
    idle = socket.create_connection(host_port(), timeout=30)
    t0 = time.time()
    lat = []
    stop = threading.Event()

    def trickle():
        while not stop.is_set():
            for s in socks:
                try:
                    s.send(b"X")
                except OSError:
                    pass
            time.sleep(1)
    th = threading.Thread(target=trickle)
    th.start()
    while time.time() - t0 < request_timeout + 4:
        t = time.time()
        ok = run_code("print(1)").status_code == 200
        lat.append(time.time() - t if ok else 99)
        time.sleep(0.5)
    stop.set()
    th.join()
    check("while slow clients trickle, others are answered (%d requests, slowest %.2f s)"
          % (len(lat), max(lat)), max(lat) < 5, lat)
    cut = 0
    for s in socks + [idle]:
        s.settimeout(5)
        try:
            cut += s.recv(100) == b"" or 1
        except (ConnectionResetError, BrokenPipeError):
            cut += 1
        except socket.timeout:
            pass
        s.close()
    check("the slow and the idle connections were cut", cut == len(socks) + 1, cut)
    # a flood of connections past the cap, then the server still serves
    flood = []
    for i in range(80):
        try:
            flood.append(socket.create_connection(host_port(), timeout=5))
        except OSError:
            break
    for s in flood:
        s.close()
    time.sleep(1)
    check("after 80 connections at once it still answers", health().get("status") == "ok")


# ---- admission -----------------------------------------------------------

def post_async(results, key, client, code):
    def go():
        t = time.time()
        try:
            r = requests.post(URL + "/run_code", json={"code": code, "language": "python"},
                              headers={"X-Sbx-Client": client}, timeout=60)
            results[key] = (r.status_code, r.json(), time.time(), r.headers.get("Retry-After"))
        except Exception as e:  # noqa: BLE001: any failure is the check's
            results[key] = (None, str(e), time.time(), None)
    th = threading.Thread(target=go)
    th.start()
    return th


def wait_for(cond, secs=20):
    end = time.time() + secs
    while time.time() < end:
        if cond():
            return True
        time.sleep(0.05)
    return False


def group_admission():
    """-j 1, --http-queue 3, --http-client-queue 2."""
    res = {}
    threads = [post_async(res, "a0", "A", "import time; time.sleep(3); print('a0')")]
    check("the first request runs", wait_for(lambda: health().get("running") == 1), health())
    threads.append(post_async(res, "a1", "A", "print('a1')"))
    wait_for(lambda: health().get("queued") == 1)
    threads.append(post_async(res, "a2", "A", "print('a2')"))
    wait_for(lambda: health().get("queued") == 2)
    threads.append(post_async(res, "a3", "A", "print('a3')"))
    threads[-1].join()
    check("a client past its share gets 429 with Retry-After", res["a3"][0] == 429 and
          res["a3"][3] is not None, res.get("a3"))
    threads.append(post_async(res, "b1", "B", "print('b1')"))
    wait_for(lambda: health().get("queued") == 3)
    threads.append(post_async(res, "b2", "B", "print('b2')"))
    threads[-1].join()
    check("a full queue gives 503 with Retry-After", res["b2"][0] == 503 and
          int(res["b2"][3] or 0) >= 1, res.get("b2"))
    for th in threads:
        th.join()
    check("every admitted request is answered", all(res[k][0] == 200 and res[k][1]["status"] == "Success"
                                                    for k in ("a0", "a1", "a2", "b1")), res)
    check("the other client's request ran before this client's second",
          res["b1"][2] < res["a2"][2], {k: res[k][2] for k in res})
    check("/metrics counts the refusals", metric('sbx_http_refused_total{code="429"}') == 1 and
          metric('sbx_http_refused_total{code="503"}') == 1)


def group_gone():
    """-j 1: a request whose client leaves is dropped, queued or running."""
    before = metric('sbx_runs_total{outcome="cancelled"}')
    res = {}
    th = post_async(res, "long", "X", "import time; time.sleep(3)")
    wait_for(lambda: health().get("running") == 1)
    body = json.dumps({"code": "print(1)", "language": "python"}).encode()
    s = socket.create_connection(host_port())
    s.sendall(b"POST /run_code HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body))
    wait_for(lambda: health().get("queued") == 1)
    s.close()
    check("a queued request whose client left is dropped",
          wait_for(lambda: health().get("queued") == 0, 5), health())
    th.join()
    s = socket.create_connection(host_port())
    body = json.dumps({"code": "import time; time.sleep(60)", "language": "python",
                       "run_timeout": 50}).encode()
    s.sendall(b"POST /run_code HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body))
    wait_for(lambda: health().get("running") == 1)
    time.sleep(0.5)
    s.close()
    left = time.time()
    check("a running request whose client left is killed: its slot is free at once",
          wait_for(lambda: health().get("running") == 0, 10), health())
    r = requests.post(URL + "/run_code", json={"code": "print(3)", "language": "python"}, timeout=60)
    took = time.time() - left
    check("the next request runs then (%.1f s after the client left; the killed run slept 60 s)" % took,
          r.status_code == 200 and r.json()["run_result"]["stdout"] == "3\n" and took < 20, r.text)
    after = metric('sbx_runs_total{outcome="cancelled"}')
    check("both are counted as cancelled", after == before + 2, (before, after, res))


def group_busy():
    """-j 1, --http-queue 1, --http-busy-status 504: what verl's client retries."""
    res = {}
    threads = [post_async(res, "a", "A", "import time; time.sleep(3)")]
    wait_for(lambda: health().get("running") == 1)
    threads.append(post_async(res, "b", "B", "print('b')"))
    wait_for(lambda: health().get("queued") == 1)
    threads.append(post_async(res, "c", "C", "print('c')"))
    threads[-1].join()
    check("past the queue: 504 (--http-busy-status 504) with Retry-After",
          res["c"][0] == 504 and int(res["c"][3] or 0) >= 1, res.get("c"))
    for th in threads:
        th.join()
    check("the admitted requests are answered 200", res["a"][0] == 200 and res["b"][0] == 200, res)


def group_suite_slots(problems, samples):
    """-j 2: a suite asking 8 jobs holds 1 slot, and another client is served meanwhile."""
    res = {}

    def suite():
        r = requests.post(URL + "/v1/serve", json={"id": "s", "type": "suite", "suite": "humaneval",
                          "problems": problems, "samples": samples, "jobs": 8},
                          headers={"X-Sbx-Client": "S"}, timeout=120)
        res["suite"] = (r.status_code, r.text, time.time())
    th = threading.Thread(target=suite)
    th.start()
    check("a suite asking \"jobs\": 8 of a -j 2 server holds half its slots (1)",
          wait_for(lambda: health().get("slots_busy") == 1 and health().get("running") == 1), health())
    t0 = time.time()
    r = requests.post(URL + "/run_code", json={"code": "print(4)", "language": "python"},
                      headers={"X-Sbx-Client": "R"}, timeout=60)
    done = time.time()
    check("another client's run is served while the suite runs (%.1f s)" % (done - t0),
          r.status_code == 200 and r.json()["run_result"]["stdout"] == "4\n" and "suite" not in res, r.text)
    th.join()
    lines = [json.loads(x) for x in res["suite"][1].splitlines()]
    check("the suite runs to its end", res["suite"][0] == 200 and lines[-1]["type"] == "summary" and
          lines[-1]["summary"]["samples"] == 4, res["suite"][1][:2000])
    check("its slot is free again", wait_for(lambda: health().get("slots_busy") == 0, 10), health())


# ---- native --------------------------------------------------------------

def group_native(workdir, problems, samples):
    r = requests.post(URL + "/v1/serve", json={"id": 7, "type": "run", "code": "print(6 * 7)"}, timeout=30)
    j = r.json()
    check("/v1/serve run: --serve's result object", r.status_code == 200 and j["id"] == 7 and
          j["type"] == "result" and j["passed"] and j["stdout"] == "42\n", r.text)
    r = requests.post(URL + "/v1/serve", json={"id": "w", "type": "run_argv", "argv": ["python3", "-c",
                      "open('made', 'w').write('1')"], "workdir": workdir}, timeout=30)
    check("/v1/serve run_argv: runs in the caller's workdir", r.json().get("passed") and
          os.path.exists(os.path.join(workdir, "made")), r.text)
    r = requests.post(URL + "/v1/serve", json={"id": "s", "type": "suite", "suite": "humaneval",
                      "problems": problems, "samples": samples}, timeout=120)
    lines = [json.loads(x) for x in r.text.splitlines()]
    check("/v1/serve suite: records then the summary, as x-ndjson", r.status_code == 200 and
          r.headers["Content-Type"] == "application/x-ndjson" and
          [x["type"] for x in lines] == ["record", "record", "summary"] and
          lines[-1]["summary"]["passed"] == 1, r.text[:2000])
    r = requests.post(URL + "/v1/serve", data='{"id": 1, "type": "nope"}', timeout=10)
    check("/v1/serve, an unknown type: 400 with --serve's error line", r.status_code == 400 and
          r.json()["type"] == "error" and r.json()["id"] == 1, r.text)
    r = requests.post(URL + "/v1/serve", data='{"id": 1, "type": "run_argv", "argv": ["true"], '
                      '"workdir": "/nonexistent"}', timeout=10)
    check("/v1/serve, a workdir that is not there: 400", r.status_code == 400 and
          "not a directory" in r.json()["error"], r.text)


# ---- tokens --------------------------------------------------------------

def group_token(token):
    r = requests.post(URL + "/run_code", json={"code": "print(1)", "language": "python"}, timeout=10)
    check("no token: 401 with WWW-Authenticate", r.status_code == 401 and
          "Bearer" in r.headers.get("WWW-Authenticate", ""), r.text)
    r = requests.get(URL + "/health", timeout=10)
    check("no token: /health says only its status", r.status_code == 200 and r.json() == {"status": "ok"},
          r.text)
    check("no token: /metrics is refused", requests.get(URL + "/metrics").status_code == 401)
    r = requests.post(URL + "/run_code", json={"code": "print(1)", "language": "python"},
                      headers={"Authorization": "Bearer " + token[:-1] + "x"}, timeout=10)
    check("a wrong token: 401", r.status_code == 401)
    r = requests.post(URL + "/run_code", json={"code": "print(1)", "language": "python"},
                      headers={"Authorization": "Bearer " + token}, timeout=30)
    check("Bearer TOKEN: runs", r.status_code == 200 and r.json()["status"] == "Success", r.text)
    u = urllib.parse.urlparse(URL)
    with_auth = "%s://sbx:%s@%s:%d/run_code" % (u.scheme, token, u.hostname, u.port)
    r = requests.post(with_auth, json={"code": "print(2)", "language": "python"}, timeout=30)
    check("http://sbx:TOKEN@host/run_code (what verl's URL can carry): runs",
          r.status_code == 200 and r.json()["run_result"]["stdout"] == "2\n", r.text)


def main():
    global URL
    group, URL = sys.argv[1], sys.argv[2]
    groups = {"basic": group_basic, "files": group_files, "abuse": group_abuse,
              "admission": group_admission, "gone": group_gone, "native": group_native,
              "token": group_token, "busy": group_busy, "suite_slots": group_suite_slots}
    args = sys.argv[3:]
    if group == "abuse":
        args = [int(a) for a in args]
    try:
        groups[group](*args)
    except Exception as e:  # noqa: BLE001: a crash of the checks is a failure
        import traceback
        check("%s: the checks ran to the end" % group, False, traceback.format_exc())
        raise SystemExit(1) from e
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
