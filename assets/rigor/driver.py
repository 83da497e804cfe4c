# classlab rigor driver: coverage and mutation analysis of tasks' references under their own
# tests, run by classlab inside the sandbox (src/exec/program.rs; spec in sys.argv[1], JSON
# lines on descriptor 3). A trusted program; the code it runs is the datasets' references and
# mutants of them. docs/rigor.md explains the method; this file is how.
#
# Processes:
#   root      reads the spec, imports what every task needs (coverage.py, pytest) once,
#             starts one task process per subject (at most `jobs` at once) and forwards their
#             records to classlab. It makes `jobs` run slots, a jobserver pipe every task
#             process takes from and gives back to: every child that runs tests holds one, so
#             the machine's cores stay busy to the very end (a task alone at the end gets them
#             all);
#   task      (one per subject) imports the reference module and the test module once
#             ("warm"), then forks a child for each unit of work:
#               coverage   every test under coverage.py (branch=True, a context per test),
#                          writing coverage.py's own JSON report;
#               reference  every test again, untraced, timed; a test counts only when it
#                          passed in both;
#               mutant     a mutant's module installed over the warm imports; the tests that
#                          cover its lines first, cheapest first, then the rest of the suite,
#                          stopping at the first that does not pass. A mutant whose bytecode
#                          equals the reference's is equivalent (TCE) and never runs.
#             Each test's budget is relative to its reference time and enforced from the task
#             process by killing the child; a kill by timeout counts only if the test times out
#             again alone at twice the budget.
#   A subject's files are read-only (its own directory); every process works in a fresh
#   directory of its own at the top of the work dir, removed after it.
#   Mode "plain" is the benchmark's straightforward runner: no warm imports; per mutant a
#   child writes the mutated module to a file, imports it, and runs the whole suite in order.

import gc
import importlib
import inspect
import json
import mmap
import os
import random
import select
import shutil
import signal
import sys
import tempfile
import time
import types
import unittest
from collections import deque

SPEC = json.load(open(sys.argv[1]))
ROOT = os.getcwd()
JOBS = max(1, int(SPEC.get("jobs", 1)))
MODE = SPEC.get("mode", "schemata")
BASE = float(SPEC.get("test_budget_base", 0.2))
FACTOR = float(SPEC.get("test_budget_factor", 10.0))
TASK_BUDGET = SPEC.get("task_budget")
TASK_WALL = float(SPEC.get("task_wall", 3600.0))
REF_BUDGET = float(SPEC.get("reference_test_budget", 60.0))
SETUP_BUDGET = float(SPEC.get("setup_budget", 30.0))
MUTANT_SETUP = float(SPEC.get("mutant_setup_budget", 5.0))
IMPORT_LIMIT = float(SPEC.get("import_timeout", 60.0))
PASSING = ("pass", "skip", "unsupported")
TOKENS = None  # the run slots (Tokens), made by the root before the task processes

try:  # children die with their parent (a task process killed at its wall limit)
    import ctypes
    _prctl = ctypes.CDLL(None, use_errno=True).prctl
except BaseException:  # noqa: BLE001
    _prctl = None


def die_with_parent():
    if _prctl is not None:
        _prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG


def write_all(fd, data):
    while data:
        data = data[os.write(fd, data):]


def kill_group(pid):
    for target in (-pid, pid):
        try:
            os.kill(target, signal.SIGKILL)
        except OSError:
            pass


def reap(pid):
    try:
        return os.waitpid(pid, 0)[1]
    except ChildProcessError:
        return None


# ==== the task process ======================================================================

class Task:
    """One subject: its files, tests and the helpers that install code."""

    def __init__(self, index, s, to_root):
        self.index = index
        self.s = s
        self.out = to_root
        self.rundirs = RunDirs(self)
        self.exited = []  # (pid, run dir) of children done with, not reaped yet
        self.dir = os.path.join(ROOT, s["dir"])
        self.code_path = os.path.join(self.dir, s["code_file"])
        self.code_name = s["code_module"]
        self.test_path = os.path.join(self.dir, s["test_file"])
        self.test_name = s["test_module"]
        self.concatenated = s["layout"] == "concatenated"
        self.pytest = s["test_kind"] == "pytest"
        with open(self.code_path, "rb") as f:
            self.code_bytes = f.read()
        with open(self.test_path, "rb") as f:
            self.test_code = compile(f.read(), self.test_path, "exec", dont_inherit=True)
        self.ref_code = compile(self.code_bytes, self.code_path, "exec", dont_inherit=True)
        self.run_test = self.run_pytest if self.pytest else self.run_unittest
        self.after = None
        self.warm_ns, self.live, self.reuse_why = None, None, "not warm"
        self.seen = {}  # memo of the reference's code objects (changed_functions)
        self.t0 = time.monotonic()

    def reap_exited(self, wait=False):
        """Reap the children that are done (all of them, waiting, with `wait`); their run
        directories go back to the pool."""
        left = []
        for pid, d in self.exited:
            try:
                got = os.waitpid(pid, 0 if wait else os.WNOHANG)[0]
            except ChildProcessError:
                got = pid
            if got == pid:
                self.rundirs.give(d)
            else:
                left.append((pid, d))
        self.exited = left

    def send(self, kind, **fields):
        fields["kind"] = kind
        fields["task"] = self.index
        write_all(self.out, (json.dumps(fields) + "\n").encode())

    # ---- running one test (in a child) ----

    def run_unittest(self, ns, tid):
        cls_name, _, meth = tid.partition(".")
        cls = ns.get(cls_name)
        if not isinstance(cls, type) or not hasattr(cls, meth):
            return "error"
        result = Result()
        # A suite of one: class and module fixtures (setUpClass) run around the test.
        unittest.TestSuite([cls(meth)]).run(result)
        return result.outcome

    def run_pytest(self, ns, tid):
        return run_pytest_item(ns, tid)

    def install(self, code):
        """Execute `code` (the reference, a mutant, or an import of one) as the code module,
        then the test module; the test module's namespace."""
        mod = types.ModuleType(self.code_name)
        mod.__file__ = self.code_path
        sys.modules[self.code_name] = mod
        exec(code, mod.__dict__)
        tmod = types.ModuleType(self.test_name)
        tmod.__file__ = self.test_path
        if self.concatenated:  # ClassEval: the tests see the code's globals (one module there)
            tmod.__dict__.update(
                (k, v) for k, v in mod.__dict__.items()
                if not (k.startswith("__") and k.endswith("__"))
            )
        sys.modules[self.test_name] = tmod
        exec(self.test_code, tmod.__dict__)
        return tmod.__dict__

    def child_main(self, wfd, rundir, code, tests, stop_first, before):
        """In a forked child: install, run `tests` in order, report each on `wfd`."""
        try:
            os.setpgid(0, 0)
            die_with_parent()
            null = os.open(os.devnull, os.O_RDWR)
            for fd in (0, 1, 2):
                os.dup2(null, fd)
            os.chdir(os.path.join(rundir, "work"))
            tempfile.tempdir = os.environ["TMPDIR"] = os.path.join(rundir, "tmp")
            signal.signal(signal.SIGALRM, signal.SIG_DFL)
            if before is not None:
                before()
            if isinstance(code, types.CodeType):
                try:
                    ns = self.install(code)
                except BaseException as e:  # noqa: BLE001
                    os.write(wfd, ("I %s\n" % type(e).__name__).encode())
                    os._exit(0)
                load_numpy_random()
            else:  # the warm modules, with these functions' code swapped (none: the reference)
                ns = self.warm_ns
                for functions, new in code:
                    for f in functions:
                        f.__code__ = new
            os.write(wfd, b"S\n")
            for i, tid in enumerate(tests):
                reseed()
                t = time.perf_counter()
                try:
                    out = self.run_test(ns, tid)
                except BaseException:  # noqa: BLE001 - the runner itself failed on this test
                    out = "error"
                os.write(wfd, ("R %d %s %.6f\n" % (i, out, time.perf_counter() - t)).encode())
                if stop_first and out not in PASSING:
                    break
            if self.after is not None:
                self.after()
            os.write(wfd, b"D\n")
        except BaseException:  # noqa: BLE001
            pass
        os._exit(0)

    # ---- warm ----

    def warm(self):
        """The imports of the reference and the tests, once: every child inherits them. When
        importing the reference left nothing behind that a fork would not carry (files in its
        directory, open descriptors, threads, its directory's path), the imported modules stay
        too: children then run the reference, or a mutant whose change lies in function
        bodies with its functions' code swapped in, without importing anything."""
        d = os.path.join(ROOT, "warm-%d" % os.getpid())
        os.mkdir(d)
        os.chdir(d)
        # Temporary files the import makes land in its directory too, where they are seen.
        tempfile.tempdir = os.environ["TMPDIR"] = d
        fds, threads = open_fds(), thread_count()

        def on_alarm(signum, frame):
            raise TimeoutError("importing the task took longer than %.0f s" % IMPORT_LIMIT)

        signal.signal(signal.SIGALRM, on_alarm)
        signal.setitimer(signal.ITIMER_REAL, IMPORT_LIMIT)
        try:
            ns = self.install(self.ref_code)
            load_numpy_random()  # once here, not in every child
            code_ns = getattr(sys.modules.get(self.code_name), "__dict__", {})
            self.reuse_why = reuse_obstacle(d, fds, threads, (code_ns, ns))
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, signal.SIG_DFL)
            os.chdir(self.dir)
            tempfile.tempdir = None
            os.environ.pop("TMPDIR", None)
            shutil.rmtree(d, ignore_errors=True)
        if self.reuse_why is None:
            self.warm_ns = ns
            self.live = live_functions(self.ref_code)
        else:  # children import the reference themselves, as before
            sys.modules.pop(self.code_name, None)
            sys.modules.pop(self.test_name, None)
        del ns
        # Objects that exist now are never collected: forked children do not copy their pages
        # when a collection would touch them.
        gc.collect()
        gc.freeze()

    def program(self, code, pairs, import_lines, lines):
        """What a child runs for `code` (a mutant's module code; `pairs` its changed functions,
        see `changed_functions`): the swaps that turn the warm modules into it, or the code
        itself to import. Swapping is exact only when nothing the import ran depends on the
        change: every changed function is alive (not a comprehension run at import) and no
        changed line ran at import."""
        if self.live is None or pairs is None or import_lines is None:
            return code
        if any(n in import_lines for n in range(lines[0], lines[1] + 1)):
            return code
        swaps = []
        for old, new in pairs:
            functions = self.live.get(id(old))
            if not functions:
                return code
            swaps.append((functions, new))
        return tuple(swaps)


def reseed():
    """Every test starts from the same random state, whatever ran before it in its child (as
    pytest-randomly does): verdicts on code that draws random numbers (ClassEval_58 places its
    mines with `random.randint`) are the same in every run and order, and a kill can be
    re-run by hand."""
    random.seed(0)
    npr = sys.modules.get("numpy.random")
    if npr is not None:
        try:
            npr.seed(0)
        except BaseException:  # noqa: BLE001 - a numpy without the legacy global generator
            pass


def load_numpy_random():
    """numpy loads numpy.random lazily, on first use: load it when numpy is there, so that
    `reseed` seeds it before every test, whichever test uses it first."""
    if "numpy" in sys.modules and "numpy.random" not in sys.modules:
        try:
            importlib.import_module("numpy.random")
        except BaseException:  # noqa: BLE001
            pass


def open_fds():
    try:
        return set(os.listdir("/proc/self/fd"))
    except OSError:
        return None


def thread_count():
    try:
        return len(os.listdir("/proc/self/task"))
    except OSError:
        return None


def reuse_obstacle(d, fds, threads, namespaces):
    """Why the modules the import left cannot serve forked children (None: they can)."""
    if fds is None or threads is None:
        return "no /proc"
    if os.listdir(d):
        return "the import wrote files"  # in its directory or a temporary one
    if open_fds() - fds:
        return "the import left descriptors open"
    if thread_count() != threads:
        return "the import started threads"
    for space in namespaces:
        for v in list(space.values()):
            if isinstance(v, str) and d in v:
                return "the import kept its directory's path"
    return None


CO_FUNCTION = inspect.CO_OPTIMIZED | inspect.CO_NEWLOCALS


def member_codes(co):
    """The code objects of functions defined directly in module `co` or in its class bodies."""
    for c in co.co_consts:
        if isinstance(c, types.CodeType):
            if c.co_flags & CO_FUNCTION:
                yield c
            else:
                yield from member_codes(c)


def live_functions(ref_code):
    """id(code) -> the function objects the import made from it (and any copy of them)."""
    ids = {id(c) for c in member_codes(ref_code)}
    live = {}
    for o in gc.get_objects():
        if type(o) is types.FunctionType and id(o.__code__) in ids:
            live.setdefault(id(o.__code__), []).append(o)
    return live


def shallow(co):
    """`canon` with nested code objects reduced to their names: what must be equal for a
    change to lie only inside nested code."""
    consts = tuple(
        ("code", c.co_qualname) if isinstance(c, types.CodeType) else (type(c).__name__, repr(c))
        for c in co.co_consts
    )
    return (co.co_code, consts) + code_fields(co)


def memo(f, co, seen):
    """f(co) for a code object of the reference (kept alive, so its id is stable), once."""
    key = (f, id(co))
    if key not in seen:
        seen[key] = f(co)
    return seen[key]


def changed_functions(ref, mut, seen):
    """[(reference code, mutant code)] of the member functions that differ, when nothing
    else does (module and class bodies equal but for them; a function's docstring and free
    variables unchanged); None otherwise. [] means equal: `canon` would say so too. `seen`
    memoises the reference's side."""
    if memo(shallow, ref, seen) != shallow(mut):
        return None
    out = []
    for r, m in zip(ref.co_consts, mut.co_consts):
        if not isinstance(r, types.CodeType) or memo(canon, r, seen) == canon(m):
            continue
        if r.co_flags & CO_FUNCTION:
            if r.co_freevars != m.co_freevars or r.co_consts[:1] != m.co_consts[:1]:
                return None
            out.append((r, m))
        else:
            sub = changed_functions(r, m, seen)
            if sub is None:
                return None
            out += sub
    return out


class Result(unittest.TestResult):
    """Outcome of one unittest test: pass, fail, error or skip."""

    def __init__(self):
        super().__init__()
        self.outcome = "pass"

    def addFailure(self, test, err):
        self.outcome = "fail"

    def addError(self, test, err):
        if self.outcome == "pass":
            self.outcome = "error"

    def addSkip(self, test, reason):
        self.outcome = "skip"

    def addExpectedFailure(self, test, err):
        pass

    def addUnexpectedSuccess(self, test):
        self.outcome = "fail"

    def addSubTest(self, test, subtest, err):
        if err is not None:
            self.outcome = "fail"


def run_pytest_item(ns, tid):
    """A pytest-style test called directly: plain functions and `Test*` classes, skip and
    xfail marks honoured (a strict xfail that passes fails: XPASS(strict)); parametrized
    tests and fixtures are not supported (left out, listed)."""
    try:
        from _pytest.outcomes import Skipped, XFailed
    except BaseException:  # noqa: BLE001 - a file that does not need pytest
        Skipped = XFailed = ()
    cls_name, _, meth = tid.rpartition(".")
    inst = None
    if cls_name:
        cls = ns.get(cls_name)
        if not isinstance(cls, type):
            return "error"
        inst = cls()
        fn = getattr(inst, meth, None)
        marks = list(getattr(fn, "pytestmark", []) or []) + list(getattr(cls, "pytestmark", []) or [])
    else:
        fn = ns.get(meth)
        marks = list(getattr(fn, "pytestmark", []) or [])
    if fn is None:
        return "error"
    names = [m.name for m in marks]
    if "skip" in names or "skipif" in names:
        return "skip"
    if "parametrize" in names or "usefixtures" in names:
        return "unsupported"
    try:
        if inspect.signature(fn).parameters:
            return "unsupported"  # fixtures
    except (TypeError, ValueError):
        pass
    xfail = next((m for m in marks if m.name == "xfail"), None)
    raised = None
    try:
        if inst is not None and hasattr(inst, "setup_method"):
            inst.setup_method(fn)
        try:
            fn()
        finally:
            if inst is not None and hasattr(inst, "teardown_method"):
                inst.teardown_method(fn)
    except Skipped:
        return "skip"
    except XFailed:
        return "pass"
    except BaseException as e:  # noqa: BLE001 - any exception is the test's outcome
        raised = e
    if xfail is None:
        return "pass" if raised is None else "fail"
    kw = getattr(xfail, "kwargs", {}) or {}
    if raised is not None:
        exp = kw.get("raises")
        if exp is not None and not isinstance(raised, exp):
            return "fail"
        return "pass"  # xfailed, as the file expects
    return "fail" if kw.get("strict", False) else "pass"  # XPASS(strict) fails


class Child:
    """A forked child running tests; its deadline moves test by test."""

    def __init__(self, task, code, tests, budgets, setup_budget, stop_first, before=None):
        self.rundir = task.rundirs.take()
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(r)
            task.child_main(w, self.rundir, code, tests, stop_first, before)
        os.close(w)
        try:
            os.setpgid(pid, pid)
        except OSError:
            pass
        self.task, self.pid, self.fd = task, pid, r
        self.budgets, self.setup_budget = budgets, setup_budget
        self.results, self.setup, self.stopped = [], "crash", None
        self.buf = b""
        self.started = time.monotonic()
        self.deadline = self.started + setup_budget
        self.ended = False

    def feed(self, data):
        if not data:
            self.ended = True
            return
        self.buf += data
        while b"\n" in self.buf:
            line, self.buf = self.buf.split(b"\n", 1)
            parts = line.decode().split()
            if not parts:
                continue
            now = time.monotonic()
            if parts[0] == "S":
                self.setup = None
                self.deadline = now + (self.budgets[0] if self.budgets else self.setup_budget)
            elif parts[0] == "I":
                self.setup = parts[1] if len(parts) > 1 else "Exception"
            elif parts[0] == "R":
                i = int(parts[1])
                self.results.append((i, parts[2], float(parts[3])))
                nxt = i + 1
                self.deadline = now + (self.budgets[nxt] if nxt < len(self.budgets)
                                       else self.setup_budget)
            elif parts[0] == "D":
                self.ended = True

    def expire(self):
        """Past the deadline: the running test (or the set-up) timed out."""
        if self.setup == "crash" and not self.results:
            self.setup = "timeout"
        else:
            self.stopped = len(self.results)
        kill_group(self.pid)
        self.ended = True

    def close(self):
        """Its results. It leaves with os._exit; anything of its group goes too. It is reaped
        later (an exit takes a while): its directory is reused once it is."""
        os.close(self.fd)
        kill_group(self.pid)
        self.task.exited.append((self.pid, self.rundir))
        self.task.reap_exited()
        return self.setup, self.results, self.stopped, time.monotonic() - self.started


RUN_SUBDIRS = ("work", "tmp")  # a child's working and temporary directories


class RunDirs:
    """Directories for children, reused: a child starts with an empty working directory and
    an empty temporary directory of its own (`work` and `tmp` in one pooled directory).
    Its own `tmp` matters: children run side by side in one sandbox, and tests that put a
    database in `gettempdir()` (ClassEval_92) would otherwise share it with a sibling."""

    def __init__(self, task):
        self.prefix = os.path.join(ROOT, "run-%d-" % task.index)
        self.free = []
        self.made = 0

    def take(self):
        if self.free:
            return self.free.pop()
        self.made += 1
        d = self.prefix + str(self.made)
        self.make(d)
        return d

    @staticmethod
    def make(d):
        os.mkdir(d)
        for sub in RUN_SUBDIRS:
            os.mkdir(os.path.join(d, sub))

    def give(self, d):
        """Back to the pool once its child is gone: emptied if the child wrote there."""
        try:
            clean = all(not os.listdir(os.path.join(d, sub)) for sub in RUN_SUBDIRS)
        except OSError:
            clean = False
        if not clean:
            shutil.rmtree(d, ignore_errors=True)
            try:
                self.make(d)
            except OSError:
                return  # dropped: a fresh name next time
        self.free.append(d)

    def remove(self):
        for d in self.free:
            shutil.rmtree(d, ignore_errors=True)
        self.free = []


class Tokens:
    """The root's run slots, as a jobserver: a pipe holding one byte per free slot, shared by
    every task process. A child that runs tests holds one, so at most `jobs` run at once and
    the cores stay busy to the end (a task alone at the end gets them all). What a task holds
    is kept in shared memory, for the root to return when the task process dies."""

    def __init__(self, n_tasks):
        self.r, self.w = os.pipe()
        os.set_blocking(self.r, False)
        write_all(self.w, b"t" * JOBS)
        self.held = mmap.mmap(-1, 4 * max(1, n_tasks))

    def _add(self, task, n):
        i = 4 * task
        self.held[i:i + 4] = (int.from_bytes(self.held[i:i + 4], "little") + n).to_bytes(4, "little")

    def take(self, task, n):
        """Up to n slots, without waiting; how many were taken. Counted as held first: a task
        killed in between gives back too many (briefly one more child), never too few."""
        self._add(task, n)
        try:
            got = len(os.read(self.r, n))
        except BlockingIOError:
            got = 0
        self._add(task, got - n)
        return got

    def give(self, task):
        write_all(self.w, b"t")
        self._add(task, -1)

    def reclaim(self, task):
        """A task process is gone: its slots come back."""
        i = 4 * task
        n = int.from_bytes(self.held[i:i + 4], "little")
        self.held[i:i + 4] = bytes(4)
        if n > 0:
            write_all(self.w, b"t" * n)


def run_jobs(task, jobs, on_done):
    """Drive generators (`jobs`: iterator of (key, generator)); each yields child requests
    (code, tests, budgets, setup_budget, stop_first, before) and receives (setup, results,
    stopped, seconds); its return value goes to on_done(key, value). At most JOBS children
    at once, each holding a slot (`TOKENS`)."""
    queue = deque()
    running = {}
    it = iter(jobs)
    exhausted = False

    def advance(key, gen, value):
        try:
            queue.append((key, gen, gen.send(value)))
        except StopIteration as stop:
            on_done(key, stop.value)

    while True:
        while not exhausted and len(queue) + len(running) < JOBS:
            nxt = next(it, None)
            if nxt is None:
                exhausted = True
            else:
                advance(nxt[0], nxt[1], None)
        if queue:
            for _ in range(TOKENS.take(task.index, len(queue))):
                key, gen, req = queue.popleft()
                try:
                    child = Child(task, *req)
                except BaseException:
                    TOKENS.give(task.index)
                    raise
                running[child.fd] = (child, key, gen)
        if not running and not queue and exhausted:
            return
        now = time.monotonic()
        wait = min([c.deadline for c, _, _ in running.values()], default=now + 60) - now
        if task.exited:
            wait = min(wait, 0.05)  # reap them soon: their directories are wanted
        fds = list(running) + ([TOKENS.r] if queue else [])
        ready, _, _ = select.select(fds, [], [], max(0.0, wait))
        task.reap_exited()
        now = time.monotonic()
        for fd, (child, key, gen) in list(running.items()):
            if fd in ready:
                child.feed(os.read(fd, 65536))
            if not child.ended and now >= child.deadline:
                child.expire()
            if child.ended:
                del running[fd]
                value = child.close()
                TOKENS.give(task.index)
                advance(key, gen, value)


# ---- the work of a task, as generators of child requests ----

def run_all(task, code, tests, budget, before=None):
    """Every test once, in order (a test killed at its budget is a timeout and the rest go on
    in a new child). Returns ({id: (outcome, secs)}, install failure or None)."""
    out = {}
    todo = list(tests)
    while todo:
        setup, results, stopped, _ = yield (code, todo, [budget] * len(todo), SETUP_BUDGET,
                                            False, before)
        if setup is not None:
            return out, setup
        for i, o, s in results:
            out[todo[i]] = (o, s)
        if stopped is not None:
            out[todo[stopped]] = ("timeout", budget)
            todo = todo[stopped + 1:]
        elif len(results) < len(todo):
            out[todo[len(results)]] = ("crash", 0.0)  # the child died inside this test
            todo = todo[len(results) + 1:]
        else:
            todo = []
    return out, None


def coverage_job(task):
    cov_json = os.path.join(ROOT, "coverage-%d.json" % task.index)

    def before():
        import coverage
        cov = coverage.Coverage(data_file=None, config_file=False, branch=True,
                                include=[task.code_path])
        cov.start()
        plain = task.run_test

        def traced(ns, tid):
            cov.switch_context(tid)
            try:
                return plain(ns, tid)
            finally:
                cov.switch_context("")

        task.run_test = traced

        def after():
            cov.stop()
            cov.json_report(morfs=[task.code_path], outfile=cov_json, show_contexts=True)

        task.after = after

    out, setup = yield from run_all(task, task.ref_code, task.s["expected"], REF_BUDGET, before)
    entry, why = None, None
    if setup is not None:
        why = "install failed: %s" % setup
    else:
        try:
            with open(cov_json) as f:
                files = json.load(f).get("files", {})
            entry = next(iter(files.values()), None)
            if entry is None:
                why = "the reference file was not measured"
            else:
                for bulky in ("functions", "classes"):  # per-function summaries: not used
                    entry.pop(bulky, None)
        except (OSError, ValueError) as e:
            why = "no coverage report: %s" % e
        try:
            os.remove(cov_json)
        except OSError:
            pass
    return out, entry, why


class Plan:
    """What the mutants run against: the valid tests, their times, which cover which line."""

    def __init__(self, task, ref_out, cov_out, entry):
        expected = task.s["expected"]
        self.valid = [t for t in expected if ref_out.get(t, ("",))[0] == "pass"
                      and (cov_out is None or cov_out.get(t, ("",))[0] == "pass")]
        self.time = {t: ref_out[t][1] for t in self.valid}
        self.order = {t: i for i, t in enumerate(self.valid)}
        self.line_tests, self.import_lines = {}, set()
        valid = set(self.valid)
        contexts = (entry or {}).get("contexts")
        if contexts is None:
            self.import_lines = None  # unknown: nothing may rely on what the import ran
        for line, ctxs in (contexts or {}).items():
            n = int(line)
            for c in ctxs:
                if c == "":
                    self.import_lines.add(n)
                elif c in valid:
                    self.line_tests.setdefault(n, set()).add(c)

    def budget(self, tid, scale=1.0):
        return scale * max(BASE, FACTOR * self.time[tid])

    def first(self, m):
        """The valid tests to run first on `m`: those that executed its lines (for a `def`
        header, its body's), cheapest first; for a line run only at import, all of them."""
        first, last = m["lines"]
        scope = m.get("scope")
        lines = range(scope[0], scope[1] + 1) if scope else range(first, last + 1)
        chosen = set()
        for n in lines:
            chosen |= self.line_tests.get(n, set())
        ran_at_import = any(n in (self.import_lines or ()) for n in range(first, last + 1))
        if not chosen and not scope and ran_at_import:
            chosen = set(self.valid)
        return sorted(chosen, key=lambda t: (self.time[t], self.order[t]))


def canon(co):
    """A code object without its positions: what TCE compares."""
    consts = tuple(
        canon(c) if isinstance(c, types.CodeType) else (type(c).__name__, repr(c))
        for c in co.co_consts
    )
    return (co.co_code, consts) + code_fields(co)


def code_fields(co):
    return (co.co_names, co.co_varnames, co.co_freevars, co.co_cellvars, co.co_flags,
            co.co_argcount, co.co_posonlyargcount, co.co_kwonlyargcount, co.co_name,
            getattr(co, "co_qualname", ""), getattr(co, "co_exceptiontable", b""))


def first_failure(task, plan, code, tests, before=None):
    """Run `tests` on a mutant, stopping at the first that does not pass; a timeout counts
    only when a rerun of that test alone at twice the budget times out too. Returns
    (verdict, test, how, ran, seconds): "killed" (how: fail, error, crash, timeout,
    import:<exception>) or "passed"."""
    todo = list(tests)
    ran, secs = 0, 0.0

    def ask(tests, scale=1.0):
        return (code, tests, [plan.budget(t, scale) for t in tests], MUTANT_SETUP * scale,
                True, before)

    while todo:
        setup, results, stopped, s = yield ask(todo)
        ran, secs = ran + len(results), secs + s
        if setup == "timeout":
            setup, results, stopped, s = yield ask(todo[:1], 2.0)
            secs += s
            if setup == "timeout":
                return ("killed", None, "timeout", ran, secs)
            ran += len(results)
        if setup is not None:
            return ("killed", None, "import:%s" % setup, ran, secs)
        for i, o, _ in results:
            if o not in PASSING:
                return ("killed", todo[i], o, ran, secs)
        if stopped is not None:
            tid = todo[stopped]
            setup2, res2, stopped2, s = yield ask([tid], 2.0)
            ran, secs = ran + 1, secs + s
            if stopped2 is not None or setup2 == "timeout":
                return ("killed", tid, "timeout", ran, secs)
            if setup2 is not None:
                return ("killed", None, "import:%s" % setup2, ran, secs)
            if not res2:
                return ("killed", tid, "crash", ran, secs)
            if res2[0][1] not in PASSING:
                return ("killed", tid, res2[0][1], ran, secs)
            todo = todo[stopped + 1:]
        elif len(results) < len(todo):
            return ("killed", todo[len(results)], "crash", ran, secs)
        else:
            todo = []
    return ("passed", None, None, ran, secs)


def mutant_bytes(task, m):
    return task.code_bytes[:m["start"]] + m["text"].encode() + task.code_bytes[m["end"]:]


def verdict(result, first=None):
    kind, by, how, ran, secs = result
    if kind == "passed":
        return {"status": "survived", "tests_run": ran, "seconds": round(secs, 4)}
    res = {"status": "timeout" if how == "timeout" else "killed", "by": by, "how": how,
           "tests_run": ran, "seconds": round(secs, 4)}
    if first is not None and by is not None and by not in first:
        res["confirm"] = True  # killed by a test that does not cover its lines
    return res


def mutant_job(task, plan, m):
    if TASK_BUDGET is not None and time.monotonic() - task.t0 > float(TASK_BUDGET):
        return {"status": "not_run"}
    t = time.monotonic()
    try:
        code = compile(mutant_bytes(task, m), task.code_path, "exec", dont_inherit=True)
    except (SyntaxError, ValueError) as e:
        return {"status": "killed", "by": None, "how": "compile:%s" % type(e).__name__,
                "tests_run": 0}
    pairs = changed_functions(task.ref_code, code, task.seen)
    if pairs == []:  # the same bytecode: trivially equivalent (TCE)
        return {"status": "equivalent", "seconds": round(time.monotonic() - t, 4)}
    # The covering tests first, cheapest first; then, in the same child, the rest of the
    # suite in order: a mutant survives only when the whole suite passed on it.
    first = plan.first(m)
    chosen = set(first)
    tests = first + [x for x in plan.valid if x not in chosen]
    program = task.program(code, pairs, plan.import_lines, m["lines"])
    return verdict((yield from first_failure(task, plan, program, tests)), chosen)


IMPORT_IT = ("import importlib as _i, sys as _s\n_s.modules.pop(%r, None)\n"
             "globals().update(vars(_i.import_module(%r)))\n")


def plain_job(task, plan, m):
    """The straightforward runner: a child imports the mutated module from a file and runs
    the whole suite in order."""
    if TASK_BUDGET is not None and time.monotonic() - task.t0 > float(TASK_BUDGET):
        return {"status": "not_run"}
    text = mutant_bytes(task, m)
    code = compile(IMPORT_IT % (task.code_name, task.code_name), "<plain>", "exec")

    def before():
        with open(os.path.join(os.getcwd(), task.s["code_file"]), "wb") as f:
            f.write(text)
        sys.path.insert(0, os.getcwd())
        importlib.invalidate_caches()

    budget = MUTANT_SETUP + sum(plan.budget(x) for x in plan.valid)
    setup, results, stopped, secs = yield (code, plan.valid, [budget] * len(plan.valid),
                                           budget, False, before)
    base = {"tests_run": len(results), "seconds": round(secs, 4)}
    if setup is not None:
        return dict(base, status="timeout" if setup == "timeout" else "killed", by=None,
                    how="timeout" if setup == "timeout" else "import:%s" % setup)
    if stopped is not None:
        return dict(base, status="timeout", by=plan.valid[stopped], how="timeout")
    bad = [(i, o) for i, o, _ in results if o not in PASSING]
    if bad:
        return dict(base, status="killed", by=plan.valid[bad[0][0]], how=bad[0][1])
    if len(results) < len(plan.valid):
        return dict(base, status="killed", by=plan.valid[len(results)], how="crash")
    return dict(base, status="survived")


def task_main(task):
    try:
        analyse(task)
    finally:
        task.reap_exited(wait=True)
        task.rundirs.remove()


def analyse(task):
    os.chdir(task.dir)
    sys.path.insert(0, task.dir)
    if MODE == "schemata":
        t = time.monotonic()
        try:
            task.warm()
        except BaseException as e:  # noqa: BLE001
            task.send("fatal", phase="import", message="%s: %s" % (type(e).__name__, e))
            return
        task.send("warm", seconds=round(time.monotonic() - t, 4), why=task.reuse_why)
    # Coverage and the untraced reference run, side by side.
    t = time.monotonic()
    got = {}
    ref = task.ref_code if task.live is None else ()  # (): the warm modules as they are
    jobs = [("reference", run_all(task, ref, task.s["expected"], REF_BUDGET))]
    if SPEC.get("coverage", True) and MODE == "schemata":
        jobs.append(("coverage", coverage_job(task)))
    run_jobs(task, jobs, got.__setitem__)
    cov_out, entry = None, None
    if "coverage" in got:
        cov_out, entry, why = got["coverage"]
        task.send("coverage", report=entry, error=why, tests={k: v[0] for k, v in cov_out.items()})
    ref_out, ref_setup = got["reference"]
    task.send("reference", seconds=round(time.monotonic() - t, 4), setup=ref_setup,
              tests={k: [v[0], round(v[1], 6)] for k, v in ref_out.items()})
    if ref_setup is not None:
        task.send("fatal", phase="reference", message="the reference does not import: %s" % ref_setup)
        return
    plan = Plan(task, ref_out, cov_out, entry)
    excluded = {x: ref_out.get(x, ("not_run",))[0] for x in task.s["expected"] if x not in plan.time}
    if cov_out is not None:
        excluded.update({x: "%s under coverage" % cov_out.get(x, ("not_run",))[0]
                         for x in task.s["expected"] if x not in plan.time and x not in excluded})
    if not plan.valid:
        task.send("fatal", phase="reference", message="no test passes on the reference")
        return
    task.send("start", valid=len(plan.valid), mutants=len(task.s["mutants"]), excluded=excluded)
    if MODE == "schemata":
        jobs = ((m["id"], mutant_job(task, plan, m)) for m in task.s["mutants"])
    else:
        jobs = ((m["id"], plain_job(task, plan, m)) for m in task.s["mutants"])

    def done(key, value):
        value["id"] = key
        task.send("mutant", **value)

    run_jobs(task, jobs, done)
    task.reap_exited(wait=True)
    c = os.times()
    task.send("done", seconds=round(time.monotonic() - task.t0, 4),
              cpu=round(c.user + c.system + c.children_user + c.children_system, 4))


def start_task(index, s):
    """Fork the process of one subject; (pid, its records)."""
    up_r, up_w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(up_r)
        code = 0
        try:
            die_with_parent()
            task_main(Task(index, s, up_w))
        except BaseException as e:  # noqa: BLE001
            code = 1
            try:
                msg = "%s: %s" % (type(e).__name__, e)
                write_all(up_w, (json.dumps({"kind": "fatal", "task": index, "phase": "driver",
                                             "message": msg}) + "\n").encode())
            except BaseException:  # noqa: BLE001
                pass
        try:
            write_all(up_w, b"!done\n")  # the task's last record is in
        except BaseException:  # noqa: BLE001
            pass
        os._exit(code)
    os.close(up_w)
    return pid, up_r


# ==== the root ==============================================================================

def preload(subjects):
    """What every task process would import, imported once here: they inherit it."""
    wanted = []
    if any(s["test_kind"] == "pytest" for s in subjects):
        wanted += ["pytest", "_pytest.outcomes"]  # the tests' decorators and outcomes
    for name in wanted:
        try:
            importlib.import_module(name)
        except BaseException:  # noqa: BLE001 - reported where it is needed
            pass
    gc.collect()
    gc.freeze()


def main():
    global TOKENS
    out = 3
    subjects = SPEC["subjects"]
    preload(subjects)
    TOKENS = Tokens(len(subjects))
    pending = deque(range(len(subjects)))
    active = {}  # records fd -> Active

    while pending or active:
        while pending and len(active) < JOBS:
            i = pending.popleft()
            pid, r = start_task(i, subjects[i])
            active[r] = Active(i, pid)
        now = time.monotonic()
        wait = max(0.0, min(a.deadline for a in active.values()) - now)
        ready, _, _ = select.select(list(active), [], [], wait)
        for fd in ready:
            a = active[fd]
            data = os.read(fd, 1 << 16)
            a.buf += data
            lines = a.buf.split(b"\n")
            a.buf = lines.pop()
            for line in lines:
                if line == b"!done":
                    a.finished = True
                elif line:
                    write_all(out, line + b"\n")
            if not data:
                a.end(out, fd, "ended")
                del active[fd]
        now = time.monotonic()
        for fd, a in list(active.items()):
            if now >= a.deadline:
                kill_group(a.pid)
                a.end(out, fd, "was killed at the task wall limit (%.0f s)" % TASK_WALL)
                del active[fd]
    write_all(out, b'{"kind": "end"}\n')


class Active:
    """A running task process, as the root sees it."""

    def __init__(self, index, pid):
        self.index, self.pid = index, pid
        self.buf, self.finished = b"", False
        self.deadline = time.monotonic() + TASK_WALL

    def end(self, out, fd, why):
        """Close it, return its slots; report it when it ended without its last record."""
        os.close(fd)
        status = reap(self.pid)
        TOKENS.reclaim(self.index)
        if not self.finished:
            msg = "the task process %s (status %s)" % (why, status)
            write_all(out, (json.dumps({"kind": "fatal", "task": self.index, "phase": "driver",
                                        "message": msg}) + "\n").encode())


main()
os._exit(0)
