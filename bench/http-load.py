#!/usr/bin/python3
# A load client for sbx-run --http (docs/http.md): threads, each with its
# own kept-alive http.client connection (a new one after the server closed
# it), posting to /run_code. Standard library only.
#
#   http-load.py latency URL PROGRAM_DIR CONCURRENCY
#       every *.py of PROGRAM_DIR once (HumanEval's 164 programs, say), at
#       most CONCURRENCY in flight; one JSON line: samples/s, p50, p99,
#       how many passed
#   http-load.py flood URL REQUESTS CONCURRENCY [SERVER_PID [clients]]
#       REQUESTS small programs from CONCURRENCY threads at once (one
#       client, or with "clients" each thread a client of its own); one
#       JSON line: answers by HTTP status, transport errors, and with
#       SERVER_PID the server's open fds, threads, children and RSS before
#       (after a warm-up), at most during, and after
#
# "Every accepted request answered once": each request gets exactly one
# HTTP answer (an error is counted, never retried), 200s carry a
# SandboxFusion answer, the rest are 429/503.
import http.client
import json
import os
import sys
import threading
import time
import urllib.parse


class Client:
    def __init__(self, url, label=None):
        u = urllib.parse.urlparse(url)
        self.host, self.port = u.hostname, u.port
        self.conn = None
        self.headers = {"Content-Type": "application/json"}
        if label:
            self.headers["X-Sbx-Client"] = label

    def post(self, body):
        """(status, parsed JSON or None); (None, error text) on a transport
        error, never retried: a request is sent once."""
        if self.conn is None:
            self.conn = http.client.HTTPConnection(self.host, self.port, timeout=120)
        try:
            self.conn.request("POST", "/run_code", body=body, headers=self.headers)
            r = self.conn.getresponse()
            data = r.read()
            if r.getheader("Connection", "").lower() == "close":
                self.close()
            try:
                return r.status, json.loads(data)
            except ValueError:
                return r.status, None
        except (ConnectionError, http.client.HTTPException, OSError) as e:
            self.close()
            return None, "%s: %s" % (type(e).__name__, e)

    def close(self):
        if self.conn is not None:
            self.conn.close()
        self.conn = None


def quantile(xs, q):
    xs = sorted(xs)
    if not xs:
        return 0.0
    k = max(0, min(len(xs) - 1, int(-(-q * len(xs) // 1)) - 1))
    return xs[k]


def run_pool(url, bodies, concurrency, on_answer, labels=False):
    """Posts every body once from concurrency threads; on_answer(i, status,
    answer, seconds). labels: each thread a client of its own (X-Sbx-Client)."""
    lock = threading.Lock()
    next_i = [0]

    def worker(k):
        c = Client(url, "client-%d" % k if labels else None)
        while True:
            with lock:
                i = next_i[0]
                next_i[0] += 1
            if i >= len(bodies):
                break
            t = time.monotonic()
            status, answer = c.post(bodies[i])
            on_answer(i, status, answer, time.monotonic() - t)
        c.close()
    threads = [threading.Thread(target=worker, args=(k,)) for k in range(concurrency)]
    t0 = time.monotonic()
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    return time.monotonic() - t0


def latency(url, program_dir, concurrency):
    names = sorted(n for n in os.listdir(program_dir) if n.endswith(".py"))
    bodies = [json.dumps({"code": open(os.path.join(program_dir, n)).read(), "language": "python",
                          "run_timeout": 10}).encode() for n in names]
    lat, passed, errors = [0.0] * len(bodies), [0], [0]
    lock = threading.Lock()

    def on_answer(i, status, answer, secs):
        lat[i] = secs
        with lock:
            if status == 200 and answer and answer.get("status") == "Success":
                passed[0] += 1
            elif status != 200:
                errors[0] += 1
    wall = run_pool(url, bodies, concurrency, on_answer)
    print(json.dumps({"mode": "latency", "concurrency": concurrency, "n": len(bodies),
                      "wall_s": round(wall, 4), "samples_per_s": round(len(bodies) / wall, 2),
                      "p50_s": round(quantile(lat, 0.5), 4), "p99_s": round(quantile(lat, 0.99), 4),
                      "passed": passed[0], "not_200": errors[0]}))


def proc_stats(pid):
    try:
        fds = len(os.listdir("/proc/%d/fd" % pid))
        threads = len(os.listdir("/proc/%d/task" % pid))
        rss = 0
        for line in open("/proc/%d/status" % pid):
            if line.startswith("VmRSS:"):
                rss = int(line.split()[1])
        children = 0
        for t in os.listdir("/proc/%d/task" % pid):
            children += len(open("/proc/%d/task/%s/children" % (pid, t)).read().split())
        return {"fds": fds, "threads": threads, "rss_kb": rss, "children": children}
    except OSError:
        return None


def flood(url, n, concurrency, pid, labels):
    bodies = [json.dumps({"code": "print(%d)" % i, "language": "python"}).encode() for i in range(n)]
    # a warm-up first, so that the zygotes the server keeps are there before
    run_pool(url, bodies[:50], 2, lambda *a: None)
    statuses, errors, wrong = {}, {}, [0]
    seen = [0] * n
    lock = threading.Lock()

    def on_answer(i, status, answer, secs):
        with lock:
            seen[i] += 1
            if status is None:
                errors[answer] = errors.get(answer, 0) + 1
                return
            statuses[status] = statuses.get(status, 0) + 1
            if status == 200 and not (answer and answer.get("status") == "Success" and
                                      answer["run_result"]["stdout"] == "%d\n" % i):
                wrong[0] += 1
    before = proc_stats(pid) if pid else None
    peak = {}
    stop = threading.Event()

    def sample():
        while not stop.is_set():
            s = proc_stats(pid)
            for k, v in (s or {}).items():
                peak[k] = max(peak.get(k, 0), v)
            time.sleep(0.2)
    sampler = threading.Thread(target=sample)
    if pid:
        sampler.start()
    wall = run_pool(url, bodies, concurrency, on_answer, labels)
    stop.set()
    if pid:
        sampler.join()
        time.sleep(1)       # the last connections close
    after = proc_stats(pid) if pid else None
    print(json.dumps({"mode": "flood", "n": n, "concurrency": concurrency, "clients": concurrency if labels else 1,
                      "wall_s": round(wall, 3),
                      "status": {str(k): v for k, v in sorted(statuses.items())},
                      "transport_errors": errors, "wrong_answers": wrong[0],
                      "answered_once": all(x == 1 for x in seen),
                      "server_before": before, "server_peak": peak or None, "server_after": after}))


def main():
    mode, url = sys.argv[1], sys.argv[2]
    if mode == "latency":
        latency(url, sys.argv[3], int(sys.argv[4]))
    elif mode == "flood":
        flood(url, int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]) if len(sys.argv) > 5 else 0,
              len(sys.argv) > 6 and sys.argv[6] == "clients")
    else:
        sys.exit("usage: http-load.py latency URL PROGRAM_DIR CONCURRENCY | "
                 "flood URL N CONCURRENCY [PID [clients]]")


if __name__ == "__main__":
    main()
