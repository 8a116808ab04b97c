#!/usr/bin/python3
"""A stand-in for sbx-run's side of docs/warm.md: starts the zygote
(frontend/warm/zygote/, joined: build/gen/zygote.py) under a launcher (default: unshare -U
--map-current-user --keep-caps --), sends it the init message with the
seccomp program from write-bpf, the run init (build/sbx-run-init) and the
candidate's confinement (build/candidate.bin; by default the files of
those names beside the zygote's source), then runs samples one at a time.

  zygote_client.py --zygote build/gen/zygote.py --bpf build/tests/warm/write-bpf < runs.jsonl

Each input line is a JSON object: {"code": SOURCE, "args": [...],
"files": {NAME: TEXT}, "env": [...], "cwd": DIR, "limits": {...}, "stdin":
TEXT} (all but code optional; stdin is sent as a sealed memfd, else
/dev/null is; "kill_after_s": S sends the run's kill message S seconds
after the run, "kill_id": N kills run N instead, a stale one), or
{"raw": TEXT, "fds": N} to send a message as is (with N fds of
/dev/null). Each run prints one JSON line: stdout, stderr, status
(the parsed status line, or null), status_raw, wall_s (as the client
measured it). At the end, one line {"zygote_stderr": ..., "zygote_exit": N}.
"""
import argparse, array, fcntl, json, os, selectors, shlex, socket, subprocess, sys, tempfile, time

DEFAULT_LIMITS = {'timeout_ms': 10000, 'cpu_s': 10, 'memory': 1 << 30, 'nproc': 64,
                  'fsize': 50 << 20, 'nofile': 200, 'tmpfs': 40 << 20}
DEFAULT_ENV = ['PATH=/usr/bin:/bin', 'HOME=%s' % os.environ.get('HOME', '/'), 'TMPDIR=/tmp', 'LANG=C.UTF-8']


def send(sock, obj, fds):
    data = obj if isinstance(obj, bytes) else json.dumps(obj).encode()
    anc = [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array('i', fds).tobytes())] if fds else []
    sock.sendmsg([data], anc)


def stdin_fd(text):
    """A run's stdin as sbx-run sends it: a sealed memfd, or /dev/null."""
    if text is None:
        return os.open(os.devnull, os.O_RDONLY)
    fd = os.memfd_create('sbx-stdin', os.MFD_CLOEXEC | os.MFD_ALLOW_SEALING)
    os.write(fd, text.encode())
    fcntl.fcntl(fd, fcntl.F_ADD_SEALS, fcntl.F_SEAL_SHRINK | fcntl.F_SEAL_GROW | fcntl.F_SEAL_WRITE |
                fcntl.F_SEAL_SEAL)
    ro = os.open('/proc/self/fd/%d' % fd, os.O_RDONLY)
    os.close(fd)
    return ro


def drain(fds, deadline):
    """Reads every fd to EOF; returns their bytes."""
    out = {fd: b'' for fd in fds}
    sel = selectors.DefaultSelector()
    for fd in fds:
        sel.register(fd, selectors.EVENT_READ)
    while sel.get_map():
        left = deadline - time.monotonic()
        if left <= 0:
            break
        for key, _ in sel.select(left):
            chunk = os.read(key.fd, 65536)
            if chunk:
                out[key.fd] += chunk
            else:
                sel.unregister(key.fd)
    for fd in fds:
        os.close(fd)
    return out


class Zygote:
    def __init__(self, source_path, bpf_tool, launcher, python, init_path=None, candidate_path=None):
        self.ctl, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        source = open(source_path).read()
        devnull = os.open(os.devnull, os.O_WRONLY)
        self.proc = subprocess.Popen(shlex.split(launcher) + [python, '-I', '-B', '-c', source],
                                     stdin=theirs.fileno(), stdout=devnull, stderr=subprocess.PIPE)
        os.close(devnull)
        theirs.close()
        ready = json.loads(self.ctl.recv(65536) or b'null')
        if not isinstance(ready, dict) or ready.get('ready') != 1:
            raise SystemExit('zygote not ready: %r; stderr: %s' % (ready, self.proc.stderr.read()))
        self.pid = ready['pid']
        bpf = subprocess.run([bpf_tool], stdout=subprocess.PIPE, check=True).stdout
        r, w = os.pipe()
        os.write(w, bpf)
        os.close(w)
        here = os.path.dirname(source_path)
        init = os.open(init_path or os.path.join(here, 'sbx-run-init'), os.O_RDONLY)
        candidate = os.open(candidate_path or os.path.join(here, 'candidate.bin'), os.O_RDONLY)
        send(self.ctl, {'op': 'init'}, [r, init, candidate])
        for fd in (r, init, candidate):
            os.close(fd)
        self.tmp = tempfile.mkdtemp(prefix='zygote-client.')
        self.n = 0

    def run(self, spec):
        self.n += 1
        if 'raw' in spec:
            fds = [os.open(os.devnull, os.O_RDONLY) for _ in range(spec.get('fds', 0))]
            send(self.ctl, spec['raw'].encode(), fds)
            for fd in fds:
                os.close(fd)
            return {'sent': 'raw'}
        limits = dict(DEFAULT_LIMITS, **spec.get('limits', {}))
        files = spec.get('files', {})
        file_fds = []
        for name, text in files.items():
            path = os.path.join(self.tmp, '%d-%s' % (self.n, name))
            with open(path, 'w') as f:
                f.write(text)
            file_fds.append(os.open(path, os.O_RDONLY))
        pipes = [os.pipe() for _ in range(3)]
        stdin = stdin_fd(spec.get('stdin'))
        msg = {'op': 'run', 'id': self.n,
               'argv': [sys.executable, '-I', '-B', '-c', spec['code']] + spec.get('args', []),
               'cwd': spec.get('cwd', '/tmp/sbx-work'), 'env': spec.get('env', DEFAULT_ENV),
               'files': list(files), 'limits': limits}
        start = time.monotonic()
        send(self.ctl, msg, [p[1] for p in pipes] + [stdin] + file_fds)
        os.close(stdin)
        for p in pipes:
            os.close(p[1])
        for fd in file_fds:
            os.close(fd)
        if 'kill_after_s' in spec:
            time.sleep(spec['kill_after_s'])
            send(self.ctl, {'op': 'kill', 'id': spec.get('kill_id', self.n)}, [])
        got = drain([p[0] for p in pipes], start + limits['timeout_ms'] / 1000.0 + 30)
        wall = time.monotonic() - start
        out, err, st = (got[p[0]] for p in pipes)
        try:
            status = json.loads(st)
        except ValueError:
            status = None
        return {'stdout': out.decode('utf-8', 'replace'), 'stderr': err.decode('utf-8', 'replace'),
                'status': status, 'status_raw': st.decode('utf-8', 'replace'), 'wall_s': wall}

    def close(self, timeout=None):
        """EOF to the zygote, then its exit: None past timeout seconds, and
        the launcher killed (where it may be: not a setuid helper)."""
        self.ctl.close()
        try:
            rc = self.proc.wait(timeout)
            err = self.proc.stderr.read().decode('utf-8', 'replace')
        except subprocess.TimeoutExpired:
            rc, err = None, 'no exit within %s s' % timeout
            try:
                self.proc.kill()
            except OSError:
                pass
        for name in os.listdir(self.tmp):
            os.unlink(os.path.join(self.tmp, name))
        os.rmdir(self.tmp)
        return {'zygote_stderr': err, 'zygote_exit': rc}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--zygote', required=True, help='build/gen/zygote.py')
    ap.add_argument('--bpf', required=True, help='the write-bpf tool')
    ap.add_argument('--launcher', default='unshare -U --map-current-user --keep-caps --')
    ap.add_argument('--python', default='/usr/bin/python3')
    ap.add_argument('--init', help='build/sbx-run-init (default: beside --zygote)')
    ap.add_argument('--candidate', help='build/candidate.bin (default: beside --zygote)')
    a = ap.parse_args()
    z = Zygote(a.zygote, a.bpf, a.launcher, a.python, a.init, a.candidate)
    print(json.dumps({'zygote_pid': z.pid}), flush=True)
    for line in sys.stdin:
        if line.strip():
            print(json.dumps(z.run(json.loads(line))), flush=True)
    print(json.dumps(z.close()), flush=True)


if __name__ == '__main__':
    main()
