"""Dev driver for the split harness: runs one suite as classlab's launcher would (runner and
host as two processes joined by a socket pair, the result pipe and the token channel fed like
classlab feeds them), WITHOUT the sandbox. For developing and testing the protocol only: never
point it at untrusted code.

    python tests/harness/driver.py SUITE.json [--inproc]

A suite is the JSON classlab's `SuiteSpec` serialises to (files, kind, code_modules, code,
expected, limits ...) after `with_harness(Split)`; `run_suite` returns the harness's records.
"""

import json
import os
import secrets
import socket
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
HARNESS = os.path.join(HERE, "..", "..", "assets", "harness")


def source(*names):
    out = []
    for n in names:
        with open(os.path.join(HARNESS, n), encoding="utf-8") as f:
            out.append(f.read())
    return "\n".join(out)


RUNNER_SRC = source("wire.py", "split.py", "runner.py")
HOST_SRC = source("wire.py", "host.py")
# One argv element holds at most 128 KiB (MAX_ARG_STRLEN): the sources go as chunks after the
# spec, and a small program joins them (as classlab's `exec::python_argv` does).
BOOT = ("import sys;exec(compile(''.join(sys.argv[2:]),'<classlab-harness>','exec'))")


def chunks(src, size=100_000):
    out, cur = [], 0
    while cur < len(src):
        end = min(len(src), cur + size)
        if end < len(src):
            end = src.rindex("\n", cur, end) + 1
        out.append(src[cur:end])
        cur = end
    return out


def python_argv(python, src, spec_json):
    return [python, "-s", "-P", "-B", "-c", BOOT, spec_json] + chunks(src)


def secs(d):
    """A serde Duration ({"secs", "nanos"}) or None, in seconds."""
    if d is None:
        return None
    return d["secs"] + d["nanos"] / 1e9


def placement(suite, rel):
    kind = suite["kind"]
    test = kind.get("file") or (kind.get("module", "").replace(".", "/") + ".py")
    if rel == test:
        return "tests"
    code_files = {m.replace(".", "/") + ".py" for m in suite.get("code_modules", [])}
    if suite.get("globals_module"):
        code_files.add(suite["globals_module"] + ".py")
    code_files.update(r["file"] for r in suite.get("code", []))
    return "code" if rel in code_files else "scratch"


def base_spec(suite):
    kind = suite["kind"]
    lim = suite.get("limits", {})
    spec = {
        "kind": kind["kind"],
        "code_modules": suite.get("code_modules", []),
        "code": suite.get("code", []),
        "expected": suite.get("expected", []),
        "test_timeout": secs(lim.get("test_timeout")),
        "class_timeout": secs(lim.get("class_timeout")),
        "import_timeout": secs(lim.get("import_timeout")),
        "allow_pytest": True,
        "eq_guard": True,
    }
    if kind["kind"] == "unittest":
        spec["test_module"] = kind["module"]
    else:
        spec["test_file"] = kind["file"]
    return spec


class Feeder:
    """classlab's side of the result channel: the nonce, then one token per accepted verdict."""

    def __init__(self, sock):
        self.sock = sock
        self.nonce = secrets.token_hex(16)
        self.token = secrets.token_hex(16)
        sock.sendall((self.nonce + "\n" + self.token + "\n").encode())
        self.records = []
        self.buf = b""
        self.problems = []

    def feed(self, data):
        self.buf += data
        while b"\n" in self.buf:
            line, self.buf = self.buf.split(b"\n", 1)
            rec = json.loads(line)
            if rec.get("n") != self.nonce:
                self.problems.append("bad nonce")
                continue
            if rec.get("t") == "test":
                if rec.get("k") == self.token:
                    self.token = secrets.token_hex(16)
                    try:
                        self.sock.sendall((self.token + "\n").encode())
                    except OSError:
                        pass
            self.records.append(rec)


def run_suite(suite, python=sys.executable, inproc=False, wall=60.0):
    """Run a suite; (records, stdout, stderr, runner status, host status, seconds, CPU seconds
    of runner and host together)."""
    import resource
    ru0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    with tempfile.TemporaryDirectory(prefix="classlab-split-dev-") as root:
        dirs = {k: os.path.join(root, k) for k in ("tests", "code", "scratch", "work")}
        for d in dirs.values():
            os.makedirs(d)
        for rel, text in suite["files"]:
            where = "work" if inproc else placement(suite, rel)
            path = os.path.join(dirs[where], rel)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
        # `site_files`: modules both processes can import, standing in for installed packages.
        site = os.path.join(root, "site")
        for rel, text in suite.get("site_files", []):
            path = os.path.join(site, rel)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
        spec = base_spec(suite)
        env = {"PATH": os.environ.get("PATH", ""), "LANG": "C.UTF-8",
               "PYTHONHASHSEED": str(suite.get("hash_seed") or 0),
               "PYTHONDONTWRITEBYTECODE": "1", "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1",
               "HOME": dirs["scratch"], "TMPDIR": dirs["scratch"], "MPLBACKEND": "Agg",
               "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}
        if suite.get("site_files"):
            env["PYTHONPATH"] = site
        res_r, res_w = os.pipe()
        tok_parent, tok_child = socket.socketpair()
        t0 = time.perf_counter()
        host = None
        if inproc:
            spec["workdir"] = dirs["work"]
            cwd = dirs["work"]
            fds = {3: res_w, 4: tok_child.fileno()}
        else:
            spec.update(harness="split", tests_dir=dirs["tests"], code_dir=dirs["code"],
                        scratch=dirs["scratch"], host_fd=5)
            if suite.get("globals_module"):
                spec["globals_module"] = suite["globals_module"]
            cwd = dirs["scratch"]
            h_run, h_host = socket.socketpair()
            host_spec = {"code_dir": dirs["code"], "scratch": dirs["scratch"],
                         "code_modules": suite.get("code_modules", []) +
                         ([suite["globals_module"]] if suite.get("globals_module") else []),
                         "code": suite.get("code", []),
                         "sys_path": [dirs["code"], dirs["scratch"]],
                         "hash_seed": suite.get("hash_seed") or 0}
            host = spawn(python_argv(python, HOST_SRC, json.dumps(host_spec)),
                         {3: h_host.fileno()}, cwd, env)
            h_host.close()
            fds = {3: res_w, 4: tok_child.fileno(), 5: h_run.fileno()}
        runner = spawn(python_argv(python, RUNNER_SRC, json.dumps(spec)), fds, cwd, env)
        os.close(res_w)
        tok_child.close()
        if not inproc:
            h_run.close()
        feeder = Feeder(tok_parent)
        deadline = time.monotonic() + wall
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                runner.kill()
                break
            import select
            r, _, _ = select.select([res_r], [], [], min(left, 0.5))
            if r:
                data = os.read(res_r, 1 << 16)
                if not data:
                    break
                feeder.feed(data)
        os.close(res_r)
        out, err = runner.communicate()
        if host is not None:
            try:
                host.wait(timeout=2)
            except subprocess.TimeoutExpired:
                host.kill()
            hout, herr = host.communicate()
            err += b"\n--- host ---\n" + herr
            out += hout
        tok_parent.close()
        ru1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (ru1.ru_utime - ru0.ru_utime) + (ru1.ru_stime - ru0.ru_stime)
        return (feeder.records, out.decode(errors="replace"), err.decode(errors="replace"),
                runner.returncode, host.returncode if host else None,
                time.perf_counter() - t0, cpu)


def spawn(argv, fds, cwd, env):
    """Start argv with the given descriptors placed at their numbers (and nothing else
    inherited: Python's descriptors are close-on-exec)."""

    def place():
        for target, src in fds.items():
            os.dup2(src, 100 + target)
        for target in fds:
            os.dup2(100 + target, target)
            os.close(100 + target)

    return subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, cwd=cwd, env=env, close_fds=False,
                            preexec_fn=place)


def main():
    suite = json.load(open(sys.argv[1]))
    recs, out, err, rc, hrc, dt, cpu = run_suite(suite, inproc="--inproc" in sys.argv)
    if "--json" in sys.argv:
        json.dump({"records": recs, "stdout": out, "stderr": err, "runner_exit": rc,
                   "host_exit": hrc, "seconds": dt, "cpu_seconds": cpu}, sys.stdout)
        return
    for r in recs:
        print(json.dumps({k: v for k, v in r.items() if k not in ("n", "s", "k")})[:400])
    print("runner exit", rc, "host exit", hrc, "%.2fs (CPU %.2fs)" % (dt, cpu))
    if err.strip():
        print(err[-3000:])


if __name__ == "__main__":
    main()
