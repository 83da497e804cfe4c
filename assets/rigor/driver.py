# classlab rigor driver: coverage and mutation analysis of ONE task's reference under its own
# tests, run by classlab inside the sandbox (src/exec/program.rs; spec in sys.argv[1], JSON
# lines on descriptor 3). Trusted program; the code it runs is the dataset's reference and
# mutants of it.
#
# Phases (each unit of work in a forked child, so this process stays as it was after warming):
#   1. warm: import the test runner, the reference module and the test module once here, so
#      every child inherits the task's dependencies already imported;
#   2. coverage: a child runs every test under coverage.py (branch=True, one dynamic context
#      per test) and writes coverage.py's own JSON report of the reference file;
#   3. reference: a child runs every test again untraced, timing each; a test counts only when
#      it passed in both runs;
#   4. mutants (mode "schemata"): each mutant's module is compiled here (identical bytecode to
#      the reference = trivially equivalent, not run), then a child installs it and runs the
#      tests that cover its lines, cheapest first, stopping at the first failure; a survivor is
#      confirmed by a fresh child running the whole suite. Each test has a budget relative to
#      its reference time, enforced from here by killing the child; a timeout is confirmed by
#      a rerun of that test alone at twice the budget.
#      Mode "plain" (the benchmark's straightforward runner): this process never imports the
#      task; per mutant a child writes the mutated module, imports it, and runs the whole
#      suite in order.

import json
import os
import select
import signal
import sys
import time
import types

OUT = os.fdopen(3, "w", buffering=1)


def emit(kind, **fields):
    fields["kind"] = kind
    OUT.write(json.dumps(fields) + "\n")


SPEC = json.load(open(sys.argv[1]))
WORKDIR = os.getcwd()
sys.path.insert(0, WORKDIR)
CODE_PATH = os.path.join(WORKDIR, SPEC["code_file"])
CODE_NAME = SPEC["code_module"]
TEST_PATH = os.path.join(WORKDIR, SPEC["test_file"])
TEST_NAME = SPEC["test_module"]
CONCATENATED = SPEC["layout"] == "concatenated"
PYTEST = SPEC["test_kind"] == "pytest"
EXPECTED = SPEC["expected"]
T0 = time.monotonic()

with open(CODE_PATH, "rb") as f:
    CODE_BYTES = f.read()
with open(TEST_PATH, "rb") as f:
    TEST_SRC = f.read()

# ---- running tests (in a child) ---------------------------------------------------------

import unittest  # noqa: E402

if PYTEST:
    try:
        import pytest  # noqa: F401
        from _pytest.outcomes import Skipped, XFailed
    except BaseException:  # a test file that does not need pytest
        Skipped = XFailed = ()


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


def run_unittest(ns, tid):
    cls_name, _, meth = tid.partition(".")
    cls = ns.get(cls_name)
    if not isinstance(cls, type) or not hasattr(cls, meth):
        return "error"
    result = Result()
    # A suite of one: class and module fixtures (setUpClass) run around the test.
    unittest.TestSuite([cls(meth)]).run(result)
    return result.outcome


def marks_of(fn):
    return list(getattr(fn, "pytestmark", []) or [])


def run_pytest(ns, tid):
    cls_name, _, meth = tid.rpartition(".")
    inst = None
    if cls_name:
        cls = ns.get(cls_name)
        if not isinstance(cls, type):
            return "error"
        inst = cls()
        fn = getattr(inst, meth, None)
        marks = marks_of(fn) + marks_of(cls)
    else:
        fn = ns.get(meth)
        marks = marks_of(fn)
    if fn is None:
        return "error"
    names = [m.name for m in marks]
    if "skip" in names or "skipif" in names:
        return "skip"
    if "parametrize" in names or "usefixtures" in names:
        return "unsupported"
    try:
        import inspect
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


RUN_TEST = run_pytest if PYTEST else run_unittest


def install(code):
    """Execute `code` (the reference or a mutant) as the code module, then the tests; the
    test module's namespace."""
    mod = types.ModuleType(CODE_NAME)
    mod.__file__ = CODE_PATH
    sys.modules[CODE_NAME] = mod
    exec(code, mod.__dict__)
    tmod = types.ModuleType(TEST_NAME)
    tmod.__file__ = TEST_PATH
    if CONCATENATED:  # ClassEval: the tests see the code's globals (one module in ClassEval)
        tmod.__dict__.update(
            (k, v) for k, v in mod.__dict__.items() if not (k.startswith("__") and k.endswith("__"))
        )
    sys.modules[TEST_NAME] = tmod
    exec(TEST_CODE, tmod.__dict__)
    return tmod.__dict__


SCRATCH = [0]


def child_main(wfd, code, tests, stop_first, before=None):
    """In the child: install, run `tests` in order, report each on `wfd`; never returns."""
    try:
        os.setpgid(0, 0)
        null = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(null, fd)
        try:
            with open("/proc/self/oom_score_adj", "w") as f:
                f.write("1000")  # a runaway mutant, not the driver, is what memory pressure kills
        except OSError:
            pass
        d = os.path.join(WORKDIR, "run-%d" % os.getpid())
        os.mkdir(d)
        os.chdir(d)
        signal.signal(signal.SIGALRM, signal.SIG_DFL)
        if before is not None:
            before()
        try:
            ns = install(code)
        except BaseException as e:  # noqa: BLE001
            os.write(wfd, ("I %s\n" % type(e).__name__).encode())
            os._exit(0)
        os.write(wfd, b"S\n")
        for i, tid in enumerate(tests):
            t = time.perf_counter()
            try:
                out = RUN_TEST(ns, tid)
            except BaseException:  # noqa: BLE001 - the runner itself failed on this test
                out = "error"
            os.write(wfd, ("R %d %s %.6f\n" % (i, out, time.perf_counter() - t)).encode())
            if stop_first and out not in ("pass", "skip", "unsupported"):
                break
        if AFTER[0] is not None:
            AFTER[0]()
        os.write(wfd, b"D\n")
    except BaseException:  # noqa: BLE001
        pass
    os._exit(0)


AFTER = [None]


def supervise(code, tests, budgets, setup_budget, stop_first, before=None):
    """Run `tests` in a child; returns (setup, results, stopped): setup is None (ok), an
    exception name (install failed), "timeout" or "crash"; results [(index, outcome, secs)];
    stopped is the index of the test killed at its budget (None otherwise)."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        child_main(w, code, tests, stop_first, before)
    os.close(w)
    try:
        os.setpgid(pid, pid)
    except OSError:
        pass
    results, setup, stopped = [], "crash", None
    buf = b""
    deadline = time.monotonic() + setup_budget
    done = False
    while not done:
        left = deadline - time.monotonic()
        if left <= 0:
            if setup == "crash" and not results and b"S\n" not in buf:
                setup = "timeout"
            else:
                stopped = len(results)
            kill(pid)
            break
        ready, _, _ = select.select([r], [], [], left)
        if not ready:
            continue
        data = os.read(r, 65536)
        if not data:
            break
        buf += data
        while b"\n" in buf:
            line, buf = buf.split(b"\n", 1)
            parts = line.decode().split()
            if not parts:
                continue
            if parts[0] == "S":
                setup = None
                deadline = time.monotonic() + (budgets[0] if budgets else setup_budget)
            elif parts[0] == "I":
                setup = parts[1] if len(parts) > 1 else "Exception"
            elif parts[0] == "R":
                i = int(parts[1])
                results.append((i, parts[2], float(parts[3])))
                nxt = i + 1
                deadline = time.monotonic() + (budgets[nxt] if nxt < len(budgets) else setup_budget)
            elif parts[0] == "D":
                done = True
    os.close(r)
    reap(pid)
    cleanup(pid)
    return setup, results, stopped


def kill(pid):
    for target in (-pid, pid):
        try:
            os.kill(target, signal.SIGKILL)
        except OSError:
            pass


def reap(pid):
    kill(pid)  # the child leaves with os._exit; anything of its group still around goes too
    try:
        os.waitpid(pid, 0)
    except ChildProcessError:
        pass


def cleanup(pid):
    import shutil
    shutil.rmtree(os.path.join(WORKDIR, "run-%d" % pid), ignore_errors=True)


# ---- phase 1: warm -----------------------------------------------------------------------

TEST_CODE = compile(TEST_SRC, TEST_PATH, "exec", dont_inherit=True)
REF_CODE = compile(CODE_BYTES, CODE_PATH, "exec", dont_inherit=True)
MODE = SPEC.get("mode", "schemata")
IMPORT_LIMIT = float(SPEC.get("import_timeout", 60.0))


def on_alarm(signum, frame):
    raise TimeoutError("importing the task took longer than %.0f s" % IMPORT_LIMIT)


def warm():
    # The imports of the reference and the tests, done once: every child inherits them. Run
    # in a scratch directory, which is removed after (an import may write files).
    d = os.path.join(WORKDIR, "warm")
    os.mkdir(d)
    os.chdir(d)
    signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, IMPORT_LIMIT)
    try:
        install(REF_CODE)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, signal.SIG_DFL)
        os.chdir(WORKDIR)
        import shutil
        shutil.rmtree(d, ignore_errors=True)
    # Children must start from the reference's modules, not this run's objects.
    sys.modules.pop(CODE_NAME, None)
    sys.modules.pop(TEST_NAME, None)
    # coverage.py is imported by the coverage child only: every megabyte this process holds
    # makes each of the many forks to come slower. Objects that exist now are never
    # collected: forked children do not copy their pages when a collection would touch them.
    import gc
    gc.collect()
    gc.freeze()


if MODE == "schemata":
    t = time.monotonic()
    try:
        warm()
    except BaseException as e:  # noqa: BLE001
        emit("fatal", phase="import", message="%s: %s" % (type(e).__name__, e))
        os._exit(0)
    emit("warm", seconds=round(time.monotonic() - t, 4))

# ---- phase 2 and 3: the reference, traced and untraced ------------------------------------

REF_BUDGET = float(SPEC.get("reference_test_budget", 60.0))
SETUP_BUDGET = float(SPEC.get("setup_budget", 30.0))


def run_all(code, tests, budget, before=None):
    """Every test of `tests` once, each in order; a test killed at its budget is a timeout
    and the rest go on in a new child. {id: (outcome, secs)} and the install failure."""
    out = {}
    todo = list(tests)
    while todo:
        setup, results, stopped = supervise(
            code, todo, [budget] * len(todo), SETUP_BUDGET, False, before
        )
        if setup is not None:
            return out, setup
        for i, o, s in results:
            out[todo[i]] = (o, s)
        if stopped is not None:
            out[todo[stopped]] = ("timeout", budget)
            todo = todo[stopped + 1:]
        elif len(results) < len(todo):
            # The child died inside a test (os._exit, a signal): that test errored.
            out[todo[len(results)]] = ("crash", 0.0)
            todo = todo[len(results) + 1:]
        else:
            todo = []
    return out, None


COV_JSON = os.path.join(WORKDIR, "coverage.json")


def coverage_run():
    """Phase 2: every test under coverage.py; its JSON report is written by the child."""
    state = {}

    def before():
        import coverage
        cov = coverage.Coverage(data_file=None, config_file=False, branch=True,
                                include=[CODE_PATH])
        cov.start()
        state["cov"] = cov
        global RUN_TEST
        plain = RUN_TEST

        def traced(ns, tid):
            cov.switch_context(tid)
            try:
                return plain(ns, tid)
            finally:
                cov.switch_context("")

        RUN_TEST = traced

        def after():
            cov.stop()
            cov.json_report(morfs=[CODE_PATH], outfile=COV_JSON, show_contexts=True)

        AFTER[0] = after

    return run_all(REF_CODE, EXPECTED, REF_BUDGET, before)


def read_coverage():
    try:
        with open(COV_JSON) as f:
            report = json.load(f)
    except (OSError, ValueError) as e:
        return None, "no coverage report: %s" % e
    files = report.get("files", {})
    entry = next(iter(files.values()), None)
    if entry is None:
        return None, "the reference file was not measured"
    for bulky in ("functions", "classes"):  # per-function summaries: not used
        entry.pop(bulky, None)
    return entry, None


if SPEC.get("coverage", True) and MODE == "schemata":
    t = time.monotonic()
    cov_out, cov_setup = coverage_run()
    entry, why = read_coverage() if cov_setup is None else (None, "install failed: %s" % cov_setup)
    emit("coverage", report=entry, error=why, seconds=round(time.monotonic() - t, 4),
         tests={k: v[0] for k, v in cov_out.items()})
else:
    cov_out, entry = {}, None

t = time.monotonic()
ref_out, ref_setup = run_all(REF_CODE, EXPECTED, REF_BUDGET)
emit("reference", seconds=round(time.monotonic() - t, 4), setup=ref_setup,
     tests={k: [v[0], round(v[1], 6)] for k, v in ref_out.items()})
if ref_setup is not None:
    emit("fatal", phase="reference", message="the reference does not import: %s" % ref_setup)
    os._exit(0)

# A test counts when it passed in both runs (untraced only, without coverage).
VALID = [t for t in EXPECTED if ref_out.get(t, ("",))[0] == "pass"
         and (not cov_out or cov_out.get(t, ("",))[0] == "pass")]
if not VALID:
    emit("fatal", phase="reference", message="no test passes on the reference")
    os._exit(0)
REF_TIME = {t: ref_out[t][1] for t in VALID}
ORDER = {t: i for i, t in enumerate(VALID)}
BASE = float(SPEC.get("test_budget_base", 0.2))
FACTOR = float(SPEC.get("test_budget_factor", 10.0))


def budget_of(tid, scale=1.0):
    return scale * max(BASE, FACTOR * REF_TIME[tid])


# Per line: the valid tests whose context executed it; lines run only at import.
LINE_TESTS = {}
IMPORT_LINES = set()
if entry is not None:
    valid = set(VALID)
    for line, ctxs in (entry.get("contexts") or {}).items():
        n = int(line)
        for c in ctxs:
            if c == "":
                IMPORT_LINES.add(n)
            elif c in valid:
                LINE_TESTS.setdefault(n, set()).add(c)

# ---- phase 4: mutants ----------------------------------------------------------------------


def canon(co):
    """A code object without its positions: what TCE compares."""
    consts = tuple(
        canon(c) if isinstance(c, types.CodeType) else (type(c).__name__, repr(c))
        for c in co.co_consts
    )
    return (co.co_code, consts, co.co_names, co.co_varnames, co.co_freevars, co.co_cellvars,
            co.co_flags, co.co_argcount, co.co_posonlyargcount, co.co_kwonlyargcount,
            co.co_name, getattr(co, "co_qualname", ""),
            getattr(co, "co_exceptiontable", b""))


REF_CANON = canon(REF_CODE)


def mutant_bytes(m):
    return CODE_BYTES[:m["start"]] + m["text"].encode() + CODE_BYTES[m["end"]:]


def selected(m):
    """The valid tests to run first on `m`, cheapest first; None = none covers it."""
    first, last = m["lines"]
    scope = m.get("scope")
    chosen = set()
    lines = range(scope[0], scope[1] + 1) if scope else range(first, last + 1)
    for n in lines:
        chosen |= LINE_TESTS.get(n, set())
    if not chosen and not scope and any(n in IMPORT_LINES for n in range(first, last + 1)):
        chosen = set(VALID)  # run at import only (class attribute, module constant): all tests
    return sorted(chosen, key=lambda t: (REF_TIME[t], ORDER[t]))


def attempt(code, tests, scale=1.0):
    """One child running `tests` on a mutant, stopping at the first that does not pass."""
    return supervise(code, tests, [budget_of(t, scale) for t in tests],
                     SETUP_BUDGET_M * scale, True)


def first_failure(code, tests):
    """Run `tests` on a mutant, stopping at the first that does not pass; a timeout counts
    only when a rerun at twice the budget times out too. Returns (verdict, test, how, ran):
    verdict "killed" (how: fail, error, crash, timeout, import:<exception>) or "passed"."""
    todo = list(tests)
    ran = 0
    while todo:
        setup, results, stopped = attempt(code, todo)
        ran += len(results)
        if setup == "timeout":
            setup, results, stopped = attempt(code, todo[:1], 2.0)
            if setup == "timeout":
                return ("killed", None, "timeout", ran)
            ran += len(results)
        if setup is not None:
            return ("killed", None, "import:%s" % setup, ran)
        for i, o, _ in results:
            if o not in ("pass", "skip", "unsupported"):
                return ("killed", todo[i], o, ran)
        if stopped is not None:
            tid = todo[stopped]
            setup2, res2, stopped2 = attempt(code, [tid], 2.0)
            ran += 1
            if stopped2 is not None or setup2 == "timeout":
                return ("killed", tid, "timeout", ran)
            if setup2 is not None:
                return ("killed", None, "import:%s" % setup2, ran)
            if not res2:
                return ("killed", tid, "crash", ran)
            if res2[0][1] not in ("pass", "skip", "unsupported"):
                return ("killed", tid, res2[0][1], ran)
            todo = todo[stopped + 1:]
        elif len(results) < len(todo):
            # The child died inside a test (os._exit, a signal): that test did not pass.
            return ("killed", todo[len(results)], "crash", ran)
        else:
            todo = []
    return ("passed", None, None, ran)


SETUP_BUDGET_M = max(1.0, float(SPEC.get("mutant_setup_budget", 5.0)))
TASK_BUDGET = SPEC.get("task_budget")


def analyse(m):
    try:
        code = compile(mutant_bytes(m), CODE_PATH, "exec", dont_inherit=True)
    except (SyntaxError, ValueError) as e:
        return {"status": "killed", "by": None, "how": "compile:%s" % type(e).__name__, "tests_run": 0}
    if canon(code) == REF_CANON:
        return {"status": "equivalent"}
    # The covering tests first, cheapest first; then, in the same child, the rest of the
    # suite in order: a mutant survives only when the whole suite passed on it.
    first = selected(m)
    chosen = set(first)
    tests = first + [t for t in VALID if t not in chosen]
    verdict, by, how, ran = first_failure(code, tests)
    if verdict == "killed":
        res = {"status": "timeout" if how == "timeout" else "killed", "by": by, "how": how,
               "tests_run": ran}
        if by is not None and by not in chosen:
            res["confirm"] = True  # killed by a test that does not cover its lines
        return res
    return {"status": "survived", "tests_run": ran}


def analyse_plain(m):
    """The straightforward runner: a child imports the mutated module from a file and runs the
    whole suite in order."""
    text = mutant_bytes(m)
    budget = SETUP_BUDGET_M + sum(budget_of(t) for t in VALID)

    def before():
        with open(os.path.join(os.getcwd(), SPEC["code_file"]), "wb") as f:
            f.write(text)
        sys.path.insert(0, os.getcwd())
        import importlib
        importlib.invalidate_caches()

    # The child imports the module by name (its file, compiled there), then runs every test.
    setup, results, stopped = supervise(
        IMPORTED, VALID, [budget] * len(VALID), budget, False, before
    )
    if setup is not None:
        return {"status": "killed", "by": None, "how": "import:%s" % setup}
    if stopped is not None:
        return {"status": "timeout", "by": VALID[stopped], "how": "timeout"}
    bad = [(i, o) for i, o, _ in results if o not in ("pass", "skip", "unsupported")]
    if bad:
        return {"status": "killed", "by": VALID[bad[0][0]], "how": bad[0][1]}
    if len(results) < len(VALID):
        return {"status": "killed", "by": VALID[len(results)], "how": "crash"}
    return {"status": "survived"}


# In plain mode `install` imports the code module from the child's own directory.
IMPORTED = compile("import importlib as _i, sys as _s\n_s.modules.pop(%r, None)\n"
                   "globals().update(vars(_i.import_module(%r)))\n" % (CODE_NAME, CODE_NAME),
                   "<plain>", "exec")

emit("start", valid=len(VALID), mutants=len(SPEC["mutants"]),
     excluded={t: ref_out.get(t, ("not_run",))[0] for t in EXPECTED if t not in REF_TIME})
for m in SPEC["mutants"]:
    if TASK_BUDGET is not None and time.monotonic() - T0 > float(TASK_BUDGET):
        emit("mutant", id=m["id"], status="not_run")
        continue
    t = time.monotonic()
    res = analyse(m) if MODE == "schemata" else analyse_plain(m)
    res["id"] = m["id"]
    res["seconds"] = round(time.monotonic() - t, 4)
    emit("mutant", **res)
c = os.times()
emit("done", seconds=round(time.monotonic() - T0, 4),
     cpu=round(c.user + c.system + c.children_user + c.children_system, 4))
OUT.flush()
os._exit(0)
