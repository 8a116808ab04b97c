"""sbx.evaluate: score a suite (as `sbx-run --suite`) through --serve."""
import json
import os
import tempfile

from ._client import Server, find_sbx_run


class Evaluation:
    """Iterates over result records as they end; .summary is the summary
    dict once the iteration is over."""

    def __init__(self, server, request, tmpdir):
        self.summary = None
        self._server = server
        self._gen = server.stream(request)
        self._tmpdir = tmpdir

    def __iter__(self):
        return self

    def __next__(self):
        try:
            return next(self._gen)
        except StopIteration as stop:
            self._finish(stop.value)
            raise

    def _finish(self, response):
        try:
            if response.get("type") != "summary":
                from ._client import SbxError
                raise SbxError(response.get("error", "suite failed"))
            self.summary = response["summary"]
        finally:
            self.close()

    def close(self):
        if self._server is not None:
            self._server.close(kill=self.summary is None)
            self._server = None
        if self._tmpdir is not None:
            self._tmpdir.cleanup()
            self._tmpdir = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def _samples_path(samples, tmpdir):
    if isinstance(samples, (str, os.PathLike)):
        return os.path.abspath(os.fspath(samples))
    path = os.path.join(tmpdir.name, "samples.jsonl")
    with open(path, "w", encoding="utf-8") as f:
        for s in samples:
            f.write(json.dumps(s) + "\n")
    return path


_IO_SUITES = ("codecontests", "apps", "taco", "livecodebench", "io")


def _suite_name(suite, language):
    """("humaneval-x", "cpp") -> "humaneval-x-cpp", as sbx-run --suite
    humaneval-x --language cpp. An io suite keeps its name: its language is
    the request's (a sample's own "language" comes first)."""
    suite = os.fspath(suite)
    if language is None or suite in _IO_SUITES:
        return suite
    if suite != "humaneval-x":
        raise ValueError("language= goes with suite=\"humaneval-x\" or an io suite (got %r): "
                         "give the suite's own name instead" % suite)
    return "%s-%s" % (suite, language)


_IO_FIELDS = ("all_tests", "test_timeout", "time_scale", "compare", "checker", "io_format")


def evaluate_iter(suite, samples=None, problems=None, k=(1, 10, 100), jobs=None,
                  *, out=None, timeout=None, isolation=None, require=None,
                  warm=True, sbx_run=None, language=None, all_tests=None,
                  test_timeout=None, time_scale=None, compare=None, checker=None,
                  io_format=None):
    """Like evaluate(), but returns an Evaluation: iterate over it for the
    result records as they end; its .summary is set at the end. The samples
    run through sbx's zygotes (docs/warm.md), as `sbx-run --suite` runs
    them; warm=False gives each its own sandbox (`--cold`). language picks
    HumanEval-X's language (suite="humaneval-x", language="cpp" is
    "humaneval-x-cpp"); its programs are built in the sandbox first. The
    io suites (codecontests, apps, taco, livecodebench, io) take all_tests,
    test_timeout, time_scale, compare, checker and io_format, as sbx-run's
    options of those names, and language: the language of a sample without
    a "language" of its own (sbx-run --language)."""
    suite = _suite_name(suite, language)
    args = [] if warm else ["--cold"]
    if jobs:
        args += ["-j", str(int(jobs))]
    if isolation:
        args += ["--tier", isolation]
    if require:
        args += ["--require-tier", require]
    req = {"type": "suite", "suite": os.fspath(suite),
           "k": ",".join(str(int(x)) for x in k)}
    tmpdir = None
    if samples is None:
        req["canonical"] = True
    else:
        if not isinstance(samples, (str, os.PathLike)):
            tmpdir = tempfile.TemporaryDirectory(prefix="sbx-evaluate-")
        req["samples"] = _samples_path(samples, tmpdir)
    if problems is not None:
        req["problems"] = os.path.abspath(os.fspath(problems))
    if out is not None:
        req["out"] = os.path.abspath(os.fspath(out))
    if timeout is not None:
        req["timeout"] = float(timeout)
    if jobs:
        req["jobs"] = int(jobs)
    if language is not None and os.fspath(suite) in _IO_SUITES:
        req["language"] = str(language)
    io = dict(all_tests=all_tests, test_timeout=test_timeout, time_scale=time_scale,
              compare=compare, checker=checker, io_format=io_format)
    for key in _IO_FIELDS:
        if io[key] is not None:
            v = io[key]
            req[key] = (bool(v) if key == "all_tests" else float(v) if key in ("test_timeout", "time_scale")
                        else os.path.abspath(os.fspath(v)) if key == "checker" else str(v))
    server = Server(find_sbx_run(sbx_run), args + ["--quiet"])
    return Evaluation(server, req, tmpdir)


def evaluate(suite, samples=None, problems=None, k=(1, 10, 100), jobs=None, **kw):
    """Scores samples (a JSONL path, or an iterable of dicts; None = the
    suite's reference solutions) and returns the summary dict (pass@k,
    per-task counts) that `sbx-run --suite --json` prints."""
    with evaluate_iter(suite, samples, problems, k, jobs, **kw) as ev:
        for _ in ev:
            pass
        return ev.summary
