# classlab split harness, the runner's side of the wire (prepended to runner.py after wire.py).
#
# The runner runs the benchmark's tests and decides every verdict; the code under test lives in
# the host process and is reachable only through the proxies made here. What the runner trusts:
# the test files, the interpreter and its installed packages. What it never trusts: anything
# the host sends. Every message is decoded by the strict decoder below (no pickle, no eval; a
# path names a module to import or a class, never a function; a value type is rebuilt by its own
# constructor from checked plain data); a malformed message means the host misbehaved, the test
# fails and the host is treated as dead. An exception raised on this side while the code calls
# back (an assertion, a timeout) is held here and fails the test whatever the code does with
# the error it is shown. Equalities between a host object and a test's value are asked twice,
# with the value and with a decoy of the same type in random order: equal to both is a forgery.

# pytest leaves the harness's frames out of its reports (it would read their source, and scan
# every module, the code's proxies among them, for each frame).
__tracebackhide__ = True


import builtins
import collections
import datetime
import decimal
import enum
import fractions
import importlib
import importlib.util
import io
import operator
import os
import random
import select
import sys
import time
import types
import unittest
import unittest.case

# ---- defined once where this file is compiled (in the warm interpreter, before any suite is
# forked: a suite then defines nothing). What is a suite's own is set by `_split_runner` in
# the names below, each in its process's copy of this module.
ctx = spec = emit = HarnessTimeout = None  # what runner.py shares (see _split_runner)
tests_dir = scratch_dir = None
trusted_roots = ()  # sys.path's trees as the suite started (see trusted_path)
test_module_names = code_module_names = frozenset()
grace = 2.0  # seconds the host is given to answer past a test's deadline
rng = None  # the suite's own: decoys in an order no other suite shares
frames = poller = peer = None

perf = time.perf_counter
monotonic = time.monotonic
getattr_, setattr_, isinstance_, type_, len_ = getattr, setattr, isinstance, type, len
object_getattribute = object.__getattribute__


def under(path, root):
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def trusted_path(p):
    r = os.path.realpath(p)
    return (not under(r, tests_dir) and not under(r, scratch_dir)
            and any(under(r, root) for root in trusted_roots))


# ---- the harness's own exceptions (BaseException: test code does not catch them) --------
class HostDied(BaseException):
    """The code under test's process ended (or stopped answering) during the suite."""


class HostMisbehaved(BaseException):
    """The host sent something the protocol does not allow."""


class Unjudged(BaseException):
    """The test does something the protocol cannot carry."""


class Forged(BaseException):
    """An object of the code under test compared equal to a value and to a decoy."""


class Held(BaseException):
    pass


SkipTest = unittest.case.SkipTest


def is_held(e):
    """Exceptions raised in the runner that the code under test must never swallow."""
    return (not isinstance_(e, Exception)) or isinstance_(e, (AssertionError, SkipTest))


state = {
    "dead": None,  # (exception class, message) once the host is gone
    "epoch": 0,
    "deadline": None,  # monotonic seconds, the running test's
    "waiting": False,
    "expired": False,
    "held": [],
    "unjudged": [],
    "forged": [],
}
evidence = []  # (test id or None, text): what the runner itself saw
ambiguous = {}  # id(result) -> (result, its exception): comparison results without a truth
# The suite's guessing: decoys granted instead of the test's value, equalities granted,
# what was found (once found), the first types that granted a decoy.
guesses = {"hits": 0, "granted": 0, "found": None, "types": []}


def note_guess(t, hit):
    """Counts the suite's equalities that an object of the code's granted among the values
    asked (the test's and the decoys), and those where it granted a decoy and not the
    test's value. An honest object seldom equals another of the suite's values in the
    test's value's place (it must be wrong, and wrong by just that value); one that guesses
    among the values asked does so every time it is wrong. From the third such time, in at
    least a third of what it granted, it is evidence, and from then on (that time too)
    whatever an object of the code's grants among the values asked is not taken: the test
    is Tampered, and with it the suite's verdicts (as with any forged comparison).
    Counted over the suite, not per type (a type made anew for each answer is no way out),
    and only over what was granted (answering "unequal" to all where it cannot tell is no
    way out either). Returns what was found, once found."""
    g = guesses
    g["granted"] += 1
    if hit:
        g["hits"] += 1
        name = "%s.%s" % (t.__module__, t.__qualname__)
        if name not in g["types"] and len_(g["types"]) < 3:
            g["types"].append(name)
    if g["found"] is None and g["hits"] >= 3 and 3 * g["hits"] >= g["granted"]:
        g["found"] = ("equal to a decoy instead of the test's value in %d of the %d "
                      "comparisons they granted" % (g["hits"], g["granted"]))
        observe("objects of the code's (%s) were %s: they guess among the values they are "
                "asked about" % (", ".join(g["types"]), g["found"]))
    return g["found"]


def forged(text, seen=True):
    """A forged comparison: the test is Tampered (`seen`: and the runner's evidence says
    so; a guess found out is evidence once, when it is found)."""
    state["forged"].append(text)
    if seen:
        observe(text)
    raise Forged(text)


def observe(text):
    evidence.append((state.get("test"), text))


# ---- proxies of the host's objects ----------------------------------------------------------
handles = Handles()
proxy_info = {}  # proxy class -> info dict (kind, real class, methods, flags)
snap_epoch = {}  # id(container proxy) -> epoch of its content


def hid_of(p):
    hid = handles.proxy_ids.get(id(p))
    if hid is None:
        raise HostMisbehaved("an object of the code under test lost its handle")
    return hid


class HostObject:
    """An object of the code under test: every use is a request to the host."""
    __slots__ = ("__weakref__",)

    def __getattribute__(self, name):
        if name in local_names(type_(self)):
            return object_getattribute(self, name)
        return getattr_forward(self, name)

    def __setattr__(self, name, value):
        peer.request("setattr", self, name, value)

    def __delattr__(self, name):
        peer.request("delattr", self, name)

    def __reduce_ex__(self, protocol):
        raise TypeError("an object of the code under test cannot be pickled by the tests")

    def __copy__(self):
        return peer.request("op", self, "__copy__", ())

    def __deepcopy__(self, memo=None):
        return peer.request("op", self, "__deepcopy__", ())


local_cache = {}
# A class's own namespace in this process (`vars()` of a class of the code's would ask
# the host, see HostType.__dict__).
own_dict = type.__dict__["__dict__"].__get__
class_mro = type.__dict__["__mro__"].__get__


def protocol_of(cls):
    """The names in PROTOCOL that `getattr(cls, name, None)` finds (not None), looked up in the
    class's and its metaclass's dictionaries without running what is found there: a
    MagicMock's class answers each magic method asked that way with a new child mock (~100 µs
    each, 72 a mock)."""
    dicts = [own_dict(k) for k in class_mro(cls) + class_mro(type_(cls))]
    names = []
    for n in PROTOCOL:
        for d in dicts:
            if n in d:
                if d[n] is not None:
                    names.append(n)
                break
    return tuple(names)


def local_names(cls):
    s = local_cache.get(cls)
    if s is None:
        s = set()
        for k in cls.__mro__:
            s.update(n for n in own_dict(k) if n.startswith("__") and n.endswith("__"))
        s.discard("__dict__")
        s.discard("__doc__")
        s.discard("__module__")
        s.add("__class__")
        local_cache[cls] = s
    return s


def forwarder(name):
    if name == "__call__":
        def fn(self, *args, **kwargs):
            return peer.request("call", self, args, tuple(kwargs.items()))
    elif name == "__eq__":
        def fn(self, other):
            return peer.compare(self, other, False)
    elif name == "__ne__":
        def fn(self, other):
            return peer.compare(self, other, True)
    elif name == "__exit__":
        def fn(self, et, ev, tb):
            r = peer.request("op", self, name, (et, ev, None) if ev is None or
                             not is_held(ev) else (type_(ev), None, None))
            # The code may not swallow an assertion or a harness error of the test's.
            return False if ev is not None and is_held(ev) else r
    elif name == "__bool__":
        def fn(self):
            # The truth of a comparison's result is the one it had when compared.
            amb = ambiguous.get(id(self))
            if amb is not None and amb[0] is self:
                raise amb[1] if amb[1] is not None else ValueError(
                    "the truth value of this comparison's result is ambiguous")
            return peer.request("op", self, name, ())
    elif name in ("__iter__", "__next__", "__reversed__"):
        def fn(self):
            return peer.request("op", self, name, ())
    else:
        def fn(self, *args):
            return peer.request("op", self, name, args)
    fn.__name__ = name
    fn.__qualname__ = "HostObject." + name
    return fn


forwarders = {name: forwarder(name) for name in PROTOCOL}


def protocol_ns(names, base_has=()):
    ns = {}
    for n in names:
        if n in forwarders and n not in base_has:
            ns[n] = forwarders[n]
    if "__hash__" not in names:
        ns["__hash__"] = None
    return ns


class LazyMethod:
    """`obj.method` of the code under test, resolved only if used other than by calling
    it (a call is one request: `callm`)."""
    __slots__ = ("_lm_o", "_lm_n", "_lm_r")

    def __init__(self, obj, name):
        self._lm_o, self._lm_n, self._lm_r = obj, name, None

    def __call__(self, *args, **kwargs):
        if self._lm_r is not None:
            return self._lm_r(*args, **kwargs)
        return peer.request("callm", self._lm_o, self._lm_n, args, tuple(kwargs.items()))

    def _lm_resolve(self):
        if self._lm_r is None:
            self._lm_r = peer.request("getattr", self._lm_o, self._lm_n)
        return self._lm_r

    def __getattr__(self, name):
        return getattr_(self._lm_resolve(), name)

    def __repr__(self):
        return repr(self._lm_resolve())

    def __eq__(self, other):
        if isinstance_(other, LazyMethod):
            other = other._lm_resolve()
        return self._lm_resolve() == other

    def __hash__(self):
        return hash(self._lm_resolve())


class HostType(type):
    """The class of a class of the code under test: instantiation, class attributes and
    the class-level protocol go to the host."""

    def __call__(cls, *args, **kwargs):
        if proxy_info.get(cls) is None:
            raise Unjudged("the test subclasses %s, a class of the code under test"
                           % cls.__mro__[1].__qualname__)
        return peer.request("call", cls, args, tuple(kwargs.items()))

    def __getattr__(cls, name):
        if name.startswith("__") and name.endswith("__") and name in (
                "__wrapped__", "__signature__", "__abstractmethods__",
                "__isabstractmethod__", "__func__", "__self__", "__origin__"):
            raise AttributeError(name)
        return getattr_forward(cls, name)

    def __setattr__(cls, name, value):
        peer.request("setattr", cls, name, value)

    def __delattr__(cls, name):
        peer.request("delattr", cls, name)

    @property
    def __dict__(cls):
        return peer.request("getattr", cls, "__dict__")


metaclasses = {}


def metaclass_for(meta, names=None):
    """A runner metaclass for the host class's metaclass (type, ABCMeta, EnumType, or one
    of the code's own: its class-level protocol forwarded)."""
    key = meta
    m = metaclasses.get(key)
    if m is None:
        if names is None:
            names = [n for n in PROTOCOL if getattr_(meta, n, None) is not None
                     and getattr_(type, n, None) is None]
        ns = {n: forwarders[n] for n in names if n in forwarders and n not in (
            "__call__", "__eq__", "__ne__", "__hash__", "__repr__", "__str__", "__format__",
            "__lt__", "__le__", "__gt__", "__ge__")}
        m = type.__new__(type, "HostType", (HostType,), ns)
        metaclasses[key] = m
    return m


trusted_meta = (type, __import__("abc").ABCMeta, enum.EnumType)
exc_denied = ("unittest.", "_pytest.", "pytest.", "pluggy.")


def class_proxy(hid, desc):
    """The runner's class for a class of the code under test."""
    (name, qual, module, bases, meta, proto, methods, flags, doc) = desc
    for v in (name, qual, module):
        if type_(v) is not str or len_(v) > 500:
            raise HostMisbehaved("a class descriptor with a bad name")
    if not (type_(proto) is tuple and type_(methods) is tuple and type_(flags) is int):
        raise HostMisbehaved("a malformed class descriptor")
    is_exc = bool(flags & 2)
    runner_bases = []
    for b in bases if type_(bases) is tuple else ():
        if isinstance_(b, type):
            if b in proxy_info:
                runner_bases.append(b)
            elif is_exc and issubclass(b, BaseException):
                runner_bases.append(b)
    if is_exc:
        runner_bases = [b for b in runner_bases
                        if not (b.__module__ + ".").startswith(exc_denied)]
        if not any(issubclass(b, BaseException) for b in runner_bases):
            runner_bases.append(Exception)
    elif not any(b in proxy_info for b in runner_bases):
        runner_bases.append(HostObject)
    if isinstance_(meta, type) and meta in proxy_info:
        mcls = metaclass_for(meta, proxy_info[meta]["proto"])
    elif isinstance_(meta, type) and meta in trusted_meta:
        mcls = metaclass_for(meta)
    else:
        mcls = HostType
    ns = protocol_ns(proto) if not is_exc else {}
    if is_exc:
        ns["__str__"] = host_exc_str
    ns["__module__"] = module
    ns["__qualname__"] = qual
    ns["__doc__"] = doc if type_(doc) is str else None
    if not is_exc:
        ns["__slots__"] = ()
    try:
        cls = type.__new__(mcls, name, tuple(runner_bases), ns)
    except TypeError:
        # Bases the runner cannot combine (an instance lay-out conflict): the first one.
        cls = type.__new__(mcls, name, tuple(runner_bases[:1]), ns)
    proxy_info[cls] = {
        "kind": "exc" if is_exc else "class",
        "methods": frozenset(m for m in methods if type_(m) is str) if not flags & 1
        else frozenset(),
        "proto": tuple(p for p in proto if p in PROTOCOL_SET),
    }
    return cls


exc_handles = {}


def exc_handle_class(exc_cls):
    """The class of a handle to an exception object of the code's that is handed over, not
    raised (a class that collects errors, an error returned as a value): an instance of
    the code's exception class (`isinstance` holds) whose every use is a request, like any
    other object of the code's."""
    cls = exc_handles.get(exc_cls)
    if cls is None:
        info = proxy_info[exc_cls]
        ns = protocol_ns(info["proto"])
        for name in ("__getattribute__", "__setattr__", "__delattr__", "__reduce_ex__",
                     "__copy__", "__deepcopy__"):
            ns[name] = HostObject.__dict__[name]
        # Hashable as the host's object is (an exception is, by identity, unless its class
        # defines __eq__ alone).
        ns["__hash__"] = forwarders["__hash__"]
        ns["__module__"] = exc_cls.__module__
        ns["__qualname__"] = exc_cls.__qualname__
        cls = type.__new__(type_(exc_cls), exc_cls.__name__, (exc_cls,), ns)
        proxy_info[cls] = {"kind": "class", "methods": info["methods"],
                           "proto": info["proto"]}
        exc_handles[exc_cls] = cls
    return cls


def host_exc_str(self):
    shown = vars(self).get("_classlab_host")
    if shown is not None:
        return shown[1]
    return BaseException.__str__(self)


trusted_proxies = {}

module_dunders = ("__name__", "__file__", "__spec__", "__loader__", "__package__",
                  "__path__", "__cached__", "__builtins__")


def module_getattribute(self, name):
    """A module of the code's: what identifies it is asked once (inspect and pytest scan
    every module in sys.modules for its file, again and again)."""
    if name in local_names(type_(self)):
        return object_getattribute(self, name)
    if name in module_dunders:
        cache = module_meta.setdefault(id(self), {})
        if name not in cache:
            try:
                cache[name] = (True, getattr_forward(self, name))
            except AttributeError as e:
                cache[name] = (False, e)
        ok, v = cache[name]
        if not ok:
            raise v
        return v
    return getattr_forward(self, name)


module_meta = {}


def trusted_proxy_class(real):
    """The proxy class for host objects of a class the runner has too (sqlite3.Connection):
    it reports the real class (`isinstance` holds) and forwards everything."""
    cls = trusted_proxies.get(real)
    if cls is None:
        names = [n for n in PROTOCOL if getattr_(real, n, None) is not None]
        ns = protocol_ns(names)
        if real is types.ModuleType:
            ns["__getattribute__"] = module_getattribute
        ns["__module__"] = real.__module__
        ns["__qualname__"] = real.__qualname__
        ns["__slots__"] = ()
        ns["__class__"] = property(lambda self, real=real: real)
        cls = type(real.__name__, (HostObject,), ns)
        methods = set()
        for k in getattr_(real, "__mro__", (real,)):
            for n, v in vars(k).items():
                if not n.startswith("_") and callable(v) and not isinstance_(v, type):
                    methods.add(n)
        proxy_info[cls] = {"kind": "trusted", "methods": frozenset(methods),
                           "proto": tuple(names), "real": real}
        trusted_proxies[real] = cls
    return cls


# ---- containers of the host: real runner containers holding a snapshot ------------------
class ContainerMeta(type):
    """`type(x) == dict` holds for a host dict, as it would in one process."""

    def __eq__(cls, other):
        return other is cls or other is container_real.get(id(cls))

    def __ne__(cls, other):
        return not ContainerMeta.__eq__(cls, other)

    __hash__ = type.__hash__  # by identity: never confused with the real type as a key


mutators = {
    list: {"append", "extend", "insert", "pop", "remove", "clear", "sort", "reverse",
           "__setitem__", "__delitem__", "__iadd__", "__imul__"},
    dict: {"pop", "popitem", "clear", "update", "setdefault", "__setitem__",
           "__delitem__", "__ior__"},
    set: {"add", "discard", "remove", "pop", "clear", "update", "difference_update",
          "intersection_update", "symmetric_difference_update", "__ior__", "__iand__",
          "__isub__", "__ixor__"},
    bytearray: {"append", "extend", "insert", "pop", "remove", "clear", "reverse",
                "__setitem__", "__delitem__", "__iadd__", "__imul__"},
    collections.deque: {"append", "appendleft", "extend", "extendleft", "insert", "pop",
                        "popleft", "remove", "clear", "reverse", "rotate", "__setitem__",
                        "__delitem__", "__iadd__", "__imul__"},
}
mutators[collections.OrderedDict] = mutators[dict] | {"move_to_end"}
mutators[collections.Counter] = mutators[dict] | {"subtract", "__iadd__", "__isub__",
                                                  "__iand__"}
mutators[collections.defaultdict] = mutators[dict]
readers = ("__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__", "__len__",
           "__iter__", "__reversed__", "__contains__", "__getitem__", "__bool__",
           "__repr__", "__str__", "__format__", "__add__", "__radd__", "__mul__",
           "__rmul__", "__or__", "__ror__", "__and__", "__rand__", "__sub__", "__rsub__",
           "__xor__", "__rxor__", "__mod__", "__reduce_ex__", "__sizeof__", "__copy__",
           "__deepcopy__")
container_classes = {}
container_real = {}  # id(container proxy class) -> the real type


def fresh(self):
    if snap_epoch.get(id(self)) != state["epoch"]:
        peer.request("snap", self)


def container_class(real):
    cls = container_classes.get(real)
    if cls is not None:
        return cls
    muts = mutators[real]
    ns = {"__slots__": ("__weakref__",) if not real.__weakrefoffset__ else (),
          "__module__": real.__module__, "__qualname__": real.__qualname__}

    def mutator(name):
        def fn(self, *args, **kwargs):
            r = peer.request("callm", self, name, args, tuple(kwargs.items()))
            if name.startswith("__i"):
                return self  # `x += y` keeps x (the host did it in place)
            return r
        fn.__name__ = name
        return fn

    def reader(name, base):
        def fn(self, *args, **kwargs):
            fresh(self)
            return base(self, *args, **kwargs)
        fn.__name__ = name
        return fn

    for n in muts:
        if getattr_(real, n, None) is not None:
            ns[n] = mutator(n)
    for n in set(dir(real)) - muts:
        v = getattr_(real, n, None)
        if v is not None and (n in readers or (not n.startswith("_") and callable(v))):
            ns[n] = reader(n, v)
    if real is collections.defaultdict:
        def getitem(self, key):
            fresh(self)
            if dict.__contains__(self, key):
                return dict.__getitem__(self, key)
            return peer.request("op", self, "__getitem__", (key,))  # inserts the default
        ns["__getitem__"] = getitem

    def plain_copy(self):
        """What copy.copy and pickling see: a container of the real type, the content as
        it is in the host now."""
        fresh(self)
        if real is collections.defaultdict:
            return real(self.default_factory, dict.items(self))
        if issubclass(real, dict):
            return real(dict.items(self))
        if real is collections.deque:
            return real(collections.deque.__iter__(self), self.maxlen)
        return real(real.__iter__(self))

    ns["__copy__"] = plain_copy
    ns["__reduce_ex__"] = lambda self, protocol: (copy_back_to_plain, (plain_copy(self),))
    cls = ContainerMeta(real.__name__, (real,), ns)
    proxy_info[cls] = {"kind": "container", "real": real, "methods": frozenset(),
                       "proto": ()}
    container_real[id(cls)] = real
    container_classes[real] = cls
    return cls


def copy_back_to_plain(value):
    return value


container_kinds = {
    T_LIST: list, T_DICT: dict, T_SET: set, T_BYTEARRAY: bytearray,
    T_DEQUE: collections.deque, T_ODICT: collections.OrderedDict,
    T_COUNTER: collections.Counter, T_DEFAULTDICT: collections.defaultdict,
}
container_tag_of = {v: k for k, v in container_kinds.items()}


def fill(proxy, real, items, extra):
    """Replace a container proxy's content with a snapshot (through the base type's own
    methods: nothing of the host runs)."""
    if real is bytearray:
        bytearray.__setitem__(proxy, slice(None), items)
    elif real is list:
        list.__setitem__(proxy, slice(None), items)
    elif real is collections.deque:
        collections.deque.clear(proxy)
        collections.deque.extend(proxy, items)
    elif real is set:
        set.clear(proxy)
        set.update(proxy, items)
    else:
        dict.clear(proxy)
        if real is collections.defaultdict:
            proxy.default_factory = extra
        for k, v in items:
            dict.__setitem__(proxy, k, v)
    snap_epoch[id(proxy)] = state["epoch"]


# ---- modules and classes the host names ------------------------------------------------
module_cache = {}


def import_named(name):
    """A module the host named: imported here for real (the standard library or an
    installed package; never a test module, never one only the code's side has)."""
    m = module_cache.get(name)
    if m is not None:
        return m
    if type_(name) is not str or not name or len_(name) > 300 or not all(
            p.isidentifier() for p in name.split(".")):
        raise HostMisbehaved("a bad module name %r" % (name,))
    if name in test_module_names or name.split(".")[0] in code_module_names:
        raise HostMisbehaved("the host named the module %r" % name)
    m = sys.modules.get(name)
    if m is None:
        # Importing it here is the runner's cost, not the test's (in one process the
        # code's import paid for it): the test's clock stops meanwhile.
        left = ctx["hold_clock"]()
        t0 = monotonic()
        try:
            m = import_trusted(name)
        finally:
            if state["deadline"] is not None:
                state["deadline"] += monotonic() - t0
            ctx["release_clock"](left)
    module_cache[name] = m
    return m


def trusted_spec(found):
    if found is None:
        return False
    origin = getattr_(found, "origin", None)
    if origin in ("built-in", "frozen"):
        return True
    paths = [origin] if origin else list(
        getattr_(found, "submodule_search_locations", None) or ())
    return bool(paths) and all(type_(p) is str and trusted_path(p) for p in paths)


def import_trusted(name):
    """Import `name` from the trusted trees only: sys.path narrowed to them meanwhile (so
    neither the module nor anything it imports comes from where the host writes), each
    package on the way checked before it runs."""
    cannot = ("the code under test hands over its module %r, which the tests' side "
              "cannot import" % name)
    saved = list(sys.path)
    sys.path[:] = [p for p in saved if p and trusted_path(p)]
    try:
        parts = name.split(".")
        for i in range(1, len_(parts) + 1):
            prefix = ".".join(parts[:i])
            if prefix in sys.modules:
                continue
            try:
                found = importlib.util.find_spec(prefix)  # its parent is imported already
            except BaseException:
                found = None
            if not trusted_spec(found):
                raise Unjudged(cannot)
        try:
            return importlib.import_module(name)
        except BaseException as e:
            raise Unjudged("%s (%s)" % (cannot, type_(e).__name__))
    finally:
        sys.path[:] = saved


def resolve_class(mod, qual):
    m = import_named(mod)
    obj = m
    for part in qual.split("."):
        if not part.isidentifier():
            raise HostMisbehaved("a bad class path %s.%s" % (mod, qual))
        obj = getattr_(obj, part, None)
    if not isinstance_(obj, type) or type_(obj) not in trusted_meta:
        raise Unjudged("the code under test names the class %s.%s, which the tests' side "
                       "cannot rebuild" % (mod, qual))
    return obj


# ---- what the runner may hand to the code under test ---------------------------------------
# Objects of the standard library whose public attributes and methods reach nothing but
# data (what the host can do with them is call them and read public attributes).
benign = {
    ("xml.etree.ElementTree", "Element"), ("xml.etree.ElementTree", "ElementTree"),
    ("random", "Random"), ("threading", "Event"), ("_thread", "lock"),
    ("_thread", "RLock"), ("threading", "Condition"), ("threading", "Semaphore"),
}


def is_mock(x):
    m = sys.modules.get("unittest.mock")
    return m is not None and (isinstance_(x, m.NonCallableMock)
                              or type_(x).__module__ == "unittest.mock")


def exportable(x):
    if is_mock(x) or isinstance_(x, io.IOBase):
        return True
    t = type_(x)
    if (t.__module__, t.__qualname__) in benign:
        return True
    if isinstance_(x, types.MethodType):
        return exportable(x.__self__) and exportable(x.__func__)
    if isinstance_(x, types.BuiltinMethodType):
        owner = getattr_(x, "__self__", None)
        return owner is not None and not isinstance_(owner, (type, types.ModuleType)) \
            and exportable(owner)
    if isinstance_(x, (types.FunctionType, type)):
        if isinstance_(x, type) and issubclass(x, unittest.TestCase):
            return False
        return getattr_(x, "__module__", None) in test_module_names
    if isinstance_(x, types.GeneratorType):
        return x.gi_code.co_filename in ctx["test_paths"]
    if type_(x).__module__ in ("builtins", "itertools", "_elementtree") and \
            hasattr(type_(x), "__next__"):
        return True  # an iterator: what it yields crosses by the same rules
    t = type_(x)
    if issubclass(t, unittest.TestCase):
        return False
    return t.__module__ in test_module_names


blocked_prefixes = ("_", "gi_", "cr_", "ag_", "f_", "tb_", "co_", "assert", "reset_mock",
                    "configure_mock", "attach_mock", "mock_add_spec")


def type_path(t):
    p = path_of(t)
    return None if p is None else (p[1], p[2])


def path_of(x):
    """(kind, module, qualname) when the host can import x itself."""
    if isinstance_(x, types.ModuleType):
        name = getattr_(x, "__name__", None)
        if type_(name) is str and sys.modules.get(name) is x and \
                name not in test_module_names:
            return ("m", name, "")
        return None
    owner = getattr_(x, "__self__", None)
    if isinstance_(x, types.BuiltinMethodType) and isinstance_(owner, type):
        # a class's builtin method (datetime.now): its class's path and its name
        p = path_of(owner)
        name = getattr_(x, "__name__", None)
        if p is None or type_(name) is not str or getattr_(owner, name, None) != x:
            return None
        return ("f", p[1], p[2] + "." + name)
    mod = getattr_(x, "__module__", None)
    qual = getattr_(x, "__qualname__", None)
    if type_(mod) is not str or type_(qual) is not str or mod in test_module_names \
            or "<" in qual:
        return None
    m = sys.modules.get(mod)
    if m is None:
        return None
    obj = m
    for part in qual.split("."):
        obj = getattr_(obj, part, None)
    return ("c" if isinstance_(x, type) else "f", mod, qual) if obj is x else None


# ---- decoys -------------------------------------------------------------------------------
pool = collections.defaultdict(list)  # type -> values of the suite


def add_pool(v):
    t = type_(v)
    if t in (int, float, str, bytes, complex, tuple, list, dict, frozenset, set) or \
            t.__module__ in ("datetime", "decimal", "fractions"):
        bucket = pool[t]
        if len_(bucket) < 400:
            try:
                if v not in bucket:
                    bucket.append(v)
            except BaseException:
                pass


def literal_pool(code):
    """The test file's constants (what a decoy is drawn from first), read from its code
    objects: no parser needed."""
    if code is None:
        return
    stack = [code]
    while stack:
        c = stack.pop()
        for v in c.co_consts:
            if isinstance_(v, types.CodeType):
                stack.append(v)
            elif type_(v) is not bool and v is not None:
                add_pool(v)


NO_DECOY = object()


def plain_deep(v, depth=0):
    t = type_(v)
    if t in (int, float, str, bytes, complex, bool, type(None)):
        return True
    if depth > 20:
        return False
    if t in (list, tuple, set, frozenset):
        return all(plain_deep(e, depth + 1) for e in v)
    if t is dict:
        return all(plain_deep(k, depth + 1) and plain_deep(e, depth + 1)
                   for k, e in v.items())
    return t.__module__ in ("datetime", "decimal", "fractions")


MAX_DECOYS = 15


def decoys_for(v, most=MAX_DECOYS):
    """The decoys an equality with v is asked with, which the host cannot tell from v:
    - other values of v's type from the suite (up to `most`; two for a large value), so
      that a host that guesses ("equal to the first value it meets", consistently) passes
      one time in as many values;
    - for a container the suite has no other of: v with one leaf (the same place for every
      decoy) set to other values of the leaf's type from the suite: v stands among them at
      no centre, the host can tell only which place is asked, and guesses its value;
    - else one value made like v (one only: several made around v would give v away as
      their centre), of the same form (sign and digits, decimals, character classes).
    For True the decoy is False, and the other way round: a guess passes one time in two,
    as an honest coin would."""
    t = type_(v)
    if t is bool:
        return [not v]
    if v is None:
        cands = [x for k in (str, int, float) for x in pool.get(k, ())]
    elif not plain_deep(v):
        return []
    else:
        cands = others_of(v)
    try:
        big = t in (str, bytes, list, tuple, dict, set, frozenset) and len_(v) > 200
    except BaseException:
        big = True
    n = min(most, 2) if big else most
    if v is not None and t in (list, tuple, dict, set, frozenset):
        varied = varied_leaf(v, n)
        if len_(varied) > 1 or not cands:
            cands = varied + [c for c in cands if type_(c) is t][:max(0, n - len_(varied))]
            return cands if len_(cands) <= n else rng.sample(cands, n)
    if cands:
        if v is None:
            rng.shuffle(cands)
            return cands[:n]
        return alike(cands, v, n)
    if v is None:
        return [False]
    d = made_decoy(v, t)
    return [] if d is NO_DECOY else [d]


def form(x):
    """What a value shows of itself besides its value: type, length class (and whether it
    holds a space), sign and digits, decimals."""
    t = type_(x)
    try:
        if t is str or t is bytes:
            return (t, len_(x).bit_length(), (" " if t is str else b" ") in x)
        if t is int:
            return (t, x < 0, len_(str(abs(x))))
        if t is float:
            if x != x or x in (float("inf"), float("-inf")):
                return (t, None)
            return (t, x < 0, len_(str(int(abs(x)))), decimals_of(x))
        if t in (list, tuple, dict, set, frozenset):
            return (t, len_(x).bit_length())
    except BaseException:
        pass
    return (t,)


def alike(cands, v, n):
    """Up to n of `cands`, those of v's form first, each group in random order: a host
    that picks the odd one out (the only short string among sentences) finds none."""
    f = form(v)
    same = [c for c in cands if form(c) == f]
    rest = [c for c in cands if form(c) != f]
    rng.shuffle(same)
    rng.shuffle(rest)
    return (same + rest)[:n]


def others_of(v):
    """The suite's values of v's type that an honest object equal to v does not equal."""
    t = type_(v)
    out = []
    for x in pool.get(t, ()):
        try:
            if t is float:
                if abs(x - v) > 1e-6 * max(1.0, abs(v)) and x == x:
                    out.append(x)
            elif x != v:
                out.append(x)
        except BaseException:
            pass
    return out


def varied_leaf(v, n):
    """Up to n copies of container v, each with the same leaf (one place, found by going
    down at random) set to another value of its type: the suite's, else one made."""
    path, leaf = [], v
    for _ in range(8):
        t = type_(leaf)
        if t in (list, tuple) and leaf:
            i = rng.randrange(len_(leaf))
            path.append(i)
            leaf = leaf[i]
        elif t is dict and leaf:
            k = rng.choice(list(leaf))
            path.append(k)
            leaf = leaf[k]
        elif t in (set, frozenset):
            path.append(SET_MEMBER)
            break
        else:
            break
    if path and path[-1] is SET_MEMBER:
        holder = leaf
        members = list(holder)
        old = rng.choice(members) if members else None
        lt = type_(old) if members else int
        new = [x for x in (others_of(old) if members else list(pool.get(int, ())))
               if type_(x) is lt and x not in holder]
        if not new:
            d = made_decoy(old, lt) if members else rng.randint(1, 99)
            new = [] if d is NO_DECOY or d in holder else [d]
        new = alike(new, old, n) if members else new[:n]
        return [set_at(v, path[:-1], type_(holder)(
            (set(holder) - ({old} if members else set())) | {x})) for x in new]
    lt = type_(leaf)
    if lt in (list, tuple, dict):  # an empty container: one made
        if lt is dict:
            made = {rng.choice(pool.get(str) or ["key"]): rng.choice(pool.get(int) or [0])}
        else:
            made = lt([rng.choice(pool.get(int) or [0])])
        return [set_at(v, path, made)]
    if lt is bool:
        return [set_at(v, path, not leaf)]
    new = others_of(leaf)
    if not new:
        d = made_decoy(leaf, lt)
        new = [] if d is NO_DECOY else [d]
    return [set_at(v, path, x) for x in alike(new, leaf, n)]


SET_MEMBER = object()


def set_at(v, path, new):
    """A copy of v with the value at `path` replaced by `new`."""
    if not path:
        return new
    t = type_(v)
    if t is dict:
        out = dict(v)
        out[path[0]] = set_at(v[path[0]], path[1:], new)
        return out
    items = list(v)
    items[path[0]] = set_at(v[path[0]], path[1:], new)
    return t(items)


def made_int(v):
    """Another int of v's sign and number of digits (0 stands among 1–9)."""
    a = abs(v)
    digits = len_(str(a))
    lo, hi = (1, 9) if digits == 1 else (10 ** (digits - 1), 10 ** digits - 1)
    d = a
    while d == a:
        d = rng.randint(lo, hi)
    return -d if v < 0 else d


def decimals_of(v):
    r = repr(v)
    if "e" in r or "." not in r:
        return None
    return len_(r.split(".")[1])


def made_float(v, far=0.0):
    """Another float of v's sign, size and decimals (3.5 → 7.1), more than `far` from v."""
    if v != v or v in (float("inf"), float("-inf")):
        return 0.0
    places = decimals_of(v)
    a = abs(v)
    for _ in range(100):
        if places is None or places > 6:
            d = a * rng.uniform(0.37, 3.1) + rng.uniform(0.0, 1.0)
        else:
            hi = max(10.0, 10 ** len_(str(int(a))))
            lo = 0.0 if hi <= 10.0 else hi / 10
            d = round(rng.uniform(lo, hi), places)
            if places == 1 and a == int(a):
                d = float(int(d))
        d = -d if v < 0 else d
        if abs(d - v) > max(far, 1e-6 * max(1.0, a)):
            return d
    return v + (a + 1.0 + 10 * far) * rng.choice((-1, 1))


def made_text(v, t):
    """v with one character replaced by another of its class (a lowercase letter by a
    lowercase letter, a digit by a digit, …)."""
    text = v.decode("latin-1") if t is bytes else v
    if not text:
        out = "abcdefghijklmnopqrstuvwxyz"[rng.randrange(26)] * rng.randint(1, 5)
    else:
        alnum = [i for i, c in enumerate(text) if c.isalnum()]
        i = rng.choice(alnum) if alnum else rng.randrange(len_(text))
        c = text[i]
        if c.isdigit():
            klass = "0123456789"
        elif c.isupper():
            klass = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
        elif c.isalpha():
            klass = "abcdefghijklmnopqrstuvwxyz"
        else:
            klass = " .,-_:;/!?"
        pick = [x for x in klass if x != c] or ["a" if c != "a" else "b"]
        out = text[:i] + rng.choice(pick) + text[i + 1:]
    return out.encode("latin-1") if t is bytes else out


def made_decoy(v, t):
    if t is int:
        return made_int(v)
    if t is float:
        return made_float(v)
    if t is complex:
        return v + complex(rng.randint(1, 99), rng.randint(1, 99))
    if t in (str, bytes):
        try:
            return made_text(v, t)
        except UnicodeError:
            return NO_DECOY
    if t is datetime.datetime or t is datetime.date:
        return v + datetime.timedelta(days=rng.randint(1, 400))
    if t is datetime.timedelta:
        return v + datetime.timedelta(seconds=rng.randint(1, 86400))
    if t is decimal.Decimal or t is fractions.Fraction:
        return v + rng.randint(1, 97)
    return NO_DECOY

# ---- the peer -----------------------------------------------------------------------------


class _Back:
    __slots__ = ("cid", "items", "extra")

    def __init__(self, cid, items, extra):
        self.cid, self.items, self.extra = cid, items, extra


class Peer(Codec):
    max_items = 2_000_000

    def __init__(self):
        super().__init__()
        self._dec_table[ord("B")] = self.d_back
        self.type_path = type_path
        self.next_rid = 1
        self.copies = []  # per request: cid -> the runner's container lent to the host
        self.fixups = []
        # Modules of values and classes sent by path: the host imports each once, asked
        # before the first message that needs it (see host_imports).
        self.host_modules = {"builtins"}
        self.fresh_modules = None
        self.export_log = None

    def uses_module(self, module):
        fresh = self.fresh_modules
        if fresh is not None and module not in self.host_modules and module not in fresh:
            fresh.append(module)

    # -- encoding (runner -> host) --
    def enc_other(self, x, out, depth):
        hid = handles.proxy_ids.get(id(x))
        if hid is not None and type_(x) in proxy_info:
            out.append(T_YOURS)
            _varint(hid, out)
            return
        if type_(x) is LazyMethod:
            self.enc(x._lm_resolve(), out, depth)
            return
        if isinstance_(x, type) and x in proxy_info:
            out.append(T_YOURS)
            _varint(hid_of(x), out)
            return
        t = type_(x)
        tag = container_tag_of.get(t)
        if tag is not None:
            self.enc_copy(x, t, tag, out, depth)
            return
        if isinstance_(x, BaseException):
            self.enc_exc(x, out, depth)
            return
        if self.enc_value(x, out, depth):
            return
        if isinstance_(x, (type, types.ModuleType, types.FunctionType,
                           types.BuiltinFunctionType, types.MethodDescriptorType,
                           types.WrapperDescriptorType)):
            p = path_of(x)
            if p is not None:
                self.enc_path(p[0], p[1], p[2], out, depth)
                return
        if exportable(x):
            hid, new = handles.export(x)
            if self.export_log is not None:
                self.export_log.append(hid)
            if new:
                out.append(T_NEW)
                _varint(hid, out)
                cls = x.__class__
                if not isinstance_(cls, type) or not (cls in proxy_info or path_of(cls)):
                    cls = None
                names = protocol_of(type_(x))
                self.enc((cls, names), out, depth + 1)
            else:
                out.append(T_AGAIN)
                _varint(hid, out)
            return
        raise Unjudged("the test hands the code under test an object of type %s.%s, which "
                       "the protocol does not carry" % (t.__module__, t.__qualname__))

    def enc_copy(self, x, t, tag, out, depth):
        cur = self.copies[-1]
        cid = cur.cid_of(x)
        if cid is not None:
            out.append(T_COPYREF)
            _varint(cid, out)
            return
        cid = len_(cur) + 1
        cur[cid] = x
        out.append(tag)
        _varint(cid, out)
        if tag == T_BYTEARRAY:
            _varint(len_(x), out)
            out += x
            return
        if tag == T_DEFAULTDICT:
            self.enc(x.default_factory, out, depth + 1)
        if tag == T_DEQUE:
            self.enc(x.maxlen, out, depth + 1)
        if tag in (T_DICT, T_ODICT, T_COUNTER, T_DEFAULTDICT):
            items = list(dict.items(x))
            _varint(len_(items), out)
            for k, v in items:
                self.enc(k, out, depth + 1)
                self.enc(v, out, depth + 1)
        else:
            items = list(x)
            _varint(len_(items), out)
            for e in items:
                self.enc(e, out, depth + 1)

    def enc_exc(self, e, out, depth):
        out.append(T_EXC)
        t = type_(e)
        self.enc(t if (t in proxy_info or path_of(t)) else Exception, out, depth + 1)
        try:
            args = tuple(a if self.plain(a) else str(a) for a in e.args)
        except BaseException:
            args = ()
        self.enc(args, out, depth + 1)
        self.enc((), out, depth + 1)
        self.enc(None, out, depth + 1)

    # -- decoding (host -> runner): strict --
    def d_yours(self, depth):
        hid = self.uvarint()
        try:
            return handles.exported_object(hid)
        except WireError:
            raise HostMisbehaved("the host named an object of the tests' it was never "
                                 "given (%d)" % hid)

    def d_path(self, depth):
        kind = chr(self._buf[self._p])
        self._p += 1
        mod, qual = self.dec_str(depth), self.dec_str(depth)
        if kind == "m":
            return import_named(mod)
        if kind == "c":
            return resolve_class(mod, qual)
        raise HostMisbehaved("a path of kind %r" % kind)

    def d_value(self, depth):
        mod, qual = self.dec_str(depth), self.dec_str(depth)
        st = self.dec(depth + 1)
        cls = resolve_class(mod, qual)
        key = mod + "." + qual
        numpy = sys.modules.get("numpy")
        if not (key in VALUE_KEYS or isinstance_(cls, enum.EnumType)
                or (numpy is not None and issubclass(cls, numpy.generic))
                or (issubclass(cls, tuple) and hasattr(cls, "_fields"))):
            raise HostMisbehaved("%s is not a value type" % key)

        def fail(text):
            raise HostMisbehaved(text)
        try:
            return value_from(cls, key, st, fail)
        except (HostMisbehaved, Unjudged):
            raise
        except BaseException as e:
            raise HostMisbehaved("a %s that cannot be rebuilt (%s)" % (key, e))

    def d_class(self, depth):
        hid = self.uvarint()
        if hid in handles.imported:
            raise HostMisbehaved("class %d described twice" % hid)
        desc = self.dec_tuple(depth)
        if len_(desc) != 9:
            raise HostMisbehaved("a malformed class descriptor")
        cls = class_proxy(hid, desc)
        handles.hold(hid, cls, None, strong=True)  # classes stay
        return cls

    def d_new(self, depth):
        hid = self.uvarint()
        if hid == 0 or hid in handles.imported:
            raise HostMisbehaved("object %d introduced twice" % hid)
        cls = self.dec(depth + 1)
        return self.make(hid, cls, None)

    def make(self, hid, cls, entry):
        if not isinstance_(cls, type):
            raise HostMisbehaved("an object whose class is not a class")
        info = proxy_info.get(cls)
        if info is not None and info["kind"] == "class":
            p = object.__new__(cls)
        elif info is not None and info["kind"] == "exc":
            hc = exc_handle_class(cls)
            # The nearest builtin exception's own __new__ (OSError's refuses another's).
            base = next(b for b in hc.__mro__ if b.__module__ == "builtins")
            p = base.__new__(hc)
        elif cls in container_tag_of:
            p = container_class(cls)()
            snap_epoch[id(p)] = -1
        elif info is None:
            p = object.__new__(trusted_proxy_class(cls))
        else:
            raise HostMisbehaved("an object of an unusable class")
        handles.hold(hid, p, cls, entry)
        return p

    def d_again(self, depth):
        hid = self.uvarint()
        p, entry = handles.held(hid)
        if entry is None:
            raise HostMisbehaved("the host named an object %d it never introduced" % hid)
        if p is None:
            p = self.make(hid, entry[2], entry)
        return p

    def d_snap(self, depth):
        p = self.dec(depth + 1)
        info = proxy_info.get(type_(p))
        if info is None or info["kind"] != "container":
            raise HostMisbehaved("a snapshot of something that is not a container")
        real = info["real"]
        tag = self._buf[self._p]
        self._p += 1
        if container_kinds.get(tag) is not real:
            raise HostMisbehaved("a snapshot of another kind of container")
        if self.uvarint() != 0:
            raise HostMisbehaved("a snapshot that claims to be a copy")
        items, extra = self.read_state(tag, real, depth)
        self.fixups.append((p, real, items, extra))
        return p

    def read_state(self, tag, real, depth):
        extra = None
        if tag == T_BYTEARRAY:
            return bytes(self.raw(self.uvarint())), None
        if tag == T_DEFAULTDICT:
            extra = self.dec(depth + 1)
            if extra is not None and not callable(extra):
                raise HostMisbehaved("a defaultdict whose factory is not callable")
        if tag == T_DEQUE:
            extra = self.dec(depth + 1)
            if extra is not None and type_(extra) is not int:
                raise HostMisbehaved("a deque with a bad maxlen")
        n = self.count()
        if tag in (T_DICT, T_ODICT, T_COUNTER, T_DEFAULTDICT):
            return [(self.dec(depth + 1), self.dec(depth + 1)) for _ in range(n)], extra
        return [self.dec(depth + 1) for _ in range(n)], extra

    def d_back(self, depth):
        cid = self.uvarint()
        cur = self.copies[-1] if self.copies else {}
        orig = cur.get(cid)
        if orig is None:
            raise HostMisbehaved("a copy-back of a container the test did not lend")
        tag = self._buf[self._p]
        self._p += 1
        real = type_(orig)
        if container_kinds.get(tag) is not real or self.uvarint() != 0:
            raise HostMisbehaved("a copy-back of another kind of container")
        items, extra = self.read_state(tag, real, depth)
        return _Back(cid, items, extra)

    def d_copyref(self, depth):
        cid = self.uvarint()
        cur = self.copies[-1] if self.copies else {}
        if cid not in cur:
            raise HostMisbehaved("a reference to a container the test did not lend")
        return cur[cid]

    def d_exc(self, depth):
        cls = self.dec(depth + 1)
        args = self.dec_tuple(depth)
        attrs = self.dec_tuple(depth)
        shown = self.dec_tuple(depth)
        if not (isinstance_(cls, type) and issubclass(cls, BaseException)):
            raise HostMisbehaved("an exception whose class is not an exception class")
        if cls not in proxy_info and (cls.__module__ + ".").startswith(exc_denied) \
                or cls.__module__ == "builtins" and not issubclass(cls, Exception) \
                and cls not in (KeyboardInterrupt, SystemExit, GeneratorExit):
            observe("the code raised %s.%s, which only the test machinery raises"
                    % (cls.__module__, cls.__qualname__))
            cls, args = RuntimeError, ("the code under test raised %s" % cls.__qualname__,)
        if len_(shown) != 4 or type_(shown[0]) is not str or type_(shown[1]) is not str \
                or type_(shown[3]) is not str or type_(shown[2]) not in (int, type(None)):
            raise HostMisbehaved("an exception with a malformed description")
        e = None
        if cls not in proxy_info:
            try:
                e = cls(*args)
            except BaseException:
                e = None
        if e is None or type_(e) is not cls:
            e = cls.__new__(cls)
            try:
                e.args = args
            except BaseException:
                pass
        for pair in attrs[:20]:
            if type_(pair) is tuple and len_(pair) == 2 and type_(pair[0]) is str \
                    and not pair[0].startswith("__"):
                try:
                    setattr_(e, pair[0], pair[1])
                except BaseException:
                    pass
        vars(e)["_classlab_host"] = (shown[0][:200], shown[1][:4000], shown[2],
                                     shown[3][:16000])
        return e

    # -- messages --
    def decode(self, payload):
        self.fixups = []
        try:
            msg = self.loads(payload)
        except WireError as e:
            raise HostMisbehaved(str(e))
        fixups, self.fixups = self.fixups, []
        for p, real, items, extra in fixups:
            fill(p, real, items, extra)
        if type_(msg) is not tuple or not msg or type_(msg[0]) is not str:
            raise HostMisbehaved("a message that is not a tagged tuple")
        return msg

    def send(self, msg):
        fresh, log = self.fresh_modules, self.export_log = [], []
        try:
            try:
                payload = self.dumps(msg)
            finally:
                self.fresh_modules = self.export_log = None
            if fresh:
                self.host_imports(fresh)
        except BaseException:
            # Nothing was sent: what this message would have handed over was not.
            handles.release(tuple((hid, 1) for hid in log))
            raise
        rel = handles.take_released()
        if rel is None:
            frames.send(payload)
            return
        self.copies.append(Lent())
        try:
            released = self.dumps(("R", rel))
        finally:
            self.copies.pop()
        frames.send(released, payload)

    def host_imports(self, modules):
        """Before a message with values (or classes) of modules the host may not have
        imported, the host imports them, with the test's clock stopped and the import's
        own time limit: in one process the tests' imports had paid for them (a value of a
        package that takes 20 s to import would otherwise time the test out)."""
        d = state["deadline"]
        limit = ctx["spec"].get("import_timeout")
        left = ctx["hold_clock"]()
        t0 = monotonic()
        if d is not None:  # a spec without an import limit: a minute
            state["deadline"] = t0 + (float(limit) if limit else 60.0)
        try:
            self.request("imports", tuple(modules))
        finally:
            if d is not None:
                state["deadline"] = d + (monotonic() - t0)
            ctx["release_clock"](left)
        self.host_modules.update(modules)

    def recv(self):
        while not frames.pending():
            d = state["deadline"]
            if d is None:
                timeout = -1
            else:
                left = d + grace - monotonic()
                if left <= 0:
                    die(HarnessTimeout, "the code under test did not answer within %.1f s "
                                        "of the test's deadline" % grace)
                timeout = int(left * 1000) + 1
            try:
                ready = poller.poll(timeout)
            except InterruptedError:
                ready = None
            if not ready:
                continue
            try:
                ok = frames.fill()
            except WireError as e:
                die(HostMisbehaved, str(e))
            except OSError as e:
                die(HostDied, "the host's socket failed (%s)" % e)
            if not ok:
                die(HostDied, "the process of the code under test ended")
        return self.decode(frames.take())

    def request(self, op, *operands):
        dead = state["dead"]
        if dead is not None:
            raise dead[0](dead[1])
        rid = self.next_rid
        self.next_rid += 1
        if op != "snap" and op != "imports":
            state["epoch"] += 1
        d = state["deadline"]
        left = None if d is None else max(d - monotonic(), 0.0)
        self.copies.append(Lent())
        # The protocol is never interrupted half way: the alarm only marks the deadline
        # (see Split.waiting) until the answer is in, or while a callback runs test code.
        was_waiting = state["waiting"]
        state["waiting"] = True
        try:
            try:
                self.send(("q", rid, op, left, caller_depth()) + operands)
            except WireError as e:
                raise Unjudged("the test hands the code under test something the protocol "
                               "does not carry (%s)" % e)
            except OSError:
                die(HostDied, "the process of the code under test ended")
            while True:
                try:
                    msg = self.recv()
                except HostMisbehaved as e:
                    die(HostMisbehaved, str(e))
                kind = msg[0]
                if kind == "q":
                    self.serve(msg)
                elif kind == "R":
                    handles.release(msg[1] if type_(msg[1]) is tuple else ())
                elif kind == "a" and len_(msg) == 4 and msg[1] == rid:
                    self.apply_backs(msg[3])
                    state["waiting"] = was_waiting
                    self.after()
                    return msg[2]
                elif kind == "x" and len_(msg) == 4 and msg[1] == rid:
                    self.apply_backs(())
                    state["waiting"] = was_waiting
                    self.after()
                    err, how = msg[2], msg[3]
                    if how == "timeout":
                        raise HarnessTimeout(ctx["alarm_reason"]())
                    if not isinstance_(err, BaseException):
                        die(HostMisbehaved, "an error answer without an exception")
                    raise err
                else:
                    die(HostMisbehaved, "an answer out of turn (%r)" % (kind,))
        finally:
            state["waiting"] = was_waiting
            self.copies.pop()

    def after(self):
        held = state["held"]
        if held:
            raise held.pop(0)
        if state["expired"]:
            state["expired"] = False
            raise HarnessTimeout(ctx["alarm_reason"]())

    def apply_backs(self, backs):
        if type_(backs) is not tuple:
            die(HostMisbehaved, "copy-backs that are not a tuple")
        for b in backs:
            if type_(b) is not _Back:
                die(HostMisbehaved, "a copy-back that is not one")
            orig = self.copies[-1][b.cid]
            real = type_(orig)
            if real in (dict, collections.OrderedDict, collections.Counter,
                        collections.defaultdict):
                dict.clear(orig)
                for k, v in b.items:
                    dict.__setitem__(orig, k, v)
            elif real is set:
                orig.clear()
                orig.update(b.items)
            elif real is collections.deque:
                orig.clear()
                orig.extend(b.items)
            else:
                orig[:] = b.items

    def serve(self, msg):
        """A request of the host's: a call of one of the tests' objects, or one of its
        public attributes. Whatever else the host asks is refused."""
        state["epoch"] += 1  # the code ran: snapshots are stale
        if len_(msg) < 4 or type_(msg[1]) is not int:
            die(HostMisbehaved, "a malformed request")
        rid, op, operands = msg[1], msg[2], msg[5:]
        self.copies.append(Lent())
        was_waiting = state["waiting"]
        try:
            try:
                state["waiting"] = False  # test code (a mock, a callback) runs
                try:
                    value = self.dispatch(op, operands)
                finally:
                    state["waiting"] = was_waiting
                answer = ("a", rid, value, ())
                try:
                    self.send(answer)
                except Unjudged as u:
                    state["unjudged"].append(str(u))
                    self.send(("x", rid, TypeError(str(u)), "raise"))
            except BaseException as e:
                if isinstance_(e, (HostDied, HostMisbehaved)):
                    raise
                if is_held(e):
                    state["held"].append(e)
                    self.send(("x", rid, RuntimeError("the test failed"), "abort"))
                else:
                    self.send(("x", rid, e, "raise"))
        finally:
            self.copies.pop()

    def dispatch(self, op, operands):
        if op == "call" and len_(operands) == 3:
            obj, args, kwargs = operands
            self.exported_check(obj)
            if type_(args) is not tuple or type_(kwargs) is not tuple:
                raise HostMisbehaved("a call with malformed arguments")
            kw = {}
            for pair in kwargs:
                if type_(pair) is not tuple or len_(pair) != 2 or type_(pair[0]) is not str:
                    raise HostMisbehaved("a call with malformed keyword arguments")
                kw[pair[0]] = pair[1]
            return obj(*args, **kw)
        if op == "getattr" and len_(operands) == 2:
            obj, name = operands
            self.exported_check(obj)
            if type_(name) is not str or name.startswith(blocked_prefixes):
                observe("the code asked for %r of a test's object" % (str(name)[:60],))
                raise AttributeError("the code under test may read only public attributes "
                                     "of the tests' objects")
            return getattr_(obj, name)
        if op == "op" and len_(operands) == 3:
            obj, name, args = operands
            self.exported_check(obj)
            if name not in host_ops or type_(args) is not tuple:
                raise TypeError("the code under test may not use %r on the tests' objects"
                                % (name,))
            return host_ops[name](obj, *args)
        if op == "setattr" and len_(operands) == 3:
            obj, name, value = operands
            self.exported_check(obj)
            # Data objects may be written (an xml Element's text); mocks never (their
            # records are what the test asserts), nor anything private.
            if type_(name) is str and not name.startswith(blocked_prefixes) and \
                    not is_mock(obj) and not isinstance_(obj, (
                        types.FunctionType, types.MethodType, type)):
                setattr_(obj, name, value)
                return None
            observe("the code tried to set %r of a test's object" % (str(name)[:60],))
            raise AttributeError("the code under test cannot change this object of the "
                                 "tests' (%s)" % (str(name)[:60],))
        if op == "delattr":
            observe("the code tried to delete an attribute of a test's object")
            raise AttributeError("the code under test cannot change the tests' objects")
        die(HostMisbehaved, "a request %r the runner does not serve" % (op,))

    def exported_check(self, obj):
        if not (exportable(obj) and handles.exported_ids.get(id(obj)) is not None):
            raise HostMisbehaved("the host used an object it was not given")

    # -- comparisons with decoys --
    def compare(self, h, other, negate):
        """h == other (h != other with `negate`), asked of the host together with decoys in
        random order. The answer is the truth the host gave at once, as a runner bool: a
        result object whose truth could change later never reaches the test."""
        if type_(other) in proxy_info or type_(other) is LazyMethod:
            return self.request("op", h, "__ne__" if negate else "__eq__", (other,))
        decoys = decoys_for(other)
        add_pool(other)
        if not decoys:
            return self.request("op", h, "__ne__" if negate else "__eq__", (other,))
        values = [other] + decoys
        # Each value twice, in two independent random orders: an honest object answers
        # alike for the same value; one that answers by position ("equal to the first
        # value asked") does not.
        first, again = list(range(len_(values))), list(range(len_(values)))
        rng.shuffle(first)
        rng.shuffle(again)
        order = first + again
        r = self.request("eqn", h, tuple(values[i] for i in order), negate)
        if type_(r) is not tuple or len_(r) != len_(order):
            die(HostMisbehaved, "a malformed comparison answer")
        answers = [None] * len_(values)
        mixed = None
        for pos, i in enumerate(order):
            a = r[pos]
            if type_(a) is not tuple or len_(a) not in (2, 3, 4) or a[0] not in ("ok", "err") \
                    or (a[0] == "err") != (len_(a) == 2) \
                    or (len_(a) >= 3 and a[2] not in (True, False, None)) \
                    or (len_(a) == 4 and not isinstance_(a[3], BaseException)) \
                    or (a[0] == "err" and not isinstance_(a[1], BaseException)):
                die(HostMisbehaved, "a malformed comparison answer")
            if answers[i] is None:
                answers[i] = a
            elif (answers[i][0], answers[i][2] if a[0] == "ok" else None) != \
                    (a[0], a[2] if a[0] == "ok" else None) and mixed is None:
                mixed = values[i]
        real = answers[0]
        want = not negate
        fooled = [values[i] for i in range(1, len_(values))
                  if answers[i][0] == "ok" and answers[i][2] is want]
        t = type_(h)
        text = None
        if mixed is not None:
            text = ("an object of type %s.%s answers differently when compared with %s "
                    "again" % (t.__module__, t.__qualname__, short(mixed)))
        elif real[0] == "ok" and real[2] is want and fooled:
            text = ("an object of type %s.%s compares %s both %s and a decoy %s"
                    % (t.__module__, t.__qualname__,
                       "unequal to neither" if negate else "equal to",
                       short(other), short(fooled[0])))
        if text is not None:
            forged(text)
        # Only "==" is counted: an object unequal to the test's value may well equal another
        # of the suite's values (its own).
        right = real[0] == "ok" and real[2] is want
        guessed = None if negate or not (right or fooled) else note_guess(t, not right)
        if guessed:
            forged("an object of type %s.%s compares equal to %s, in a suite whose objects "
                   "guess among the values they are asked about (%s)" % (
                       t.__module__, t.__qualname__, short(other) if right else
                       "a decoy %s instead of %s" % (short(fooled[0]), short(other)),
                       guessed), seen=False)
        if real[0] == "err":
            raise real[1]
        if real[2] is None:
            # No truth (a NumPy array compared element-wise): the result for what tests do
            # with it (`.all()`), its truth the error it gave then.
            ambiguous[id(real[1])] = (real[1], real[3] if len_(real) == 4 else None)
            return real[1]
        return real[2]


own_file = sys._getframe().f_code.co_filename
getframe = sys._getframe


def caller_depth():
    """The stack depth of the test's frame that made this request: the code is called
    with the recursion headroom it would have in one process."""
    f = getframe(2)
    while f is not None and f.f_code.co_filename == own_file:
        f = f.f_back
    n = 0
    while f is not None:
        n += 1
        f = f.f_back
    return n


def short(v):
    try:
        s = repr(v)
    except BaseException:
        s = "?"
    return s if len_(s) <= 60 else s[:57] + "..."


host_ops = {
    "__len__": len, "__iter__": iter, "__next__": next, "__bool__": bool, "__str__": str,
    "__repr__": repr, "__hash__": hash, "__int__": int, "__float__": float,
    "__index__": operator.index, "__eq__": operator.eq, "__ne__": operator.ne,
    "__lt__": operator.lt, "__le__": operator.le, "__gt__": operator.gt,
    "__ge__": operator.ge, "__contains__": lambda x, k: k in x,
    "__getitem__": operator.getitem, "__format__": format,
    "__enter__": lambda x: type_(x).__enter__(x),
    "__exit__": lambda x, *a: type_(x).__exit__(x, *a),
    "__fspath__": os.fspath,
}


def die(kind, message):
    if state["dead"] is None:
        state["dead"] = (kind, message)
        observe(message if kind is not HostMisbehaved else
                "the host misbehaved: " + message)
    raise kind(message)


def getattr_forward(obj, name):
    info = proxy_info.get(type_(obj))
    if info is not None and name in info["methods"]:
        return LazyMethod(obj, name)
    return peer.request("getattr", obj, name)


# ---- mock.patch of modules both sides have: forwarded to the host ------------------------
forwarded = {}
hooked = [False]


def hook_mock():
    """Once the tests have imported unittest.mock: forward its patches of modules both
    sides have (the test's own code patches them; it is trusted)."""
    mock = sys.modules.get("unittest.mock")
    if hooked[0] or mock is None:
        return
    hooked[0] = True
    orig_enter = mock._patch.__enter__
    orig_exit = mock._patch.__exit__
    orig_patch_dict = mock._patch_dict._patch_dict
    orig_unpatch_dict = mock._patch_dict._unpatch_dict

    def patch_enter(self):
        result = orig_enter(self)
        target = getattr_(self, "target", None)
        if type_(target) is types.ModuleType and state["dead"] is None:
            name = getattr_(target, "__name__", "")
            if name not in test_module_names and sys.modules.get(name) is target:
                value = getattr_(target, self.attribute, None)
                try:
                    forwarded[id(self)] = peer.request("patch", name, self.attribute, value)
                except BaseException:
                    orig_exit(self, None, None, None)
                    raise
        return result

    def patch_exit(self, *exc_info):
        token = forwarded.pop(id(self), None)
        try:
            if token is not None and state["dead"] is None:
                peer.request("unpatch", token)
        finally:
            done = orig_exit(self, *exc_info)
        return done

    mock._patch.__enter__ = patch_enter
    mock._patch.__exit__ = patch_exit

    def environ_sync():
        if state["dead"] is None:
            peer.request("environ", tuple(os.environ.items()))

    def patch_dict(self):
        r = orig_patch_dict(self)
        if self.in_dict is os.environ:
            environ_sync()
        return r

    def unpatch_dict(self):
        r = orig_unpatch_dict(self)
        if self.in_dict is os.environ:
            environ_sync()
        return r

    mock._patch_dict._patch_dict = patch_dict
    mock._patch_dict._unpatch_dict = unpatch_dict


# ---- near-equality: the host answers subtraction too, so it is asked with a decoy -------
def is_host_object(x):
    info = proxy_info.get(type_(x))
    return info is not None and info["kind"] in ("class", "trusted")


def near_decoys(v, tol):
    """Numbers no honest value within `tol` of v is also within `tol` of: the suite's
    (up to MAX_DECOYS), else one made like v (its sign, size and decimals)."""
    if type_(v) not in (int, float) or v != v:
        return []
    cands = [x for x in pool.get(float, ()) + pool.get(int, ())
             if type_(x) in (int, float) and abs(x - v) > 4 * tol]
    if cands:
        return alike(cands, v, MAX_DECOYS)
    return [made_float(float(v), 4 * tol)]


def paired(check, h, v, tol):
    """check(value) for the test's value and for decoys, in random order: a host object
    that passes with a decoy too is a forgery."""
    ds = near_decoys(v, tol)
    if not ds:
        return check(v)
    order = [(True, v)] + [(False, d) for d in ds]
    rng.shuffle(order)
    got = {}
    fooled = []
    for real, x in order:
        try:
            r = (True, check(x))
        except BaseException as e:
            if isinstance_(e, (HostDied, HostMisbehaved, Unjudged, Forged)):
                raise
            r = (False, e)
        if real:
            got[True] = r
        elif r[0] and r[1] in (None, True):
            fooled.append(x)
    ok, r = got[True]
    passed = ok and r in (None, True)
    t = type_(h)
    if fooled and passed:
        forged("an object of type %s.%s is close to both %s and a decoy %s"
               % (t.__module__, t.__qualname__, short(v), short(fooled[0])))
    if (fooled or passed) and note_guess(t, not passed):
        forged("an object of type %s.%s is close to %s, in a suite whose objects guess "
               "among the values they are asked about" % (
                   t.__module__, t.__qualname__, short(v) if passed else
                   "a decoy %s instead of %s" % (short(fooled[0]), short(v))), seen=False)
    if not ok:
        raise r
    return r


guarded = [False, False]


def guard_near():
    """assertAlmostEqual and pytest.approx compare through subtraction, which the host
    answers: a host object is asked against a decoy too."""
    if not guarded[0]:
        guarded[0] = True
        tc = unittest.TestCase
        orig = tc.assertAlmostEqual

        def almost(self, first, second, places=None, msg=None, delta=None):
            hf, hs = is_host_object(first), is_host_object(second)
            if hf == hs:
                return orig(self, first, second, places, msg, delta)
            h, v = (first, second) if hf else (second, first)
            tol = delta if delta is not None else 10.0 ** -(places if places else 7)

            def check(x):
                a, b = (h, x) if hf else (x, h)
                return orig(self, a, b, places, msg, delta)
            return paired(check, h, v, float(tol))

        tc.assertAlmostEqual = almost
        tc.assertAlmostEquals = almost
    api = sys.modules.get("_pytest.python_api")
    if not guarded[1] and api is not None and hasattr(api, "ApproxScalar"):
        guarded[1] = True
        scalar = api.ApproxScalar
        orig_eq = scalar.__eq__

        def approx_eq(self, actual):
            if not is_host_object(actual):
                return orig_eq(self, actual)
            tol = self.tolerance if type_(getattr_(self, "expected", None)) in (
                int, float) else 0.0
            return paired(lambda x: orig_eq(scalar(x, rel=self.rel, abs=self.abs,
                                                   nan_ok=self.nan_ok), actual),
                          actual, self.expected, float(tol))

        scalar.__eq__ = approx_eq


# ---- what runner.py calls -----------------------------------------------------------------
class Split:

    @staticmethod
    def dead():
        return state["dead"]

    @staticmethod
    def set_deadline(seconds):
        state["deadline"] = None if seconds is None else monotonic() + seconds

    @staticmethod
    def waiting():
        """True while the runner waits for the host (its own alarm then only marks the
        deadline: the host answers with a timeout, or is declared dead after the grace)."""
        if state["waiting"]:
            state["expired"] = True
            return True
        return False

    @staticmethod
    def import_code(modules, globals_module=None):
        """Import the code's modules in the host: their proxies (a raised exception is the
        import failure, as the host reported it). With `globals_module`, the names of that
        module's top level come in the same answer (for `code_globals`)."""
        answer = peer.request("import", tuple(modules), globals_module)
        if type_(answer) is not tuple or len_(answer) != 2:
            die(HostMisbehaved, "a malformed answer to the import")
        mods, names = answer
        if type_(mods) is not tuple or len_(mods) != len_(modules):
            die(HostMisbehaved, "a malformed answer to the import")
        state["global_names"] = names
        return dict(zip(modules, mods))

    @staticmethod
    def code_globals(module, looked_up=None):
        """The code module's top-level names (ClassEval's one-module layout) that the tests
        may look up (`looked_up`; None: all): modules it imported come back imported here,
        classes as runner classes, values by value. Names the tests never look up stay in
        the host (a module the code imported and the tests never name is not imported
        here). The host learns only which of its own names the tests look up."""
        names = state.pop("global_names", None)
        if type_(names) is not tuple or not all(type_(n) is str for n in names):
            die(HostMisbehaved, "malformed globals")
        wanted = tuple(n for n in names if looked_up is None or n in looked_up)
        pairs = peer.request("globals", module, wanted)
        out = {}
        if type_(pairs) is not tuple:
            die(HostMisbehaved, "malformed globals")
        shadow = set(dir(builtins))
        wanted = frozenset(wanted)
        for pair in pairs:
            if type_(pair) is not tuple or len_(pair) != 2 or type_(pair[0]) is not str \
                    or not pair[0].isidentifier() or pair[0] not in wanted:
                die(HostMisbehaved, "malformed globals")
            if pair[0] in shadow:
                observe("the code's top-level name %s shadows a builtin the tests use"
                        % pair[0])
                continue
            out[pair[0]] = pair[1]
        return out

    @staticmethod
    def tests_loaded():
        hook_mock()
        guard_near()

    @staticmethod
    def begin_test(test_id):
        hook_mock()
        guard_near()
        state["test"] = test_id
        state["held"] = []
        state["unjudged"] = []
        state["forged"] = []
        state["expired"] = False

    @staticmethod
    def end_test():
        """What the split harness itself says of the test that just ran: ("tampered",
        reason), ("unjudged", reason), ("held", exception) or None."""
        state["deadline"] = None
        try:
            if state["forged"]:
                return ("tampered", state["forged"][0])
            if state["unjudged"]:
                return ("unjudged", state["unjudged"][0])
            if state["held"]:
                return ("held", state["held"][0])
            return None
        finally:
            state["test"] = None

    @staticmethod
    def host_evidence():
        if state["dead"] is not None:
            return ()
        try:
            items = peer.request("evidence")
        except BaseException:
            return ()
        if type_(items) is not tuple:
            return ()
        return tuple(str(i)[:300] for i in items[:64] if type_(i) is str)

    @staticmethod
    def runner_evidence():
        return list(evidence)


Split.HostDied, Split.HostMisbehaved, Split.Unjudged, Split.Forged = (
    HostDied, HostMisbehaved, Unjudged, Forged)


def _split_runner(ctx_):
    """The runner's connection to the host, for this suite. `ctx_` holds what runner.py
    shares: the spec, the test module's name and path, `emit`, and the harness's exception
    classes."""
    global ctx, spec, emit, HarnessTimeout, tests_dir, scratch_dir, trusted_roots
    global test_module_names, code_module_names, grace, rng, frames, poller, peer
    ctx = ctx_
    spec = ctx["spec"]
    emit = ctx["emit"]
    HarnessTimeout = ctx["HarnessTimeout"]
    tests_dir = os.path.realpath(spec.get("tests_dir") or ".")
    scratch_dir = os.path.realpath(spec.get("scratch") or tests_dir)
    # Where a module the host names may be imported from: the trees on sys.path before any
    # test ran (the standard library, site-packages), never the tests' directory or the
    # scratch directory the host writes, whatever the tests add to sys.path later (a test that
    # puts `os.path.dirname(__file__)`, the scratch directory, on it would otherwise let the
    # host plant a module and name it).
    trusted_roots = tuple(
        r for r in (os.path.realpath(p) for p in sys.path if p)
        if not under(r, tests_dir) and not under(r, scratch_dir))
    test_module_names = set(ctx["test_modules"])
    code_module_names = set(spec.get("code_modules") or [])
    if spec.get("globals_module"):
        code_module_names.add(spec["globals_module"])
    grace = float(spec.get("host_grace", 2.0))
    rng = random.Random(os.urandom(16))
    fd = int(spec.get("host_fd", 5))
    frames = Frames(fd, int(spec.get("max_frame", 64 << 20)))
    poller = select.poll()
    poller.register(fd, select.POLLIN | select.POLLHUP | select.POLLERR)
    peer = Peer()
    literal_pool(ctx["test_top"])
    return Split
