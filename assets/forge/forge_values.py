"""Values for the forge explorer: argument generation from types and a constant pool, and the
normalised, literal form of recorded values (what a generated test asserts).

Trusted code: it runs inside the sandbox beside the reference class, never in classlab.
"""

import ast
import keyword
import math
import re
import types

# Docstring type words (ClassEval's `:param x: int`, `string`, `float number`, `list of str`)
# mapped onto the names an annotation would use.
DOC_WORDS = {
    "int": "int", "integer": "int", "float": "float", "number": "float", "double": "float",
    "str": "str", "string": "str", "bool": "bool", "boolean": "bool", "list": "list",
    "array": "list", "dict": "dict", "dictionary": "dict", "tuple": "tuple", "set": "set",
    "bytes": "bytes", "none": "None", "nonetype": "None", "complex": "complex",
}

PLAIN_SCALARS = (bool, int, float, str, bytes, type(None))

# A text naming an object's address (`<function <lambda> at 0x7f…>`): identity, not value.
ADDRESS = re.compile(r" at 0x[0-9a-fA-F]{4,}")


class _Obj(types.SimpleNamespace):
    """An argument object whose attributes the explorer filled from the reference's feedback
    (`'str' object has no attribute 'height'`): written as `_Obj(height=3)` in the test, whose
    helpers define the same class (a class of the test module crosses the split harness as a
    handle; `types.SimpleNamespace` itself would not)."""


# Type names of builtin or typing annotations that are no class an object could stand for.
NOT_OBJECTS = {"Callable", "Type", "Self", "Any", "NoReturn", "Never", "Generator", "Iterator",
               "Awaitable", "Coroutine", "TypeVar"}


def attr_name_ok(name):
    """An attribute an argument object may be given: public (the split harness lets the code
    read only public attributes of the tests' objects) and spelled as a keyword argument."""
    return name.isidentifier() and not keyword.iskeyword(name) and not name.startswith("_")


def read_literal(src):
    """The value of a literal source `literal` wrote (`float('inf')`, `set()` included)."""
    return eval(src, {"__builtins__": {"float": float, "set": set, "frozenset": frozenset}})


def parsed(source):
    """The reference's syntax tree; None when it does not parse."""
    try:
        return ast.parse(source)
    except (SyntaxError, ValueError):
        return None


def attr_uses(source):
    """How the reference uses attributes by name: {"call"} when it calls `x.name(...)`,
    {"index"} when it subscripts `x.name[...]` (the first kind of value an argument
    object's attribute of that name is tried with)."""
    out = {}
    for node in ast.walk(parsed(source) or ast.Module(body=[], type_ignores=[])):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            out.setdefault(node.func.attr, set()).add("call")
        elif isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute):
            out.setdefault(node.value.attr, set()).add("index")
    return out
MAX_ITEMS = 50
MAX_TEXT = 2000


def parse_type(text):
    """A type description (annotation source or docstring words) -> a small tree:
    ("int",), ("list", elem), ("dict", key, value), ("tuple", elems...), ("union", alts...),
    ("record", (key, type)...), ("class", name) or ("any",)."""
    if not text:
        return ("any",)
    text = text.strip()
    try:
        node = ast.parse(text, mode="eval").body
        return _type_of(node)
    except SyntaxError:
        pass
    words = re.findall(r"[a-z_]+", text.lower())
    if words and words[0] in ("a", "an", "the"):  # "a list of strings"
        words = words[1:]
    if len(words) >= 3 and words[1] == "of":  # "list of str"
        outer = DOC_WORDS.get(words[0])
        inner = parse_type(" ".join([_singular(words[2])] + words[3:]))
        if outer == "list":
            return ("list", inner)
        if outer == "set":
            return ("set", inner)
    for w in words:
        if w in DOC_WORDS:
            return _named(DOC_WORDS[w])
    return ("any",)


def _singular(word):
    """A plural type word as its singular (`strings` -> `string`); other words as they are."""
    if word.endswith("s") and word[:-1] in DOC_WORDS:
        return word[:-1]
    return word


def _named(name):
    low = name.lower()
    if low in ("int", "float", "str", "bool", "bytes", "complex"):
        return (low,)
    if low in ("none", "nonetype"):
        return ("none",)
    if low in ("list", "sequence", "iterable", "collection"):
        return ("list", ("any",))
    if low in ("dict", "mapping"):
        return ("dict", ("any",), ("any",))
    if low in ("tuple",):
        return ("tuple",)
    if low in ("set", "frozenset"):
        return ("set", ("any",))
    if low in ("any", "object"):
        return ("any",)
    if low in DOC_WORDS:
        return _named(DOC_WORDS[low])
    return ("class", name)


def _type_of(node):
    if isinstance(node, ast.Dict) and node.keys and all(
            isinstance(k, ast.Constant) and isinstance(k.value, str) for k in node.keys):
        # `{'name': str, 'major': str}`: a dict of exactly these keys (an example's shape)
        return ("record",) + tuple((k.value, _type_of(v)) for k, v in zip(node.keys, node.values))
    if isinstance(node, ast.Constant):
        if node.value is None:
            return ("none",)
        if isinstance(node.value, str):
            return parse_type(node.value)
        return ("any",)
    if isinstance(node, ast.Name):
        return _named(node.id)
    if isinstance(node, ast.Attribute):
        return _named(node.attr)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return ("union", _type_of(node.left), _type_of(node.right))
    if isinstance(node, ast.Subscript):
        base = _type_of(node.value)
        args = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        inner = [_type_of(a) for a in args]
        name = base[1] if base[0] == "class" else base[0]
        name = name.lower() if isinstance(name, str) else name
        if name == "literal":
            values = [a.value for a in args if isinstance(a, ast.Constant)]
            return ("choice", *values) if values else ("any",)
        if name in ("optional",):
            return ("union", inner[0], ("none",))
        if name in ("union",):
            return ("union", *inner)
        if base[0] == "list" or name in ("sequence", "iterable", "list"):
            return ("list", inner[0])
        if base[0] == "set":
            return ("set", inner[0])
        if base[0] == "dict" or name == "mapping":
            return ("dict", inner[0], inner[1] if len(inner) > 1 else ("any",))
        if base[0] == "tuple":
            return ("tuple", *inner)
        return base
    return ("any",)


def type_of_default(src):
    """The type a parameter's default literal suggests (`balance=0` takes ints)."""
    try:
        v = ast.literal_eval(src)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return ("any",)
    kind = kind_of(v)
    if kind in ("int", "float", "str", "bool", "bytes"):
        return (kind,)
    if kind in ("list", "set"):
        return (kind, ("any",))
    if kind == "dict":
        return ("dict", ("any",), ("any",))
    return ("any",)


def markers(source):
    """The reference's own markers: one-character punctuation strings it both adds to a piece
    of a string it builds (`c + '|'`) and takes out or tests for again (`c != '|'`,
    `.replace('|', '')`, `.strip('|')`) — Manacher's `'|'` between the letters (a separator
    it only `join`s is not one: a calculator's `'*'.join(factors)`). An argument
    holding one is outside the class's domain (the reference cannot tell ours from its own),
    so argument strings never contain them."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return []

    def mark(node):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and len(node.value) == 1 \
                and not node.value.isalnum() and not node.value.isspace():
            return node.value
        return None

    put, taken = set(), set()
    for node in ast.walk(tree):
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            for a, b in ((node.left, node.right), (node.right, node.left)):
                if mark(a) and not (isinstance(b, ast.Constant) and isinstance(b.value, str)):
                    put.add(mark(a))
        elif isinstance(node, ast.Compare) and any(isinstance(o, (ast.Eq, ast.NotEq))
                                                   for o in node.ops):
            taken.update(m for m in map(mark, [node.left] + node.comparators) if m)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            name = node.func.attr
            if name in ("replace", "strip", "lstrip", "rstrip") and node.args and mark(node.args[0]):
                taken.add(mark(node.args[0]))
    return sorted(put & taken)


def shape_checked(source):
    """(function, parameter)s whose shape the reference checks itself (`"addr" not in info`,
    `isinstance(info, dict)`): a dict without the documented keys is then specified input
    (ClassEval_74's `recv` answers -1), so such a parameter also gets dicts of other shapes."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return set()
    out = set()
    for f in ast.walk(tree):
        if not isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        params = {a.arg for a in f.args.posonlyargs + f.args.args + f.args.kwonlyargs}
        for node in ast.walk(f):
            if isinstance(node, ast.Compare) and isinstance(node.left, ast.Constant) \
                    and isinstance(node.left.value, str) and len(node.ops) == 1 \
                    and isinstance(node.ops[0], (ast.In, ast.NotIn)) \
                    and isinstance(node.comparators[0], ast.Name) and node.comparators[0].id in params:
                out.add((f.name, node.comparators[0].id))
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
                    and node.func.id == "isinstance" and node.args \
                    and isinstance(node.args[0], ast.Name) and node.args[0].id in params:
                out.add((f.name, node.args[0].id))
    return out


class Pool:
    """The constant pool: literals of the reference and the skeleton's examples, by kind,
    with boundary values added, in a fixed order (determinism); no string holding one of the
    reference's `markers`."""

    def __init__(self, literals, marks=()):
        self.marks = tuple(marks)
        self.by_kind = {k: [] for k in ("int", "float", "str", "bytes", "bool", "none",
                                        "list", "dict", "tuple", "set")}
        for src in literals:
            try:
                v = ast.literal_eval(src)
            except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
                continue
            self.add(v)
        for v in (0, 1, -1, 2, 10, 100):
            self.add(v)
        for v in (0.0, 1.5, -2.5):
            self.add(v)
        for v in ("", "a", "abc", "Hello World", "test"):
            self.add(v)
        for v in (True, False, None, [], {}):
            self.add(v)
        # Bytes only where a parameter is typed so (`value: bytes`): a reference without
        # bytes literals still gets some, while untyped parameters keep drawing the kinds
        # its own literals have.
        self.fallback = {"bytes": [b"", b"a", b"abc", b"Hello World"]}
        ints = [v for v in self.by_kind["int"] if abs(v) < 10**9]
        for v in ints[:30]:
            for d in (-1, 1):
                self.add(v + d)

    def add(self, v):
        kind = kind_of(v)
        if kind is None:
            return
        bucket = self.by_kind[kind]
        for existing in bucket:
            if type(existing) is type(v) and existing == v:
                return
        if isinstance(v, str) and (len(v) > 200 or self.marked(v)):
            return
        bucket.append(v)

    def marked(self, v):
        """Whether `v` is a string holding one of the reference's markers."""
        return isinstance(v, str) and any(m in v for m in self.marks)

    def pick(self, rng, kind):
        bucket = self.by_kind.get(kind) or self.fallback.get(kind) or []
        return rng.choice(bucket) if bucket else None


def kind_of(v):
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, int):
        return "int"
    if isinstance(v, float):
        return "float"
    if isinstance(v, str):
        return "str"
    if isinstance(v, bytes):
        return "bytes"
    if v is None:
        return "none"
    for t, k in ((list, "list"), (dict, "dict"), (tuple, "tuple"), (set, "set")):
        if isinstance(v, t):
            return k
    return None


MAX_INT_BITS = 3300  # about 1,000 decimal digits


def literal(v, depth=0):
    """The Python source of plain data `v` that evaluates back to an equal value, or None
    when `v` is not plain data (objects, generators, huge or cyclic values)."""
    if depth > 6:
        return None
    if isinstance(v, bool) or v is None:
        return repr(v)
    if type(v) is int:
        # (a 4,300-digit int has no repr at all; one of 1,000 digits no reader checks)
        return repr(v) if v.bit_length() <= MAX_INT_BITS else None
    if type(v) is float:
        if math.isnan(v):
            return None  # NaN equals nothing: not asserted
        if math.isinf(v):
            return "float('inf')" if v > 0 else "float('-inf')"
        return repr(v)
    if type(v) is str and ADDRESS.search(v):
        return None  # an address: differs between runs and harnesses, never asserted
    if type(v) in (str, bytes):
        return repr(v) if len(v) <= MAX_TEXT else None
    if type(v) is complex:
        return repr(v) if all(math.isfinite(x) for x in (v.real, v.imag)) else None
    if type(v) in (list, tuple):
        if len(v) > MAX_ITEMS:
            return None
        parts = [literal(x, depth + 1) for x in v]
        if any(p is None for p in parts):
            return None
        if type(v) is tuple:
            return "(" + ", ".join(parts) + ("," if len(parts) == 1 else "") + ")"
        return "[" + ", ".join(parts) + "]"
    if type(v) is dict:
        if len(v) > MAX_ITEMS:
            return None
        items = []
        for k, x in v.items():
            ks, xs = literal(k, depth + 1), literal(x, depth + 1)
            if ks is None or xs is None:
                return None
            items.append(ks + ": " + xs)
        return "{" + ", ".join(items) + "}"
    if type(v) in (set, frozenset):
        if len(v) > MAX_ITEMS:
            return None
        parts = sorted(literal(x, depth + 1) or "\0" for x in v)
        if "\0" in parts:
            return None
        if not parts:
            return "set()" if type(v) is set else "frozenset()"
        body = "{" + ", ".join(parts) + "}"
        return body if type(v) is set else "frozenset(" + body + ")"
    return None


def has_float(v, depth=0):
    if depth > 6:
        return False
    if type(v) is float:
        return True
    if type(v) in (list, tuple, set, frozenset):
        return any(has_float(x, depth + 1) for x in v)
    if type(v) is dict:
        return any(has_float(x, depth + 1) for x in v.values())
    return False


def approx(v, depth=0):
    """`v` with every float rounded to 6 decimals (the documented tolerance of generated
    tests; `-0.0` becomes `0.0`)."""
    if type(v) is float:
        if math.isnan(v) or math.isinf(v):
            return v
        r = round(v, 6)
        return 0.0 if r == 0 else r
    if depth > 6:
        return v
    if type(v) is list:
        return [approx(x, depth + 1) for x in v]
    if type(v) is tuple:
        return tuple(approx(x, depth + 1) for x in v)
    if type(v) is dict:
        return {k: approx(x, depth + 1) for k, x in v.items()}
    return v


def observe(v):
    """What a test may assert about a value: ("value", literal source, norm) for plain data,
    where `norm` is how both sides are normalised before comparing ("" none, "approx" floats
    rounded, "set" an unordered view, "sorted" dict values); ("opaque", type name) otherwise
    (recorded, not asserted)."""
    norm = ""
    name = type(v).__name__
    v = unnumpy(v)  # a NumPy scalar compares equal to its Python value, in containers too
    if name in ("dict_keys", "dict_items"):
        v, norm = set(v), "set"
    elif name == "dict_values":
        try:
            v, norm = sorted(v), "sorted"
        except TypeError:
            return ("opaque", name)
    floats = has_float(v)
    if floats:
        if norm:
            return ("opaque", name)
        v, norm = approx(v), "approx"
    src = literal(v)
    if src is None:
        return ("opaque", name)
    return ("value", src, norm)


def unnumpy(v, depth=0):
    """`v` with NumPy scalars (`np.float64(0.5)`, `np.int64(3)`) as their Python values, through
    lists, tuples, dicts and sets; anything else as it is."""
    t = type(v)
    if t.__module__ == "numpy" and hasattr(v, "item") and getattr(v, "ndim", 1) == 0:
        return v.item()
    if depth > 6 or t not in (list, tuple, dict, set, frozenset) or len(v) > MAX_ITEMS:
        return v  # (too big to be asserted anyway)
    if t is dict:
        return {unnumpy(k, depth + 1): unnumpy(x, depth + 1) for k, x in v.items()}
    return t(unnumpy(x, depth + 1) for x in v)


def max_instance(seq):
    """The highest instance number a sequence's arguments build (0: only the constructor's)."""
    best = 0

    def walk(a):
        nonlocal best
        if isinstance(a, dict):
            if "new" in a:
                best = max(best, a["new"])
            for x in a.values():
                walk(x)
        elif isinstance(a, list):
            for x in a:
                walk(x)

    walk(seq)
    return best


def last_method(seq):
    """The method a sequence's last call calls; None without calls, or when its last step sets
    a field."""
    calls = seq["calls"]
    return calls[-1]["method"] if calls and not calls[-1].get("set") else None


def sets_in(seq):
    """How many of a sequence's steps set a field."""
    return sum(1 for c in seq["calls"] if c.get("set"))


def field_params(source, class_name, params):
    """field -> constructor parameter, for the fields the class's `__init__` assigns a
    parameter to as it is (`self.sex = sex`)."""
    out = {}
    for node in ast.walk(parsed(source) or ast.Module(body=[], type_ignores=[])):
        if not (isinstance(node, ast.ClassDef) and node.name == class_name):
            continue
        for f in node.body:
            if not (isinstance(f, ast.FunctionDef) and f.name == "__init__"):
                continue
            for st in ast.walk(f):
                if isinstance(st, ast.Assign) and len(st.targets) == 1 and \
                        isinstance(st.value, ast.Name) and st.value.id in params:
                    t = st.targets[0]
                    if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and \
                            t.value.id == "self":
                        out[t.attr] = st.value.id
    return out


def strings_in(seq):
    """The string literals a sequence's arguments use, in order."""
    return literals_in(seq, lambda v: isinstance(v, str))


def numbers_in(seq):
    """The int and float literals a sequence's arguments use, in order."""
    return literals_in(seq, lambda v: type(v) in (int, float))


def literals_in(seq, wanted):
    """The literal values of a sequence's arguments that `wanted` accepts, in order."""
    out = []

    def walk(a):
        if isinstance(a, dict):
            if "lit" in a:
                try:
                    v = ast.literal_eval(a["lit"])
                except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
                    return
                if wanted(v):
                    out.append(v)
                return
            for x in a.values():
                walk(x)
        elif isinstance(a, list):
            for x in a:
                walk(x)

    walk(seq)
    return out


# Timestamps as classes write them (ISO dates and times, day/month/year, clock times); the
# written test masks them the same way (`_noclock`, src/forge/write.rs).
CLOCK = re.compile(r"\d{4}-\d{2}-\d{2}(?:[ T]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)?"
                   r"|\d{2}/\d{2}/\d{4}|\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?")


def unclock(text):
    """`text` with every timestamp replaced by `<clock>`."""
    return CLOCK.sub("<clock>", text)
