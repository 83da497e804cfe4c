"""Running one call sequence on a class (the reference or a mutant) and recording its trace:
per step (step 0 the constructor) the outcome — a return value or an exception type — and the
public state of every instance of the class the sequence made; and the arcs the reference
module executed (as coverage.py counts them: line to line, negative numbers for a code
object's entry and exit).

A generated test asserts exactly what `assertions` lists for a trace; `holds` checks those
assertions against another trace (a mutant's, a rerun's), so what the explorer counts as a kill
or an unstable value is what the written test would see.
"""

import ast
import builtins
import contextlib
import importlib.util
import io
import os
import random
import resource
import shutil
import signal
import sys
import time

from forge_values import _Obj, observe, read_literal, unclock

BUILTIN_EXC = {name for name, v in vars(builtins).items()
               if isinstance(v, type) and issubclass(v, BaseException)}


MEMORY_HEADROOM = 768 << 20  # address space a run may add to what the explorer maps


def limit_memory(headroom):
    """Cap this process's address space `headroom` above what it maps now: a call that would
    allocate without end (`math.factorial` of a result fed back as an argument, a mutant's
    `[None] * n`) raises MemoryError instead of taking the explorer down at the sandbox's
    memory limit. (The timer cannot stop a long C call; memory at least is bounded.)"""
    try:
        with open("/proc/self/statm") as f:
            pages = int(f.read().split()[0])
        now = pages * os.sysconf("SC_PAGE_SIZE")
        soft, hard = resource.getrlimit(resource.RLIMIT_AS)
        cap = now + headroom
        if hard != resource.RLIM_INFINITY:
            cap = min(cap, hard)
        resource.setrlimit(resource.RLIMIT_AS, (cap, hard))
    except (OSError, ValueError):
        pass


class CallTimeout(BaseException):
    """A call ran past its time budget (raised by the interval timer)."""


def _on_alarm(signum, frame):
    raise CallTimeout()


class Runner:
    def __init__(self, plan, base):
        self.plan = plan
        self.base = base
        self.timeout = plan.get("call_timeout_s", 0.5)
        self.fields = plan.get("fields", [])
        self.documented = {m["name"]: m.get("documented_raises", [])
                           for m in [plan.get("init", {"name": "__init__"})] + plan["methods"]}
        self.load_error = None
        self.arcs = set()
        signal.signal(signal.SIGALRM, _on_alarm)
        path = os.path.abspath(plan["module_file"])
        self.ref_file = path
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read()
        self.ref_lines = text.splitlines()
        self.valued = valued_methods(text, plan["class"])
        self.ordered = ordered_calls(text)
        # Every run starts from this seed of `random` (and NumPy's): exploration is
        # reproducible, and replays under other seeds show what depends on luck.
        self.random_seed = 0
        try:
            with self.quiet(), self.timer(plan.get("import_timeout_s", 60.0)):
                spec = importlib.util.spec_from_file_location(plan.get("module_name", "reference"), path)
                module = importlib.util.module_from_spec(spec)
                sys.modules[spec.name] = module
                spec.loader.exec_module(module)
            self.cls = getattr(module, plan["class"])
            limit_memory(MEMORY_HEADROOM)
        except BaseException as e:  # the reference itself does not import: say why
            self.load_error = {"load_error": "%s: %s" % (type(e).__name__, str(e)[:500])}
            self.cls = None

    def fresh_class(self):
        """The reference class from a fresh import of its module (for measuring coverage with
        the module's own lines executed under the measurement)."""
        spec = importlib.util.spec_from_file_location("reference_measured", self.ref_file)
        module = importlib.util.module_from_spec(spec)
        with self.quiet(), self.timer(self.plan.get("import_timeout_s", 60.0)):
            spec.loader.exec_module(module)
        return getattr(module, self.plan["class"])

    @contextlib.contextmanager
    def quiet(self):
        out, err = sys.stdout, sys.stderr
        sys.stdout = sys.stderr = io.StringIO()
        try:
            yield
        finally:
            sys.stdout, sys.stderr = out, err

    @contextlib.contextmanager
    def timer(self, seconds):
        signal.setitimer(signal.ITIMER_REAL, seconds)
        try:
            yield
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)

    # -- tracing ---------------------------------------------------------------------------

    def _global_tracer(self, arcs, quirks):
        ref = self.ref_file
        ordered = self.ordered

        def tracer(frame, event, arg):
            if event != "call" or frame.f_code.co_filename != ref:
                return None
            state = [-frame.f_code.co_firstlineno]

            def local(frame, event, arg):
                if event == "line":
                    arcs.add((state[0], frame.f_lineno))
                    state[0] = frame.f_lineno
                elif event == "return":
                    arcs.add((state[0], -frame.f_code.co_firstlineno))
                    if type(arg) is bool and ordered:
                        caller = frame.f_back
                        if caller is not None and caller.f_code.co_filename == ref and \
                                (caller.f_lineno, frame.f_code.co_name) in ordered:
                            quirks.append("%s() returned %r, ordered against a number on line %d"
                                          % (frame.f_code.co_name, arg, caller.f_lineno))
                return local

            return local

        return tracer

    # -- running ---------------------------------------------------------------------------

    def run(self, seq, cls=None, traced=True):
        """Run `seq` on `cls` (default: the reference) in a fresh directory. Returns
        {"trace", "arcs", "plain", "stopped", "timeout", "exc_types"} or None when the
        sequence cannot be set up (an argument object failed to build)."""
        cls = cls or self.cls
        arcs, quirks = set(), []
        work = self.base
        os.chdir(work)
        tracer = self._global_tracer(arcs, quirks) if traced else None
        insts, results, trace, plain = {}, {}, [], []
        stopped, timeout = None, False
        before = _seed_random(self.random_seed)
        try:
            steps = [("__init__", seq["init"], seq.get("init_kwargs", {}), False)]
            steps += [(c["method"], c["args"], c.get("kwargs", {}), c.get("set", False))
                      for c in seq["calls"]]
            for i, (name, args, kwargs, assign) in enumerate(steps):
                try:
                    a = [self.resolve(x, cls, insts, results, tracer) for x in args]
                    k = {n: self.resolve(x, cls, insts, results, tracer) for n, x in kwargs.items()}
                except _Unbuildable:
                    return None
                rec = {"method": name}
                if assign:
                    rec["set"] = True
                t0 = time.perf_counter()
                try:
                    with self.quiet(), self.timer(self.timeout), _tracing(tracer):
                        if i == 0:
                            value = cls(*a, **k)
                        elif assign:  # `obj.field = value`: a declared field set as tests do
                            value = setattr(insts[0], name, a[0])
                        else:
                            value = self.invoke(cls, insts[0], name, a, k)
                except CallTimeout:
                    timeout = True
                    trace.append({"out": "timeout"})
                    stopped = i
                    break
                except BaseException as e:  # the reference raised: that is an outcome
                    value = None
                    rec["out"] = "exc"
                    rec["exc"] = type(e).__name__
                    rec["bases"] = [t.__name__ for t in type(e).__mro__ if t.__name__ in BUILTIN_EXC
                                    and t.__module__ == "builtins"]
                    if not self.raised_by_reference(e):
                        rec["incidental"] = True
                        rec["message"] = str(e)[:200]
                    if isinstance(e, (RecursionError, MemoryError)):
                        rec["unstable"] = type(e).__name__
                else:
                    rec["out"] = "ret"
                    if i == 0:
                        insts[0] = value
                    elif not assign:
                        rec["value"] = list(observe(value))
                        if name in self.valued:
                            rec["valued"] = True
                        results[i] = value
                        if value is not None:
                            plain.append((i, value))
                rec["ms"] = round((time.perf_counter() - t0) * 1000, 3)
                if i == 0 and rec["out"] == "exc":
                    trace.append(rec)
                    stopped = 0
                    break
                rec["state"] = self.state(insts)
                trace.append(rec)
        finally:
            os.chdir(self.base)
            _empty(work)
        return {"trace": trace, "arcs": arcs, "plain": plain, "stopped": stopped,
                "timeout": timeout, "random": _random_state() != before, "quirks": quirks}

    def raised_by_reference(self, e):
        """Whether a `raise` statement of the reference module raised `e` (an exception from an
        operation on an argument — `TypeError` adding a str to an int — is not)."""
        tb = e.__traceback__
        last = None
        while tb is not None:
            last = tb
            tb = tb.tb_next
        if last is None or last.tb_frame.f_code.co_filename != self.ref_file:
            return False
        line = self.ref_lines[last.tb_lineno - 1] if 0 < last.tb_lineno <= len(self.ref_lines) else ""
        return line.lstrip().startswith("raise")

    def invoke(self, cls, obj, name, a, k):
        kind = self.plan.get("kinds", {}).get(name, "method")
        if kind == "property":
            return getattr(obj, name)
        if kind in ("static", "class"):
            return getattr(cls, name)(*a, **k)
        return getattr(obj, name)(*a, **k)

    def resolve(self, spec, cls, insts, results, tracer):
        if "lit" in spec:
            return read_literal(spec["lit"])
        if "ref" in spec:
            return results.get(spec["ref"])
        if "new" in spec:
            a = [self.resolve(x, cls, insts, results, tracer) for x in spec["args"]]
            try:
                with self.quiet(), self.timer(self.timeout), _tracing(tracer):
                    obj = cls(*a)
            except BaseException:
                raise _Unbuildable()
            insts[spec["new"]] = obj
            return obj
        for key, build in (("list", list), ("set", set), ("tuple", tuple)):
            if key in spec:
                items = [self.resolve(x, cls, insts, results, tracer) for x in spec[key]]
                try:
                    return build(items)
                except TypeError:
                    raise _Unbuildable()
        if "dict" in spec:
            try:
                return {self.resolve(k, cls, insts, results, tracer):
                        self.resolve(v, cls, insts, results, tracer) for k, v in spec["dict"]}
            except TypeError:
                raise _Unbuildable()
        if "obj" in spec:  # `_Obj(height=3)`: an object with the attributes feedback asked for
            return _Obj(**{n: self.resolve(v, cls, insts, results, tracer) for n, v in spec["obj"]})
        if "fn" in spec:
            # `(lambda *a, **k: 3)`: a fresh value per call, as the written lambda builds it
            made = spec["fn"]
            return lambda *a, **k: self.resolve(made, cls, insts, results, None)
        raise _Unbuildable()

    def state(self, insts):
        """The declared public fields of every instance, observed (tracing off: reading a
        plain attribute runs no reference code; a property would, and is not traced)."""
        out = {}
        for idx, obj in sorted(insts.items()):
            fields = {}
            for f in self.fields:
                try:
                    with self.quiet(), self.timer(self.timeout):
                        v = getattr(obj, f)
                except BaseException:
                    fields[f] = ["missing"]
                    continue
                fields[f] = list(observe(v))
            out[str(idx)] = fields
        return out


def valued_methods(source, class_name):
    """The methods of `class_name` whose `None` is an answer, and asserted: those that return
    a value somewhere (`return X`, X not `None`) and say `return None` somewhere (`get_gpa`
    of an unknown student). A `None` from a procedure, or from falling off the end of a
    method that returns values elsewhere (`create_order` returns False on failure and
    nothing on success), is not asserted: a candidate may report success otherwise."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return set()
    out = set()
    for node in ast.walk(tree):
        if not (isinstance(node, ast.ClassDef) and node.name == class_name):
            continue
        for f in node.body:
            if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef)):
                kinds = _returns(f.body)
                if kinds == {"value", "none"}:
                    out.add(f.name)
    return out


def _returns(body):
    """What the `return` statements of a function body (not of nested functions) give:
    "value", "none" (`return None`), "bare" (`return`); empty for a generator."""
    kinds, stack = set(), list(body)
    while stack:
        n = stack.pop()
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            continue  # a nested function's returns are its own
        if isinstance(n, (ast.Yield, ast.YieldFrom)):
            return set()  # a generator: its value is an iterator, never plain data
        if isinstance(n, ast.Return):
            if n.value is None:
                kinds.add("bare")
            elif _is_none(n.value):
                kinds.add("none")
            elif isinstance(n.value, ast.IfExp) and (_is_none(n.value.body) or _is_none(n.value.orelse)):
                kinds |= {"none", "value"}  # `return total / count if count else None`
            else:
                kinds.add("value")
        stack.extend(ast.iter_child_nodes(n))
    kinds.discard("bare")
    return kinds


def ordered_calls(source):
    """(line, callee name) of every call that is an operand of an ordering comparison
    (`self.quantity(p) >= n`): where such a callee returns a bool (a `False` that means "not
    found"), the reference orders it against a number (`False >= 0` holds) — a quirk no
    specification asks a candidate to repeat."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return set()
    ordering = (ast.Lt, ast.LtE, ast.Gt, ast.GtE)
    out = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.Compare) or not any(isinstance(o, ordering) for o in node.ops):
            continue
        for operand in [node.left] + node.comparators:
            if isinstance(operand, ast.Call):
                f = operand.func
                name = f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", None)
                if name:
                    out.add((operand.lineno, name))
    return out


def _is_none(e):
    return isinstance(e, ast.Constant) and e.value is None


def _random_state():
    """A fingerprint of the global random generators' states (`random`, NumPy's legacy one)."""
    state = [random.getstate()]
    np = sys.modules.get("numpy")
    if np is not None:
        try:
            st = np.random.get_state()
            state.append((st[2], st[1][:8].tobytes()))
        except Exception:  # noqa: BLE001 - a NumPy without the legacy generator
            pass
    return state


def _seed_random(seed):
    """Seed the global random generators; returns their state after seeding."""
    random.seed(seed)
    np = sys.modules.get("numpy")
    if np is not None:
        try:
            np.random.seed(seed % (1 << 32))
        except Exception:  # noqa: BLE001
            pass
    return _random_state()


@contextlib.contextmanager
def _tracing(tracer):
    """Our arc tracer around a call (none: leave whatever tracer is installed, e.g. coverage's)."""
    if tracer is None:
        yield
        return
    sys.settrace(tracer)
    try:
        yield
    finally:
        sys.settrace(None)


def _empty(path):
    """Remove what a run left in its directory, so the next run starts in an empty one."""
    for name in os.listdir(path):
        p = os.path.join(path, name)
        if os.path.isdir(p) and not os.path.islink(p):
            shutil.rmtree(p, ignore_errors=True)
        else:
            try:
                os.unlink(p)
            except OSError:
                pass


class _Unbuildable(Exception):
    pass


def assertions(trace):
    """What a generated test asserts about a trace, in order: per step, the exception type
    (the nearest builtin class: a candidate need not define the reference's own exception
    classes), or the return value when it is plain data (None only from a method that says
    `return None` and returns values elsewhere: `valued_methods`), or else only that
    the call returned (`ok`: a test errors when a call raises); then each instance
    field whose value changed since the previous step (all of them after the constructor).
    Opaque values and missing fields are recorded, never asserted. A step that sets a field
    (`obj.field = value`) asserts nothing of its own, and not the value it set."""
    out = []
    prev = {}
    for i, rec in enumerate(trace):
        if rec.get("set"):
            pass
        elif rec.get("out") == "exc":
            base = rec["bases"][0] if rec.get("bases") else "Exception"
            out.append({"step": i, "kind": "raises", "exc": base})
        elif rec.get("out") == "ret" and i > 0:
            v = rec.get("value") or []
            if v and v[0] == "value" and (v[1] != "None" or rec.get("valued")):
                out.append({"step": i, "kind": "returns", "src": v[1], "norm": v[2]})
            else:
                out.append({"step": i, "kind": "ok"})
        for inst, fields in sorted((rec.get("state") or {}).items()):
            for f, v in fields.items():
                if v[0] != "value":
                    continue
                if prev.get((inst, f)) == v:
                    continue
                prev[(inst, f)] = v
                if rec.get("set") and inst == "0" and f == rec["method"]:
                    continue
                out.append({"step": i, "kind": "field", "inst": int(inst), "field": f,
                            "src": v[1], "norm": v[2]})
    return out


def usable(res, documented=None):
    """A run that can become a test: it completed, and every exception the reference did not
    `raise` itself (an `IndexError` popping an empty list, a `TypeError` from our argument) is
    of a type the method's docstring names, and the reference ordered no bool its own code
    returned against a number (`ordered_calls`). Anything else is outside the specified contract:
    asserting it would fail candidates that handle the case otherwise."""
    if res is None or res["timeout"] or res.get("quirks"):
        return False
    return not any(broken(r, documented) for r in res["trace"])


def broken(rec, documented=None):
    """Whether a step's record breaks the contract: an exception the reference did not
    `raise` itself, of a type its method's docstring does not name."""
    if not rec.get("incidental"):
        return False
    named = (documented or {}).get(rec.get("method"), ())
    return not set(rec["bases"]) & set(named) or "TypeError" in rec["bases"] and "TypeError" not in named


def holds(assertion, trace):
    """Whether `assertion` (of another trace) passes on `trace`."""
    i = assertion["step"]
    if i >= len(trace):
        return False
    rec = trace[i]
    kind = assertion["kind"]
    if kind == "raises":
        return rec.get("out") == "exc" and assertion["exc"] in (rec.get("bases") or [])
    if kind in ("ok", "returns") and rec.get("out") != "ret":
        return False
    if kind == "ok":
        return True
    if kind == "returns":
        return _same(rec.get("value") or [], assertion)
    if rec.get("out") not in ("ret", "exc"):
        return False  # the step did not complete: no state after it
    fields = (rec.get("state") or {}).get(str(assertion["inst"])) or {}
    return _same(fields.get(assertion["field"]) or [], assertion)


def _same(observed, assertion):
    """Whether an observed value (`observe`'s triple) equals the asserted one, normalised as
    the written test normalises it."""
    if len(observed) != 3:
        return False
    if assertion.get("norm") == "noclock":
        return not observed[2] and unclock(observed[1]) == assertion["src"]
    return observed[1] == assertion["src"]
