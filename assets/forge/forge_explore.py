"""The forge explorer: generate call sequences on a reference class, keep those that reach new
arcs or kill new mutants, select a small covering suite, shrink it, and record every call's
outcome (the trace a generated test asserts). Runs inside classlab's sandbox, in the task's
own Python environment, as a trusted program beside the reference module; classlab writes the
test module from the JSON this prints.

    python forge_explore.py PLAN.json [OUT.json]     (default: one JSON line on descriptor 3)

Deterministic for a plan (its `seed`): the random generator is seeded, work is bounded by
counts, not time (a `deadline` only cuts a runaway exploration short, and says so).
"""

import ast
import inspect
import json
import os
import random
import re
import shutil
import signal
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from forge_runner import Runner, broken, usable  # noqa: E402
from forge_values import (NOT_OBJECTS, Pool, attr_name_ok, attr_uses, last_method,  # noqa: E402
                          field_params, literal, markers, max_instance, numbers_in, parse_type,
                          read_literal, sets_in, shape_checked, strings_in, type_of_default)


class Explorer:
    def __init__(self, plan, runner):
        self.plan = plan
        self.runner = runner
        self.rng = random.Random(plan.get("seed", 0))
        self.pool = Pool(plan.get("literals", []), markers("\n".join(runner.ref_lines)))
        self.methods = plan["methods"]  # the skeleton's targets (classlab left out private ones)
        self.types = {}
        for m in [plan["init"]] + self.methods:
            for p in m.get("params", []):
                t = parse_type(p.get("type") or "")
                if t == ("any",) and p.get("default") not in (None, "None"):
                    t = type_of_default(p["default"])
                if p.get("size") and t in (("any",), ("int",)):
                    t = ("size",)  # used as a size (`range(n)`): never negative
                self.types[(m["name"], p["name"])] = t
        self.checked = shape_checked("\n".join(runner.ref_lines))
        self.attr_uses = attr_uses("\n".join(runner.ref_lines))
        self.examples = plan.get("examples", {})
        self.max_calls = plan.get("max_calls", 6)
        self.instances = 0
        self.keys = plan.get("keys", [])
        self.key_values = set()  # the keys as values (`keys` holds their source)
        for k in self.keys:
            try:
                self.key_values.add(ast.literal_eval(k))
            except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
                pass
        self.strings = []  # strings the sequence being built uses
        self.numbers = []  # and numbers
        self.bank = {}  # field -> the distinct plain values (sources) it held in usable runs
        self.field_params = field_params("\n".join(runner.ref_lines), plan["class"],
                                         {p["name"] for p in plan["init"].get("params", [])})
        self.setting = False  # fields are set once the first runs have filled the bank
        self.corpus = []  # kept sequences: (seq, trace, goals)
        self.covered = set()
        self.witness = {}
        self.discarded = {}

    # -- generation ------------------------------------------------------------------------

    def resume(self, seq):
        """Build on `seq` (None: a new sequence): its instances, strings and numbers are the
        ones new calls may reuse."""
        self.instances = max_instance(seq) if seq else 0
        self.strings = strings_in(seq) if seq else []
        self.numbers = numbers_in(seq) if seq else []

    def value(self, t, results, depth=0):
        rng = self.rng
        kind = t[0]
        if results and rng.random() < 0.15:
            fits = [i for i, v in results if _fits(v, t) and not self.pool.marked(v)]
            if fits:
                return {"ref": rng.choice(fits)}
        if kind == "union":
            return self.value(rng.choice(t[1:]), results, depth)
        if kind == "size":
            sizes = [v for v in self.pool.by_kind["int"] if 0 <= v <= 1000]
            return {"lit": repr(rng.choice(sizes) if sizes and rng.random() < 0.7 else rng.randint(0, 12))}
        if kind == "flatdict":  # looked-up keys, plain values (an item of a field's list)
            return self.mapping(("dict", ("any",), ("any",)), depth, flat=True)
        if kind == "record":  # the keys an example shows, values of their types
            return {"dict": [[{"lit": repr(k)}, self.value(vt, [], depth + 1)] for k, vt in t[1:]]}
        if kind == "choice":  # one of the strings the reference compares it with
            v = rng.choice(t[1:])
            if isinstance(v, str):  # (an enumeration's values may be ints)
                self.strings.append(v)
            return {"lit": _src(v)}
        if kind == "complex":  # pooled parts, now and then a real number
            re_part, im_part = (self.pool.pick(rng, rng.choice(("float", "int"))) for _ in "ri")
            im_part = 0 if rng.random() < 0.2 else im_part
            try:
                return {"lit": _src(complex(re_part, im_part))}
            except (TypeError, ValueError, OverflowError):
                return {"lit": "1j"}
        if kind in ("int", "float", "str", "bool", "bytes", "none"):
            if kind == "float" and rng.random() < 0.3:
                kind = "int"
            v = self.pool.pick(rng, kind)
            if kind == "int" and rng.random() < 0.2:
                v = rng.randint(-3, 12)
            if kind in ("int", "float") and self.numbers and rng.random() < 0.2:
                # a number the sequence already used: the point that is one of the
                # interpolation's knots, the amount just deposited
                same = [x for x in self.numbers if kind == "float" or type(x) is int]
                v = rng.choice(same) if same else v
            if kind in ("int", "float") and type(v) in (int, float):
                self.numbers.append(v)
            if kind == "str" and self.strings and rng.random() < 0.2:
                # a string the sequence already used as it is: the key an earlier call stored
                # under (delete or look up the student just inserted)
                v = rng.choice(self.strings)
            elif kind == "str" and rng.random() < 0.2:
                v = self.composed()
            if kind == "str":
                self.strings.append(v)
            return {"lit": _src(v)}
        if kind == "class" and t[1] == self.plan["class"] and depth < 1:
            self.instances += 1
            return {"new": self.instances, "args": self.args(self.plan["init"], results, depth + 1)[0]}
        if kind == "class" and t[1] == "Callable":
            return {"fn": self.value(("any",), [], depth + 1)}
        if kind == "class" and t[1] != self.plan["class"] and t[1] not in NOT_OBJECTS:
            # another class (`screen: Screen`): an object whose attributes the reference's
            # feedback fills in (`repair`)
            return {"obj": []}
        if depth >= 2:
            kind = "any"
        if kind in ("list", "set"):
            n = rng.randint(0, 3)
            items = [self.value(t[1], [], depth + 1) for _ in range(n)]
            return {"list" if kind == "list" else "set": items}
        if kind == "tuple":
            elems = t[1:] or [("any",)] * rng.randint(1, 3)
            return {"tuple": [self.value(e, [], depth + 1) for e in elems if e != ("...",)]}
        if kind == "dict" or (kind == "any" and self.keys and depth < 3 and rng.random() < 0.15):
            return self.mapping(t if kind == "dict" else ("dict", ("any",), ("any",)), depth)
        # anything: a pooled literal of a kind the pool has
        # (not None or a bool: where a parameter's type is unknown, those test behaviour
        # nobody specified)
        kinds = [k for k, b in self.pool.by_kind.items() if b and k not in ("none", "bool")]
        weights = [4 if k in ("int", "str") else 1 for k in kinds]
        v = self.pool.pick(rng, rng.choices(kinds, weights)[0])
        return {"lit": _src(v)}

    def type_of(self, method, param):
        """The type a parameter's arguments are drawn from: a record shape (an example's keys)
        gives way to any dict a fifth of the time where the reference checks the shape
        itself."""
        t = self.types[(method, param)]
        if t[0] == "record" and (method, param) in self.checked and self.rng.random() < 0.2:
            return ("dict", ("any",), ("any",))
        return t

    def composed(self):
        """A text made of strings the sequence already used and pooled ones (a sentence of
        words an earlier call added, a path of known parts)."""
        rng = self.rng
        parts = [rng.choice(self.strings) if self.strings and rng.random() < 0.6
                 else self.pool.pick(rng, "str") for _ in range(rng.randint(2, 4))]
        sep = rng.choice([" ", " ", ", ", ". ", "", "/", "\n"])
        text = sep.join(p for p in parts if isinstance(p, str))
        # (an earlier string may be a documented example holding a marker: `'a|b|a'`)
        return self.pool.pick(rng, "str") if self.pool.marked(text) else text

    def mapping(self, t, depth, flat=False):
        """A dict: keys the reference looks up (most of the time, when it has any), each once,
        values of the value type, nested mappings of looked-up keys now and then (never when
        `flat`)."""
        rng = self.rng
        items, seen = [], set()
        # keys: those the reference looks up, and strings the sequence already used (a
        # table keyed by the city the constructor was given)
        known = self.keys + [repr(x) for x in self.strings[-4:]]
        for _ in range(rng.randint(0, 3) if not known else rng.randint(1, 4)):
            if t[1] in (("any",), ("str",)) and known and rng.random() < 0.75:
                k = {"lit": rng.choice(known)}
            else:
                k = self.value(t[1] if t[1] != ("any",) else ("str",), [], depth + 1)
            key = json.dumps(k, sort_keys=True)
            if key in seen:
                continue  # (a literal dict keeps the last of two equal keys: one is enough)
            seen.add(key)
            if t[2] == ("any",) and self.keys and depth < 3 and not flat and rng.random() < 0.25:
                v = self.mapping(("dict", ("any",), ("any",)), depth + 1)
            else:
                v = self.value(t[2], [], depth + 1)
            items.append([k, v])
        return {"dict": items}

    def args(self, method, results, depth=0):
        rng = self.rng
        name = method["name"]
        params = method.get("params", [])
        examples = self.examples.get(name) or []
        if examples and rng.random() < 0.35:
            ex = rng.choice(examples)
            return [{"lit": a} for a in ex.get("args", [])], {k: {"lit": v} for k, v in ex.get("kwargs", {}).items()}
        args, kwargs = [], {}
        positional = [p for p in params if p.get("kind", "pos") == "pos"]
        # A defaulted parameter nobody documents keeps its default (and so do those after it):
        # what another value does is nowhere specified.
        for k, p in enumerate(positional):
            if p.get("undocumented") and p.get("default") is not None:
                positional = positional[:k]
                break
        # trailing defaulted parameters may be left out (their defaults are values too)
        required = len(positional)
        while required and positional[required - 1].get("default") is not None:
            required -= 1
        n = rng.randint(required, len(positional)) if rng.random() < 0.5 else len(positional)
        for p in positional[:n]:
            args.append(self.value(self.type_of(name, p["name"]), results, depth))
        for p in params:
            kind = p.get("kind")
            if kind == "varpos":
                for _ in range(rng.randint(0, 2)):
                    args.append(self.value(self.type_of(name, p["name"]), results, depth))
            elif kind == "kwonly" and (p.get("default") is None or rng.random() < 0.5
                                       and not p.get("undocumented")):
                kwargs[p["name"]] = self.value(self.type_of(name, p["name"]), results, depth)
        return args, kwargs

    def new_call(self, results):
        m = self.rng.choice(self.methods)
        if m.get("kind") == "property":
            return {"method": m["name"], "args": [], "kwargs": {}}
        args, kwargs = self.args(m, results)
        return {"method": m["name"], "args": args, "kwargs": kwargs}

    def new_set(self, res):
        """A step that sets one of the declared public fields of the instance, as ClassEval's
        hand-written tests do (`player.current_song = 'song1'`, `order.menu = [...]`): the
        states no call sequence reaches by itself. A field the constructor assigns a parameter
        to (`self.sex = sex`) takes what that parameter takes (its documented choices, a size
        that is never negative). A field the class gave two or more values
        in the runs so far (`self.bank`: a board after some moves, the sex the constructor
        was given) takes one of those: its domain is what the class itself makes of it, and a
        value outside it (a fourth row of a 3×3 board, a sex the class does not know) tests
        what nobody specified. A field no run changed (set by no method) takes a value of its
        current type (read from the state after the last step): a list or dict with one more
        item like its items, or a new one; a field that holds `None` takes an item of another
        field's container (the song now on the playlist), a string the sequence used, or any
        pooled value. None when no field holds plain data."""
        rng = self.rng
        trace = (res or {}).get("trace") or []
        state = (trace[-1].get("state") or {}).get("0") if trace else None
        current = {}
        for f in self.plan.get("fields", []):
            v = (state or {}).get(f)
            if v and v[0] == "value":
                try:
                    current[f] = read_literal(v[1])
                except Exception:  # noqa: BLE001 - a literal we cannot read back
                    pass
        if not current:
            return None
        field = rng.choice(sorted(current))
        seen = self.bank.get(field, [])
        init = (self.plan["init"]["name"], self.field_params.get(field))
        if init in self.types:  # `self.sex = sex`: what the parameter takes
            value = self.value(self.type_of(*init), [])
        elif len(seen) >= 2:
            value = {"lit": rng.choice(seen)}
        else:
            value = self.field_value(current[field], current)
        return {"method": field, "set": True, "args": [value], "kwargs": {}}

    def remember(self, trace):
        """Add the plain values the instance's fields held in a run to `self.bank`, up to
        its first field setting (what follows grew from a value we made, not the class)."""
        for rec in trace:
            if rec.get("set"):
                break
            for f, v in ((rec.get("state") or {}).get("0") or {}).items():
                if v[0] != "value" or v[2]:  # (a normalised value is not the value itself)
                    continue
                seen = self.bank.setdefault(f, [])
                if v[1] not in seen and len(seen) < BANK_SIZE:
                    seen.append(v[1])

    def field_value(self, v, current):
        rng = self.rng
        if v is None:
            items = [x for o in current.values() if isinstance(o, (list, tuple, set, dict))
                     for x in o if literal(x) is not None]
            if items and rng.random() < 0.6:
                return {"lit": literal(rng.choice(sorted(items, key=repr)))}
            if self.strings and rng.random() < 0.5:
                return {"lit": _src(rng.choice(self.strings))}
            return self.value(("any",), [])
        t = type_of_value(v, rng, bool(self.keys))
        if isinstance(v, list) and v and rng.random() < 0.5:
            return {"list": [{"lit": literal(x) or "None"} for x in v] + [self.value(t[1], [])]}
        if isinstance(v, dict) and v and rng.random() < 0.5:
            keys = [k for k in v if isinstance(k, str)]
            key = self.value(("str",), []) if not keys or rng.random() < 0.5 else \
                {"lit": repr(rng.choice(keys))}
            rest = [[{"lit": literal(k) or "None"}, {"lit": literal(x) or "None"}] for k, x in v.items()
                    if {"lit": literal(k)} != key]
            return {"dict": rest + [[key, self.value(type_of_value(next(iter(v.values())), rng,
                                                                   bool(self.keys)), [])]]}
        return self.value(t, [])

    def note_discarded(self, res):
        """Count why runs were discarded (the first broken contract), for the report."""
        for q in (res or {}).get("quirks", [])[:1]:
            self.discarded[q] = self.discarded.get(q, 0) + 1
            return
        for r in (res or {}).get("trace", []):
            if r.get("incidental"):
                key = "%s: %s" % (r["exc"], r.get("message", ""))
                self.discarded[key] = self.discarded.get(key, 0) + 1
                return

    # -- exploration -----------------------------------------------------------------------

    def explore(self, iterations, deadline):
        rng = self.rng
        done = 0
        for done in range(1, iterations + 1):
            if time.monotonic() > deadline:
                return done, True
            # (after a quarter of the rounds the bank holds what the class makes of its fields)
            self.setting = bool(self.plan.get("fields")) and done > iterations // 4
            if not self.corpus or rng.random() < 0.25:
                self.resume(None)
                ctor_args, ctor_kwargs = self.args(self.plan["init"], [])
                seq = {"init": ctor_args, "init_kwargs": ctor_kwargs, "calls": []}
            else:
                base = rng.choice(self.corpus)[0]
                keep = rng.randint(0, len(base["calls"]))
                seq = {"init": base["init"], "init_kwargs": base.get("init_kwargs", {}),
                       "calls": list(base["calls"][:keep])}
                self.resume(seq)
            if not self.methods:
                self.consider(seq)
                continue
            for _ in range(rng.randint(1, 3)):
                if len(seq["calls"]) >= self.max_calls:
                    break
                res = self.runner.run(seq)
                if res is None or res["stopped"] is not None:
                    break
                if self.setting and sets_in(seq) < MAX_SETS and rng.random() < SET_RATE:
                    assign = self.new_set(res)
                    if assign is not None:
                        seq["calls"].append(assign)
                seq["calls"].append(self.new_call(res["plain"]))
            self.consider(seq)
        return done, False

    def run_repaired(self, seq):
        """Run `seq`, completing its arguments from the reference's feedback (`repair`) while
        that gets further; returns the last (seq, res)."""
        res = self.runner.run(seq)
        for _ in range(MAX_REPAIRS):
            if usable(res, self.runner.documented):
                break
            repaired = repair(self, seq, res)
            if repaired is None:
                break
            seq, res = repaired
        return seq, res

    def consider(self, seq):
        seq, res = self.run_repaired(seq)
        if not usable(res, self.runner.documented):
            self.note_discarded(res)
            return
        self.remember(res["trace"])
        arcs = res["arcs"]
        new = arcs - self.covered
        last = last_method(seq) if res["stopped"] is None else None
        fresh_witness = last is not None and last not in self.witness
        if new or fresh_witness:
            self.covered |= arcs
            entry = (seq, res["trace"], set(arcs))
            self.corpus.append(entry)
            if fresh_witness:
                self.witness[last] = entry


MAX_REPAIRS = 12
SET_RATE = 0.15  # of calls preceded by setting a field
MAX_SETS = 2  # field settings per sequence
BANK_SIZE = 40  # values remembered per field


def type_of_value(v, rng, keyed=False):
    """The type (`parse_type`'s form) of values like `v`: a list's or set's items like its
    first, a dict with string keys as a record of its keys (the menu's dishes), an empty
    container's items of any type (flat mappings of the looked-up keys a third of the time
    where the reference looks keys up: `keyed`)."""
    if isinstance(v, bool):
        return ("bool",)
    for t in (int, float, str, bytes):
        if isinstance(v, t):
            return (t.__name__,)
    if isinstance(v, (list, set, frozenset)):
        kind = "list" if isinstance(v, list) else "set"
        if v:
            return (kind, type_of_value(sorted(v, key=repr)[0], rng, keyed))
        return (kind, ("flatdict",) if keyed and rng.random() < 0.34 else ("any",))
    if isinstance(v, tuple):
        return ("tuple",) + tuple(type_of_value(x, rng, keyed) for x in v)
    if isinstance(v, dict):
        if v and all(isinstance(k, str) for k in v) and len(v) <= 8:
            return ("record",) + tuple((k, type_of_value(x, rng, keyed)) for k, x in v.items())
        return ("dict", ("any",), ("any",))
    return ("any",)


def failure(res, documented):
    """(step, exception type, message) of the first call that broke the contract, or None."""
    for i, r in enumerate((res or {}).get("trace", [])):
        if broken(r, documented):
            return i, r.get("exc"), r.get("message", "")
    return None


NO_ATTRIBUTE = re.compile(r"'([\w.]+)' object has no attribute '(\w+)'$")
NOT_CALLABLE = re.compile(r"'([\w.]+)' object is not callable$")
# A value subscripted by a key though it is no mapping: `item['name']` on an int, or on a
# string or list (whose indices must be integers).
NOT_SUBSCRIPTABLE = re.compile(r"'([\w.]+)' object is not subscriptable$"
                               r"|(str|list|tuple)(?:ing)? indices must be integers")


def missing_key(fail):
    """The string key a `KeyError` failure names (the reference looked up a key our dict
    argument lacks), or None."""
    if fail is None or fail[1] != "KeyError":
        return None
    try:
        key = ast.literal_eval(fail[2])
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return None
    return key if isinstance(key, str) else None


def repairable(fail):
    """Whether feedback can complete an argument for this failure: a missing dict key, a
    missing attribute (on a value we made), a value called that is not callable."""
    if fail is None:
        return False
    return missing_key(fail) is not None or \
        fail[1] == "AttributeError" and NO_ATTRIBUTE.match(fail[2]) is not None or \
        fail[1] == "TypeError" and (NOT_CALLABLE.match(fail[2]) is not None
                                    or NOT_SUBSCRIPTABLE.match(fail[2]) is not None)


def specs(node, path=()):
    """(path, spec) of every argument spec inside a step's arguments, shallowest first."""
    found, queue = [], [(node, path)]
    while queue:
        n, p = queue.pop(0)
        if isinstance(n, dict):
            if any(k in n for k in ("lit", "obj", "fn", "dict", "list", "set", "tuple", "new", "ref")):
                found.append((p, n))
            for k, v in n.items():
                if isinstance(v, (dict, list)):
                    queue.append((v, p + (k,)))
        elif isinstance(n, list):
            queue.extend((v, p + (j,)) for j, v in enumerate(n))
    return found


def _lit_value(spec):
    try:
        return ast.literal_eval(spec["lit"]) if "lit" in spec else None
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return None


def _type_name(spec):
    """The type name the reference's error message gives for the value a spec builds."""
    if "lit" in spec:
        try:
            return type(ast.literal_eval(spec["lit"])).__name__
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            return None
    if "obj" in spec:
        return "_Obj"
    if "fn" in spec:
        return "function"
    for kind in ("dict", "list", "set", "tuple"):
        if kind in spec:
            return kind
    return None


def _at(node, path):
    for k in path:
        node = node[k]
    return node


def _step_args(seq, i):
    """The arguments of step `i` (0 the constructor) as one tree: {"a": [...], "k": {...}}."""
    if i == 0:
        return {"a": seq["init"], "k": seq.setdefault("init_kwargs", {})}
    call = seq["calls"][i - 1]
    return {"a": call["args"], "k": call.setdefault("kwargs", {})}


def _edits(ex, seq, fail):
    """Candidate fixes of `fail`, most likely first: (step, path, how) where `how` maps the
    spec found at `path` to its replacement (None: not applicable)."""
    step = min(fail[0], len(seq["calls"]))
    places = []
    for i in range(step, -1, -1):
        places.extend((i, p, n) for p, n in specs(_step_args(seq, i)))
    key = missing_key(fail)
    if key is not None:
        if key not in ex.key_values and key not in strings_in(seq):
            return
        want = {"lit": repr(key)}
        for i, p, n in places:
            if "dict" not in n or any(_lit_value(k) == key for k, _ in n["dict"]):
                continue
            for value in ({"dict": []}, {"lit": _src(ex.pool.pick(ex.rng, "str"))},
                          {"lit": _src(ex.pool.pick(ex.rng, "int"))}):
                yield i, p, lambda n, value=value: dict(n, dict=n["dict"] + [[want, value]])
        return
    m = NO_ATTRIBUTE.match(fail[2]) if fail[1] == "AttributeError" else None
    if m is not None:
        owner, name = m.group(1), m.group(2)
        if not attr_name_ok(name):
            return
        for i, p, n in places:
            if _type_name(n) != owner:
                continue
            if "obj" not in n:
                # an ordinary value that has the attribute first (`s.lower()`: a string),
                # an object only when none does
                for value in ordinary_values(ex, name, owner):
                    yield i, p, lambda n, value=value: value
            for value in attribute_values(ex, name):
                if "obj" in n:
                    yield i, p, lambda n, value=value: dict(n, obj=n["obj"] + [[name, value]])
                else:
                    yield i, p, lambda n, value=value: {"obj": [[name, value]]}
        return
    m = NOT_SUBSCRIPTABLE.match(fail[2]) if fail[1] == "TypeError" else None
    if m is not None:
        # a dict in its place (whose keys the next `KeyError` names), else a list
        owner = m.group(1) or m.group(2)
        for i, p, n in places:
            if _type_name(n) != owner:
                continue
            for value in ({"dict": []}, {"list": [{"lit": _src(ex.pool.pick(ex.rng, "int"))}]}):
                if _type_name(value) != owner:
                    yield i, p, lambda n, value=value: value
        return
    m = NOT_CALLABLE.match(fail[2]) if fail[1] == "TypeError" else None
    if m is not None:
        for i, p, n in places:
            if _type_name(n) != m.group(1) or "fn" in n:
                continue
            for value in ({"lit": _src(ex.pool.pick(ex.rng, "int"))},
                          {"lit": _src(ex.pool.pick(ex.rng, "str"))}, {"obj": []}):
                yield i, p, lambda n, value=value: {"fn": value}


# The ordinary values an attribute may ask for, most common first; with how to make each.
ORDINARY = (
    (str, lambda ex: {"lit": _src(ex.pool.pick(ex.rng, "str"))}),
    (list, lambda ex: {"list": []}),
    (dict, lambda ex: {"dict": []}),
    (bytes, lambda ex: {"lit": repr(ex.pool.pick(ex.rng, "bytes"))}),
    (set, lambda ex: {"set": []}),
    (tuple, lambda ex: {"tuple": []}),
    (int, lambda ex: {"lit": _src(ex.pool.pick(ex.rng, "int"))}),
    (float, lambda ex: {"lit": _src(float(ex.pool.pick(ex.rng, "float")))}),
)


def ordinary_values(ex, name, owner):
    """Values of the builtin types (other than `owner`, the type that lacked it) that have the
    attribute `name`: `'int' object has no attribute 'lower'` where the class lowers the
    items of a list of strings gives a string, not an object standing in for one (a
    candidate that reads the string another way must not fail on `_Obj(lower=...)`)."""
    return [make(ex) for t, make in ORDINARY if t.__name__ != owner and hasattr(t, name)]


def attribute_values(ex, name):
    """The values an argument object's attribute `name` is tried with, in order: a function
    first where the reference calls `x.name(...)`, a dict first where it subscripts it, else
    an int, a string, a list, an object (whose own attributes feedback fills in next)."""
    pick = ex.pool.pick
    plain = [{"lit": _src(pick(ex.rng, "int"))}, {"lit": _src(pick(ex.rng, "str"))},
             {"list": []}, {"obj": []}]
    uses = ex.attr_uses.get(name, set())
    if "call" in uses:
        return [{"fn": plain[0]}, {"fn": plain[1]}, {"fn": {"obj": []}}] + plain
    if "index" in uses:
        return [{"dict": []}, {"list": [plain[0]]}] + plain
    return plain


MAX_TRIES = 16


def repair(ex, seq, res):
    """Arguments completed by feedback, generally: when a call broke on a value the explorer
    made — a dict lacking a key the reference looks up (`KeyError: 'headers'`), a value
    lacking an attribute (`'str' object has no attribute 'height'`), a value called that is
    not callable — the same sequence with that value completed: the key added (its value an
    empty dict, a pooled string or int), the value replaced by an object with the attribute
    (`_Obj(height=3)`; an int, a string, a list, a nested object, or a function where the
    reference calls it), or by a function returning a value. Places are tried from the
    failing step back to the constructor, shallowest first; the first variant that runs
    usably, gets further, or breaks on another completable value wins. Returns (seq, res)
    or None."""
    fail = failure(res, ex.runner.documented)
    if not repairable(fail):
        return None
    tried = 0
    for i, path, how in _edits(ex, seq, fail):
        cand = json.loads(json.dumps(seq))
        root = _step_args(cand, i)
        new = how(_at(root, path))
        if new is None:
            continue
        _at(root, path[:-1])[path[-1]] = new
        out = ex.runner.run(cand)
        tried += 1
        if out is not None and (usable(out, ex.runner.documented) or progressed(fail, out, ex)):
            return cand, out
        if tried >= MAX_TRIES:
            return None
    return None


def progressed(fail, out, ex):
    """Whether a variant got past `fail`: it broke only at a later call, or at the same call
    on another value feedback can complete."""
    again = failure(out, ex.runner.documented)
    if again is None:
        return False  # (a timeout or a quirk, not a completable value)
    return again[0] > fail[0] or again[0] == fail[0] and again != fail and repairable(again)


def inherited_init(init, cls):
    """The constructor of a class whose skeleton shows none though it needs arguments: the
    parameters of its runtime signature (an `__init__` inherited from a class it imports,
    `build_py(Command)` takes a `dist`; a dataclass's or named tuple's generated one). Only
    when the plan has no constructor parameters and the signature requires some: a class
    that builds bare keeps being built bare."""
    if init.get("params"):
        return init
    try:
        sig = inspect.signature(cls)
    except (TypeError, ValueError):
        return init
    P = inspect.Parameter
    kinds = {P.POSITIONAL_ONLY: "pos", P.POSITIONAL_OR_KEYWORD: "pos", P.KEYWORD_ONLY: "kwonly",
             P.VAR_POSITIONAL: "varpos"}
    ps = [p for p in sig.parameters.values() if p.kind in kinds]
    if not any(p.default is P.empty and p.kind != P.VAR_POSITIONAL for p in ps):
        return init
    params = []
    for p in ps:
        ann = p.annotation
        if ann is P.empty:
            ty = ""
        elif isinstance(ann, str):
            ty = ann
        else:
            ty = getattr(ann, "__name__", None) or repr(ann).replace("typing.", "")
        default = None if p.default is P.empty else (literal(p.default) or "None")
        params.append({"name": p.name, "kind": kinds[p.kind], "type": ty, "default": default})
    return dict(init, params=params)


def _fits(v, t):
    kind = t[0]
    if kind == "any":
        return True
    if kind == "union":
        return any(_fits(v, a) for a in t[1:])
    if kind == "choice":
        return isinstance(v, str) and v in t[1:]
    if kind == "size":
        return type(v) is int and v >= 0
    if kind == "record":
        return isinstance(v, dict) and set(v) == {k for k, _ in t[1:]}
    mapping = {"int": int, "float": (int, float), "complex": (int, float, complex), "str": str,
               "bool": bool, "bytes": bytes,
               "list": list, "dict": dict, "tuple": tuple, "set": set}
    want = mapping.get(kind)
    return want is not None and isinstance(v, want) and not (kind == "int" and isinstance(v, bool))


def _src(v):
    return repr(v) if not isinstance(v, float) or v == v else "float('nan')"


def main(input_path, out=None):
    """Explore as the plan in `input_path` says; write the report as one JSON line to `out`
    (a path), or to descriptor 3 (classlab's program channel)."""
    with open(input_path, encoding="utf-8") as f:
        plan = json.load(f)
    channel = None
    if out is None:
        # The reference may open() an int it was given (`open(3, 'w')` closes descriptor 3 on
        # exit): move the result channel out of the way of small numbers first.
        import resource
        high = max(resource.getrlimit(resource.RLIMIT_NOFILE)[0] - 1, 10)
        channel = os.dup2(3, high)
        os.close(3)
    t0 = time.monotonic()
    home = os.getcwd()
    base = tempfile.mkdtemp(prefix="forge-")
    result = {"version": 1}
    try:
        runner = Runner(plan, base)
        result.update(runner.load_error or {})
        if not runner.load_error and "replay" in plan:
            from forge_select import measure
            result["coverage"] = measure(runner, [{"seq": s} for s in plan["replay"]])
        elif not runner.load_error:
            from forge_select import finish
            plan["init"] = inherited_init(plan["init"], runner.cls)
            ex = Explorer(plan, runner)
            deadline = t0 + plan.get("deadline_s", 120)
            done, cut = ex.explore(plan.get("iterations", 600), deadline)
            result.update(finish(plan, ex, runner, deadline))
            result["explored"] = done
            result["discarded"] = sorted(ex.discarded.items(), key=lambda kv: -kv[1])[:3]
            result["deadline_hit"] = cut or result.get("deadline_hit", False)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        sys.settrace(None)
        os.chdir(home)
        shutil.rmtree(base, ignore_errors=True)
    result["seconds"] = round(time.monotonic() - t0, 3)
    line = json.dumps(result) + "\n"
    if out is None:
        with os.fdopen(channel, "w", encoding="utf-8") as f:
            f.write(line)
    else:
        with open(out, "w", encoding="utf-8") as f:
            f.write(line)
    return 0


if __name__ == "__main__":
    os._exit(main(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else None))
