"""The sbx Python package against the installed helper (run as the
unprivileged test user by serve.t): every method and field of Sandbox and
ExecResult, concurrency over one server, a server and a client killed mid-run,
hostile requests straight to `sbx-run --serve`, and sbx.evaluate.

Needs SBX_RUN (the sbx-run under test) and a writable TMPDIR."""
import gzip
import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

import pytest

import sbx
from sbx import ExecResult, Sandbox, SbxError

SBX_RUN = os.environ.get("SBX_RUN")
DATA = os.environ.get("SBX_DATA", "")
HUMANEVAL = os.path.join(DATA, "humaneval", "HumanEval.jsonl.gz")  # shipped in suites/
GONE_WITHIN_S = 1.0                     # the bound for a dead client

pytestmark = pytest.mark.skipif(not SBX_RUN, reason="SBX_RUN not set (run through serve.t)")


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    return tmp_path_factory.mktemp("cache")


@pytest.fixture(scope="module")
def sb(cache):
    with Sandbox("tests", cache_root=cache) as s:
        s.ensure(quiet=True)
        yield s


def poll_until(cond, bound_s):
    end = time.monotonic() + bound_s
    while time.monotonic() < end:
        if cond():
            return True
        time.sleep(0.02)
    return cond()


def pid_alive(pid):
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().split(") ")[1][0] != "Z"
    except (FileNotFoundError, IndexError):
        return False


def pids_with(marker):
    found = []
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open("/proc/%s/cmdline" % d, "rb") as f:
                    if marker.encode() in f.read() and int(d) != os.getpid():
                        found.append(int(d))
            except OSError:
                pass
    return [p for p in found if pid_alive(p)]


# ---- ExecResult --------------------------------------------------------------
def test_summary_rules():
    assert ExecResult(True, "ok").summary() == "ok"
    assert ExecResult(False, "timeout", stderr="x\n").summary() == "timeout"
    r = ExecResult(False, "failed", stdout="out\n", stderr="a\nlast line\n\n  \n")
    assert r.summary() == "last line"
    assert ExecResult(False, "failed", stdout="only out\n").summary() == "only out"
    assert ExecResult(False, "failed", stderr="x" * 1000).summary(max_chars=10) == "x" * 10
    assert len(ExecResult(False, "failed", stderr="y" * 1000).summary()) == 400
    assert ExecResult(False, "failed", returncode=3).summary() == "failed (rc=3)"
    assert ExecResult(False, "error").summary() == "error (rc=None)"


def test_exec_result_defaults():
    r = ExecResult(passed=False, status="failed")
    assert (r.stdout, r.stderr, r.returncode, r.duration) == ("", "", None, 0.0)
    assert (r.tier, r.cpu, r.max_rss_kb, r.signal, r.truncated) == ("", 0.0, 0, 0, False)


# ---- ensure, python, isolation ----------------------------------------------
def test_python_before_ensure_is_runtime_error(cache):
    s = Sandbox("fresh", cache_root=cache)
    with pytest.raises(RuntimeError):
        s.python
    s.close()


def test_ensure_builds_then_reuses_by_stamp(cache):
    with Sandbox("stamped", cache_root=cache) as s:
        py = s.ensure(quiet=True)
        assert py == s.python
        assert Path(py).is_absolute() and str(py).startswith(str(cache / "stamped"))
        stamp = cache / "stamped" / ".sbx-stamp"
        first = stamp.stat()
    with Sandbox("stamped", cache_root=cache) as s:
        s.ensure(quiet=True)                    # same spec: reused
        assert stamp.stat().st_mtime_ns == first.st_mtime_ns
        assert s.run("import sys; print(sys.prefix)").stdout.strip() == str(cache / "stamped")
        s.ensure(force=True, quiet=True)        # forced: rebuilt
        assert stamp.stat().st_mtime_ns != first.st_mtime_ns
    with Sandbox("stamped", cache_root=cache,
                 provision=["open(__import__('os').environ['SANDBOX_VENV'] + '/p', 'w')"]) as s:
        s.ensure(quiet=True)                    # provisioning changed: rebuilt
        assert (cache / "stamped" / "p").exists()


def test_isolation_is_the_tier_that_runs(sb):
    assert sb.isolation in sbx._sandbox.TIERS
    assert sb.run("pass").tier == sb.isolation


def test_isolation_forces_a_tier(cache):
    with Sandbox("tests", cache_root=cache, isolation="rlimit") as s:
        assert s.isolation == "rlimit"
        assert s.run("print(1)").tier == "rlimit"


def test_require_refuses_a_weaker_tier(cache):
    with Sandbox("tests", cache_root=cache, isolation="rlimit", require="helper") as s:
        with pytest.raises(SbxError):
            s.ensure(quiet=True)


def test_bad_tier_name_is_value_error():
    with pytest.raises(ValueError):
        Sandbox("x", isolation="docker")


# ---- run ------------------------------------------------------------------
def test_run_ok_and_fields(sb):
    r = sb.run("import sys; print('out'); print('err', file=sys.stderr)")
    assert r.passed and r.status == "ok" and r.returncode == 0
    assert r.stdout == "out\n" and r.stderr == "err\n"
    assert r.duration > 0 and r.cpu >= 0 and r.max_rss_kb > 0
    assert r.signal == 0 and r.truncated is False and r.tier == sb.isolation
    assert r.summary() == "ok"


def test_run_failed(sb):
    r = sb.run("raise ValueError('boom')")
    assert not r.passed and r.status == "failed" and r.returncode == 1
    assert r.summary() == "ValueError: boom"


def test_run_timeout(sb):
    r = sb.run("import time; time.sleep(30)", timeout=0.5)
    assert r.status == "timeout" and not r.passed and r.summary() == "timeout"


def test_run_signal(sb):
    r = sb.run("import os, signal; os.kill(os.getpid(), signal.SIGKILL)")
    assert r.status == "failed" and r.signal == 9 and r.returncode == -9


def test_run_truncated(sb):
    r = sb.run("import sys; sys.stdout.write('x' * (3 << 20))")
    assert r.truncated and len(r.stdout) <= 1 << 20


def test_run_is_isolated_and_stdin_is_empty(sb):
    r = sb.run("import sys, os; print(repr(sys.stdin.read())); print(sys.flags.isolated, "
               "sys.dont_write_bytecode); print(sorted(os.listdir('.')))")
    lines = r.stdout.splitlines()
    assert lines[0] == "''" and lines[1] == "1 True"


def test_run_stdin(sb, tmp_path):
    r = sb.run("n = int(input()); print(sum(map(int, input().split())) * n)", stdin="2\n1 2 3\n")
    assert r.passed and r.stdout == "12\n"
    r = sb.run("import sys; print(len(sys.stdin.buffer.read()))", stdin=("x" * 999999 + "\n").encode())
    assert r.stdout == "1000000\n"
    r = sb.run("input(); input()", stdin="only one line\n")
    assert r.status == "failed" and "EOFError" in r.stderr
    r = sb.run_argv(["/bin/cat"], workdir=tmp_path, stdin="to cat\n")
    assert r.stdout == "to cat\n"
    with pytest.raises(ValueError):
        sb.run("pass", stdin="a\0b")
    with pytest.raises(TypeError):
        sb.run("pass", stdin=5)


def test_run_env(cache):
    with Sandbox("tests", cache_root=cache, env={"BASE": "b"}) as s:
        r = s.run("import os; print(os.environ.get('BASE'), os.environ.get('PER'))",
                  env={"PER": "p q"})
        assert r.stdout == "b p q\n"
        assert s.run("import os; print(os.environ.get('PER'))").stdout == "None\n"


def test_run_10mb_program(sb):
    code = "x = '" + "a" * (10 * 1000 * 1000) + "'\nprint(len(x))\n"
    r = sb.run(code, timeout=20)
    assert r.passed, r.summary()
    assert r.stdout == "10000000\n"


def test_address_space_limit(cache):
    grab = "import mmap; m = mmap.mmap(-1, 6 << 30); print('mapped')"
    with Sandbox("tests", cache_root=cache) as s:          # default: 4 GiB
        r = s.run(grab)
        assert not r.passed and "mapped" not in r.stdout
    with Sandbox("tests", cache_root=cache, address_space_limit=None) as s:
        r = s.run(grab)
        assert r.passed and r.stdout == "mapped\n", r.summary()


# ---- run_argv -----------------------------------------------------------------
def test_run_argv_workdir_is_writable_and_survives(sb, tmp_path):
    (tmp_path / "in.txt").write_text("data")
    r = sb.run_argv(["python", "-c", "open('out.txt', 'w').write(open('in.txt').read() * 2)"],
                    tmp_path)
    assert r.passed, r.summary()
    assert (tmp_path / "out.txt").read_text() == "datadata"


def test_run_argv_env_and_timeout(sb, tmp_path):
    r = sb.run_argv(["python", "-c", "import os; print(os.environ['K'])"], tmp_path,
                    env={"K": "v"})
    assert r.stdout == "v\n"
    r = sb.run_argv(["python", "-c", "import time; time.sleep(30)"], tmp_path, timeout=0.5)
    assert r.status == "timeout"


def test_run_argv_ro_binds(sb, tmp_path):
    if sb.isolation not in ("helper", "bwrap"):
        pytest.skip("ro_binds are enforced by the helper and bwrap tiers only; "
                    "this host runs %s" % sb.isolation)
    shared = tmp_path / "shared"
    shared.mkdir()
    (shared / "f").write_text("ro")
    work = tmp_path / "work"
    work.mkdir()
    prog = ("import sys\nprint(open(sys.argv[1] + '/f').read())\n"
            "try:\n open(sys.argv[1] + '/g', 'w')\nexcept OSError as e:\n print('refused')\n")
    r = sb.run_argv(["python", "-c", prog, str(shared)], work, ro_binds=[shared])
    assert r.stdout == "ro\nrefused\n", (r.stdout, r.stderr)
    assert not (shared / "g").exists()


def test_run_argv_bad_workdir_is_an_error_result(sb, tmp_path):
    r = sb.run_argv(["python", "-c", "1"], tmp_path / "missing")
    assert r.status == "error" and "not a directory" in r.stderr


# ---- concurrency, close ------------------------------------------------------
def test_concurrent_runs_from_8_threads(sb):
    results = {}
    servers = sb.server_pids()

    def worker(t):
        for i in range(4):
            tag = "%d-%d" % (t, i)
            results[tag] = sb.run("print(%r)" % tag)

    threads = [threading.Thread(target=worker, args=(t,)) for t in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(results) == 32
    for tag, r in results.items():
        assert r.passed and r.stdout == tag + "\n"
    assert sb.server_pids() == servers         # one server, multiplexed


def test_close_drains_runs_in_flight(cache):
    s = Sandbox("tests", cache_root=cache)
    s.ensure(quiet=True)
    out = []
    t = threading.Thread(target=lambda: out.append(s.run("import time; time.sleep(1); print('done')")))
    t.start()
    time.sleep(0.3)
    s.close()
    t.join()
    assert out and out[0].passed and out[0].stdout == "done\n"
    with pytest.raises(SbxError):
        s.run("pass")


# ---- death of either side ----------------------------------------------------
def test_server_refusing_at_start_raises_with_its_reason(tmp_path):
    # A server that exits before its ready line (sbx-run refusing root, a
    # bad option): the client raises with the server's last stderr line,
    # instead of waiting for a ready line that never comes.
    fake = tmp_path / "sbx-run"
    fake.write_text("#!/bin/sh\necho 'sbx-run: refusing: a test reason' >&2\nexit 2\n")
    fake.chmod(0o755)
    result = []
    t = threading.Thread(target=lambda: result.append(_start_error(str(fake))), daemon=True)
    t.start()
    t.join(20)
    assert not t.is_alive(), "the client hung on a server that never started"
    assert result and "status 2" in result[0] and "a test reason" in result[0], result


def _start_error(sbx_run):
    try:
        with Sandbox("tests", sbx_run=sbx_run) as s:
            s.run("pass")
    except SbxError as e:
        return str(e)
    return "no error"


def test_server_killed_mid_run(cache):
    s = Sandbox("tests", cache_root=cache)
    s.ensure(quiet=True)
    errors = []

    def runner():
        try:
            r = s.run("import time; time.sleep(60)", timeout=20)
            errors.append("no error, but %r" % (r,))
        except SbxError as e:
            errors.append(str(e))

    t = threading.Thread(target=runner)
    t.start()
    time.sleep(0.5)
    os.kill(s.server_pids()[0], signal.SIGKILL)
    t.join(30)
    assert not t.is_alive()
    assert errors and "sbx-run --serve exited (signal 9)" in errors[0], errors
    assert s.run("print('again')").stdout == "again\n"      # a new server
    s.close()
    with Sandbox("tests", cache_root=cache) as s2:
        assert s2.run("print(2)").passed


CLIENT = r"""
import sys, threading
sys.path.insert(0, sys.argv[1])
import sbx
s = sbx.Sandbox("tests", cache_root=sys.argv[2])
s.ensure(quiet=True)
print(s.server_pids()[0], flush=True)
s.run_argv(["python", "-c", "import time; time.sleep(600)", sys.argv[3]], sys.argv[4],
           timeout=900)
"""


def test_client_killed_mid_run(cache, tmp_path):
    marker = "sbx-marker-" + uuid.uuid4().hex
    client = subprocess.Popen(
        [sys.executable, "-c", CLIENT, os.path.dirname(os.path.dirname(sbx.__file__)),
         str(cache), marker, str(tmp_path)], stdout=subprocess.PIPE)
    server = int(client.stdout.readline())
    assert poll_until(lambda: pids_with(marker), 30), "the sandboxed program never started"
    client.kill()
    client.wait()
    gone = poll_until(lambda: not pid_alive(server) and not pids_with(marker), GONE_WITHIN_S)
    assert gone, "still alive %.1f s after the client died: server %s, program %s" % (
        GONE_WITHIN_S, pid_alive(server), pids_with(marker))


# ---- the protocol, straight ------------------------------------------------------
def serve(*args):
    p = subprocess.Popen([SBX_RUN, "--serve", "--quiet"] + list(args), stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    ready = json.loads(p.stdout.readline())
    assert ready["type"] == "ready" and ready["max_line_bytes"] == 64 << 20
    return p


def test_malformed_requests_get_errors_and_the_server_goes_on():
    p = serve()
    bad = [b"garbage", b"{\"id\": 1, \"type\": \"run\"", b"[]", b"{\"type\":\"run\"}",
           b"{\"id\":2,\"type\":\"bogus\"}", b"{\"id\":3,\"type\":\"run\",\"code\":7}",
           b"\xff\xfe{\x00}", b"{\"id\":4,\"type\":\"run_argv\",\"argv\":[\"a/b\"],"
           b"\"workdir\":\"/\"}", b"{\"id\":5,\"type\":\"run_argv\",\"argv\":[\"python\"],"
           b"\"workdir\":\"/nonexistent\"}", b"[" * 200000 + b"]" * 200000]
    for line in bad:
        p.stdin.write(line + b"\n")
    p.stdin.write(b"{\"id\":\"last\",\"type\":\"run\",\"code\":\"print(5)\"}\n")
    p.stdin.close()
    out = [json.loads(l) for l in p.stdout]
    assert p.wait(60) == 0
    errors = [o for o in out if o["type"] == "error"]
    assert len(errors) == len(bad), out
    assert all(e["error"] for e in errors)
    assert {e["id"] for e in errors} == {2, 3, 4, 5, None}
    last = [o for o in out if o["id"] == "last"]
    assert last and last[0]["passed"] and last[0]["stdout"] == "5\n"


def test_oversized_request_is_refused_and_the_next_one_runs():
    p = serve()
    huge = b"{\"id\":1,\"type\":\"run\",\"code\":\"" + b"a" * ((64 << 20) + 10) + b"\"}\n"
    t = threading.Thread(target=lambda: (p.stdin.write(huge), p.stdin.write(
        b"{\"id\":2,\"type\":\"run\",\"code\":\"print(2)\"}\n"), p.stdin.close()))
    t.start()
    out = [json.loads(l) for l in p.stdout]
    t.join()
    assert p.wait(60) == 0
    assert out[0]["type"] == "error" and out[0]["id"] is None
    assert "longer than 67108864 bytes" in out[0]["error"]
    assert out[1]["id"] == 2 and out[1]["stdout"] == "2\n"


def test_eof_drains_runs_in_flight_and_exits_0():
    p = serve()
    p.stdin.write(b"{\"id\":1,\"type\":\"run\",\"code\":\"import time; time.sleep(1); print(1)\"}\n")
    p.stdin.close()
    out = [json.loads(l) for l in p.stdout]
    assert p.wait(60) == 0
    assert len(out) == 1 and out[0]["id"] == 1 and out[0]["passed"]


# ---- evaluate ------------------------------------------------------------------
@pytest.fixture(scope="module")
def problems(tmp_path_factory):
    if not os.path.exists(HUMANEVAL):
        pytest.skip("no %s (SBX_DATA holds no HumanEval)" % HUMANEVAL)
    path = tmp_path_factory.mktemp("he") / "problems.jsonl"
    with gzip.open(HUMANEVAL, "rt") as f, open(path, "w") as out:
        for _ in range(3):
            out.write(f.readline())
    return path


def test_evaluate_canonical(problems):
    s = sbx.evaluate("humaneval", problems=problems, k=(1,), jobs=2)
    assert s["passed"] == 3 and s["pass_at_k"] == {"pass@1": 1}


def test_evaluate_samples_and_records(problems):
    tasks = [json.loads(l) for l in open(problems)]
    samples = []
    for t in tasks:
        samples.append({"task_id": t["task_id"], "completion": t["canonical_solution"]})
        samples.append({"task_id": t["task_id"], "completion": "    return None\n"})
    ev = sbx.evaluate_iter("humaneval", samples=samples, problems=problems, k=(1, 2), jobs=2)
    records = list(ev)
    assert len(records) == 6
    assert sorted(r["passed"] for r in records) == [False] * 3 + [True] * 3
    assert ev.summary["pass_at_k"]["pass@1"] == pytest.approx(0.5)
    assert ev.summary["pass_at_k"]["pass@2"] == pytest.approx(1.0)


CODECONTESTS = os.path.join(os.environ.get("SBX_DATA", ""), "codecontests", "code_eval_code_contests.jsonl")
REFERENCE = os.path.join(os.environ.get("SBX_DATA", ""), "codecontests", "reference_solutions.jsonl")


def test_evaluate_io_suite(tmp_path):
    if not os.path.exists(CODECONTESTS):
        pytest.fail("no %s: the shipped CodeContests problems are missing" % CODECONTESTS)
    refs = [json.loads(l) for l in open(REFERENCE)][:2]
    samples = refs + [{"task_id": refs[0]["task_id"], "solution": "print(0)\n"}]
    ev = sbx.evaluate_iter("codecontests", samples=samples, problems=CODECONTESTS, k=(1,), jobs=2,
                           all_tests=True, test_timeout=5, compare="lines")
    records = sorted(ev, key=lambda r: r["sbx_index"])
    assert [r["verdict"] for r in records] == ["accepted", "accepted", "wrong_answer"]
    assert records[0]["compare"] == "lines" and records[0]["time_limit_s"] == 5
    wrong = records[2]
    assert wrong["failed_test"] == 0 and len(wrong["test_verdicts"]) == wrong["tests_total"]
    assert wrong["tests_passed"] / wrong["tests_total"] < 1      # a continuous reward, as verl's
    assert ev.summary["passed"] == 2


def test_evaluate_io_suite_language(tmp_path):
    """language= is an io suite's --language: the samples without a
    "language" of their own are C++; one with its own stays Python."""
    need("g++")
    cpp = ('#include <iostream>\n#include <map>\n#include <string>\nint main() {\n'
           '    int n; std::cin >> n; std::map<std::string, int> a; std::string s;\n'
           '    for (int i = 0; i < n; i++) { std::cin >> s; a[s]++; }\n'
           '    int r = 0;\n'
           '    for (int i = 0; i < n; i++) { std::cin >> s; if (a[s] > 0) a[s]--; else r++; }\n'
           '    std::cout << r << "\\n";\n}\n')
    ref = [json.loads(l) for l in open(REFERENCE) if json.loads(l)["task_id"] == "3"][0]
    samples = [{"task_id": "3", "solution": cpp},
               {"task_id": "3", "solution": "int main() { return x; }\n"},
               {"task_id": "3", "solution": ref["solution"], "language": "python"}]
    ev = sbx.evaluate_iter("codecontests", samples=samples, problems=CODECONTESTS, k=(1,), jobs=2,
                           language="cpp", test_timeout=5)
    records = sorted(ev, key=lambda r: r["sbx_index"])
    assert [r["verdict"] for r in records] == ["accepted", "compile_error", "accepted"], records
    assert [r["language"] for r in records] == ["cpp", "cpp", "python"]
    assert records[0]["compile"]["status"] in ("compiled", "cached")


def test_evaluate_bad_suite_raises(problems):
    with pytest.raises(SbxError):
        sbx.evaluate("no-such-suite", problems=problems)


# ---- other languages (issue 32) ----------------------------------------------
def need(*tools):
    path = "/usr/local/bin:/usr/bin:/bin"
    missing = [t for t in tools if not shutil.which(t, path=path)]
    if missing and os.environ.get("CI") == "true":
        pytest.fail("CI=true: toolchain %s not installed" % " ".join(missing))
    if missing:
        pytest.skip("toolchain %s not installed (make deps installs it)" % " ".join(missing))


def test_run_language_builds_then_runs(sb):
    need("g++")
    code = '#include <cstdio>\nint main() { puts("hello from c++"); return 0; }\n'
    r = sb.run(code, language="cpp")
    assert r.passed and r.stdout == "hello from c++\n"
    assert r.language == "cpp"
    assert r.compile["status"] in ("compiled", "cached")
    again = sb.run(code, language="c++")        # an alias; the cache has it
    assert again.passed and again.compile["status"] == "cached"


def test_run_language_compile_error(sb):
    need("g++")
    r = sb.run("int main() { return nope; }", language="cpp")
    assert not r.passed and r.status == "failed"
    assert r.compile["status"] == "compile_error"
    assert "nope" in r.compile["message"]


def test_run_unknown_language_is_an_error_result(sb):
    r = sb.run("x", language="cobol")
    assert r.status == "error" and "cobol" in r.stderr


def test_evaluate_humaneval_x_in_a_language(tmp_path):
    need("g++")
    data = os.path.join(DATA, "humaneval-x")
    with gzip.open(os.path.join(data, "humaneval_cpp.jsonl.gz"), "rt") as f:
        tasks = [json.loads(next(f)) for _ in range(2)]
    problems = tmp_path / "cpp.jsonl"
    problems.write_text("".join(json.dumps(t) + "\n" for t in tasks))
    samples = [{"task_id": t["task_id"], "generation": t["canonical_solution"]} for t in tasks]
    samples.append({"task_id": tasks[0]["task_id"], "generation": "  return nope;\n}\n"})
    os.environ["SBX_SUITES_DIR"] = DATA     # the Go module, js-md5 and crates' home
    ev = sbx.evaluate_iter("humaneval-x", samples=samples, problems=problems, k=(1,), jobs=2,
                           language="cpp")
    records = list(ev)
    assert sorted(r["passed"] for r in records) == [False, True, True]
    bad = [r for r in records if not r["passed"]][0]
    assert bad["result"].startswith("failed: compilation error")
    assert bad["compile"]["status"] == "compile_error"
    assert ev.summary["compile_errors"] == 1


def test_evaluate_language_goes_with_humaneval_x():
    with pytest.raises(ValueError):
        sbx.evaluate("humaneval", language="cpp")
