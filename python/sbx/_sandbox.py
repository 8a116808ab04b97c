"""Sandbox and ExecResult: llama-eval's `Sandbox` interface, served by
`sbx-run --serve` (one server per Sandbox, shared by every thread)."""
import hashlib
import os
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from ._client import Server, SbxError, find_sbx_run

TIERS = ("helper", "bwrap", "unshare", "unshare-root", "rlimit")


def _add_stdin(req, stdin):
    """The request's "stdin": text travels in JSON, so bytes must be UTF-8
    and no NUL may be in it (sbx-run's JSON reader ends a string there)."""
    if stdin is None:
        return
    if isinstance(stdin, (bytes, bytearray)):
        stdin = bytes(stdin).decode("utf-8")
    if not isinstance(stdin, str):
        raise TypeError("stdin must be str, bytes or None, not %s" % type(stdin).__name__)
    if "\0" in stdin:
        raise ValueError("stdin must not hold a NUL character")
    req["stdin"] = stdin


@dataclass
class ExecResult:
    passed: bool
    status: str                 # "ok" | "failed" | "timeout" | "error"
    stdout: str = ""
    stderr: str = ""
    returncode: Optional[int] = None
    duration: float = 0.0
    # sbx's additions
    tier: str = ""
    cpu: float = 0.0
    max_rss_kb: int = 0
    signal: int = 0
    truncated: bool = False
    detail: str = ""
    # a program in another language than Python (run(..., language=)):
    # its language and its build, {"status": "compiled" | "cached" |
    # "compile_error" | ..., "cached", "duration", "cpu", "detail",
    # "message": the compiler's}; a compile error has passed False
    language: str = ""
    compile: Optional[dict] = None

    def summary(self, max_chars=400):
        """"ok"; "timeout"; else the last non-empty line of stderr (or
        stdout), cut to max_chars; else "<status> (rc=<returncode>)"."""
        if self.status == "ok":
            return "ok"
        if self.status == "timeout":
            return "timeout"
        for text in (self.stderr, self.stdout):
            for line in reversed((text or "").splitlines()):
                if line.strip():
                    return line.strip()[:max_chars]
        return "%s (rc=%s)" % (self.status, self.returncode)

    @classmethod
    def from_response(cls, msg):
        if msg.get("type") == "error":
            return cls(passed=False, status="error", stderr=msg.get("error", ""),
                       detail=msg.get("error", ""))
        return cls(passed=bool(msg["passed"]), status=msg["status"],
                   stdout=msg.get("stdout", ""), stderr=msg.get("stderr", ""),
                   returncode=msg.get("returncode"),
                   duration=float(msg.get("duration", 0.0)),
                   tier=msg.get("tier", ""), cpu=float(msg.get("cpu", 0.0)),
                   max_rss_kb=int(msg.get("max_rss_kb", 0)),
                   signal=int(msg.get("signal", 0)),
                   truncated=bool(msg.get("truncated", False)),
                   detail=msg.get("detail", ""),
                   language=msg.get("language", ""), compile=msg.get("compile"))


def _check_tier(what, tier):
    if tier is not None and tier not in TIERS:
        raise ValueError("%s=%r: not one of %s" % (what, tier, ", ".join(TIERS)))


class Sandbox:
    """A cached venv NAME (built by ensure()) and a sandbox to run code in.

    Thread-safe: concurrent run() calls share one `sbx-run --serve`, which
    runs up to `jobs` of them at once (default: the number of CPUs)."""

    def __init__(self, name, packages=None, cache_root=None, base_python=None,
                 isolation=None, provision=None, env=None,
                 address_space_limit=4 * 1024 ** 3, *, require=None, jobs=None,
                 max_output=None, sbx_run=None):
        _check_tier("isolation", isolation)
        _check_tier("require", require)
        if jobs is not None and int(jobs) < 1:
            raise ValueError("jobs=%r: must be at least 1" % (jobs,))
        self.name = name
        self.packages = list(packages or ())
        self.cache_root = Path(cache_root) if cache_root else None
        self.base_python = base_python
        self.provision = list(provision or ())
        self.env = dict(env or {})
        self.address_space_limit = address_space_limit
        self.require = require
        self.jobs = jobs
        self.max_output = max_output
        self._isolation = isolation
        self._sbx_run = sbx_run
        self._lock = threading.Lock()
        self._servers = {}              # ro_binds tuple -> Server
        self._python = None
        self._tier = None
        self._closed = False

    # -- the server ---------------------------------------------------------
    def _provision_files(self):
        """Python source strings become files under the cache (the venv
        stamp hashes their content, not their path); Paths are used as is."""
        files = []
        root = self._cache_dir() / ".sbx-provision"
        for item in self.provision:
            if isinstance(item, os.PathLike):
                files.append(os.fspath(item))
                continue
            text = str(item)
            path = root / (hashlib.sha256(text.encode()).hexdigest()[:24] + ".py")
            if not path.exists():
                root.mkdir(parents=True, exist_ok=True)
                tmp = path.with_suffix(".tmp%d" % os.getpid())
                tmp.write_text(text)
                os.replace(tmp, path)
            files.append(str(path))
        return files

    def _cache_dir(self):
        if self.cache_root:
            return self.cache_root
        for var in ("SBX_CACHE", "LLAMA_EVAL_CACHE"):
            if os.environ.get(var):
                return Path(os.environ[var])
        return Path.home() / ".cache" / "sbx"

    def _args(self, ro_binds, rebuild, quiet):
        args = ["--venv", self.name]
        for p in self.packages:
            args += ["--package", p]
        for f in self._provision_files():
            args += ["--provision", f]
        if self.base_python:
            args += ["--python", str(self.base_python)]
        if self._isolation:
            args += ["--tier", self._isolation]
        if self.require:
            args += ["--require-tier", self.require]
        if self.address_space_limit is None:
            args += ["--memory", "none"]
        else:
            args += ["--memory", str(int(self.address_space_limit))]
        if self.max_output:
            args += ["--max-output", str(int(self.max_output))]
        if self.jobs:
            args += ["-j", str(int(self.jobs))]
        for k, v in self.env.items():
            args += ["--env", "%s=%s" % (k, v)]
        for b in ro_binds:
            args += ["--ro-bind", b]
        if rebuild:
            args.append("--rebuild")
        if quiet:
            args.append("--quiet")
        return args

    def _server_env(self):
        env = dict(os.environ)
        if self.cache_root:
            env["SBX_CACHE"] = str(self.cache_root)
        return env

    def _server(self, ro_binds=(), rebuild=False, quiet=True):
        ro_binds = tuple(os.path.abspath(os.fspath(b)) for b in ro_binds)
        with self._lock:
            if self._closed:
                raise SbxError("Sandbox %r is closed" % self.name)
            srv = self._servers.get(ro_binds)
            if srv is not None and srv.alive() and not rebuild:
                return srv
            if srv is not None:
                srv.close(kill=not srv.alive())
            srv = Server(find_sbx_run(self._sbx_run),
                         self._args(ro_binds, rebuild, quiet), self._server_env())
            self._servers[ro_binds] = srv
            self._python = Path(srv.ready["python"])
            self._tier = srv.ready["tier"]
            return srv

    # -- llama-eval's interface ----------------------------------------------
    def ensure(self, force=False, quiet=False):
        """Builds the venv (or reuses it while its stamp matches: packages,
        base interpreter, provisioning) and returns its python."""
        self._server(rebuild=force, quiet=quiet)
        return self._python

    @property
    def python(self):
        if self._python is None:
            raise RuntimeError("Sandbox %r: call ensure() first" % self.name)
        return self._python

    @property
    def isolation(self):
        """The tier that actually runs (ensure()s the sandbox first)."""
        if self._tier is None:
            self.ensure(quiet=True)
        return self._tier

    def run(self, code, timeout=15.0, env=None, language=None, stdin=None):
        """Runs code (`python -I -B`) in a fresh throwaway workdir; exit 0
        passes. The code travels in the request, never on argv. language
        ("cpp", "java", "js", "go", "rust", "c", ...; docs/languages.md)
        builds it first, in the sandbox, from the compile cache when it was
        built before: the result's .compile says how it went. stdin (a str,
        or UTF-8 bytes) is the program's input; None: /dev/null."""
        req = {"type": "run", "code": code, "timeout": float(timeout)}
        if language is not None:
            req["language"] = str(language)
        if env:
            req["env"] = {str(k): str(v) for k, v in env.items()}
        _add_stdin(req, stdin)
        return ExecResult.from_response(self._server().request(req))

    def run_argv(self, argv, workdir, timeout=15.0, env=None, ro_binds=(), stdin=None):
        """Runs argv in workdir (yours: it stays writable and survives);
        "python" as argv[0] is the sandbox's interpreter; stdin as run's."""
        req = {"type": "run_argv", "argv": [os.fspath(a) for a in argv],
               "workdir": os.path.abspath(os.fspath(workdir)),
               "timeout": float(timeout)}
        if env:
            req["env"] = {str(k): str(v) for k, v in env.items()}
        _add_stdin(req, stdin)
        return ExecResult.from_response(self._server(ro_binds).request(req))

    # -- sbx's additions -----------------------------------------------------
    def server_pids(self):
        """The pids of this Sandbox's sbx-run --serve processes."""
        with self._lock:
            return [s.pid for s in self._servers.values()]

    def close(self):
        """Lets runs in flight finish, then stops the servers."""
        with self._lock:
            self._closed = True
            servers, self._servers = list(self._servers.values()), {}
        for s in servers:
            s.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass
