"""One `sbx-run --serve` process and the requests multiplexed over it.

Any number of threads may call request() at once: a lock serialises the
writes, one reader thread hands each response to the caller whose id it
carries. When the server dies, every caller waiting on it gets SbxError.
"""
import itertools
import json
import os
import shutil
import subprocess
import threading
from collections import deque

from . import _paths

STDERR_TAIL_LINES = 20


class SbxError(RuntimeError):
    """sbx-run could not be started, refused its options, or died."""


def find_sbx_run(explicit=None):
    """explicit, else $SBX_RUN, else the path `make install` wrote, else PATH."""
    for cand in (explicit, os.environ.get("SBX_RUN"), _paths.SBX_RUN):
        if cand:
            if not (os.path.isfile(cand) and os.access(cand, os.X_OK)):
                raise SbxError("sbx-run not found at %s" % cand)
            return cand
    found = shutil.which("sbx-run")
    if not found:
        raise SbxError("sbx-run not found: install sbx, put sbx-run on PATH "
                       "or set SBX_RUN")
    return found


class _Pending:
    __slots__ = ("event", "response", "records")

    def __init__(self, stream=False):
        self.event = threading.Event()
        self.response = None
        self.records = deque() if stream else None


class Server:
    """A running `sbx-run --serve ARGS`; ready holds its "ready" line."""

    def __init__(self, sbx_run, args, env=None):
        self._ids = itertools.count(1)
        self._lock = threading.Lock()          # writes, _pending, _dead
        self._pending = {}
        self._dead = None                       # why, once the server is gone
        self._stderr = deque(maxlen=STDERR_TAIL_LINES)
        self._ready = threading.Event()
        self.ready = None
        self.argv = [sbx_run, "--serve"] + list(args)
        try:
            self._proc = subprocess.Popen(
                self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                stderr=subprocess.PIPE, env=env, close_fds=True)
        except OSError as e:
            raise SbxError("cannot start %s: %s" % (sbx_run, e)) from e
        self._reader = threading.Thread(target=self._read_stdout,
                                        name="sbx-serve-reader", daemon=True)
        self._errreader = threading.Thread(target=self._read_stderr,
                                           name="sbx-serve-stderr", daemon=True)
        # stderr's reader first: the stdout reader joins it when the server
        # ends, which may be at once (a refusal at start-up).
        self._errreader.start()
        self._reader.start()
        self._ready.wait()
        if self.ready is None:
            self._proc.wait()
            raise SbxError(self._dead or "sbx-run --serve did not start")

    @property
    def pid(self):
        return self._proc.pid

    def alive(self):
        return self._dead is None and self._proc.poll() is None

    def _read_stderr(self):
        for raw in self._proc.stderr:
            line = raw.decode("utf-8", "replace").rstrip("\n")
            if line:
                self._stderr.append(line)

    def _dispatch(self, msg):
        if msg.get("type") == "ready":
            self.ready = msg
            self._ready.set()
            return
        rid = msg.get("id")
        if rid is None:
            if not self._ready.is_set():        # a fatal start-up error
                self._dead = msg.get("error")
                self._ready.set()
            return
        with self._lock:
            p = self._pending.get(rid)
            if p is None:
                return
            if msg.get("type") == "record" and p.records is not None:
                p.records.append(msg["record"])
                p.event.set()
                return
            p.response = msg
            del self._pending[rid]
        p.event.set()

    def _read_stdout(self):
        try:
            for raw in self._proc.stdout:
                try:
                    msg = json.loads(raw)
                except ValueError:
                    continue
                self._dispatch(msg)
        finally:
            self._server_gone()

    def _server_gone(self):
        """Wakes every waiter with the reason, whatever ended the reading."""
        rc = self._proc.wait()
        self._errreader.join(timeout=5)
        why = "sbx-run --serve exited (%s)" % (
            "signal %d" % -rc if rc < 0 else "status %d" % rc)
        if self._stderr:
            why += ": " + self._stderr[-1]
        with self._lock:
            self._dead = self._dead or why
            pending, self._pending = self._pending, {}
        self._ready.set()
        for p in pending.values():
            p.event.set()

    def send(self, request, stream=False):
        """Sends request (a dict without id); returns its _Pending."""
        p = _Pending(stream)
        with self._lock:
            if self._dead:
                raise SbxError(self._dead)
            rid = next(self._ids)
            self._pending[rid] = p
            line = json.dumps(dict(request, id=rid), ensure_ascii=False)
            try:
                self._proc.stdin.write(line.encode("utf-8", "surrogatepass") + b"\n")
                self._proc.stdin.flush()
            except (OSError, ValueError) as e:
                del self._pending[rid]
                raise SbxError("sbx-run --serve is gone: %s" % (self._dead or e)) from e
        return p

    def wait(self, p):
        p.event.wait()
        if p.response is None:
            raise SbxError(self._dead or "sbx-run --serve is gone")
        return p.response

    def request(self, request):
        return self.wait(self.send(request))

    def stream(self, request):
        """Yields the "record" responses of request, then returns the last."""
        p = self.send(request, stream=True)
        while True:
            p.event.wait()
            with self._lock:
                records = list(p.records)
                p.records.clear()
                p.event.clear()
                response, dead = p.response, self._dead
            for r in records:
                yield r
            if response is not None:
                return response
            if dead is not None:
                raise SbxError(dead)

    def close(self, kill=False):
        """EOF on stdin: runs in flight finish, then the server exits."""
        if kill and self._proc.poll() is None:
            self._proc.kill()
        try:
            self._proc.stdin.close()
        except OSError:
            pass
        self._proc.wait()
        self._reader.join(timeout=10)
        for f in (self._proc.stdout, self._proc.stderr):
            try:
                f.close()
            except OSError:
                pass
