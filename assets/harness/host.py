# classlab split harness, the host: imports the code under test and runs what the runner asks
# of it, one request at a time, over fd 3 (see wire.py, prepended to this file). It never sees
# a test: only the values each operation needs. Started by the classlab launcher as
# `python -s -P -B -c <wire.py + this file> <host spec json>`, in its own PID namespace, as a
# uid of its own, with cwd = the scratch directory.
#
# Nothing here is trusted by the runner: every answer is validated there, and the runner never
# takes a verdict from this process. What this process reports of the code's tampering
# (`evidence`) is a lower bound the code could suppress, never a verdict.

import collections
import json
import os
import signal
import _signal
import time
import traceback
import types
import unittest  # noqa: F401  (watched: the code may patch it)
import unittest.case  # noqa: F401
import abc
import enum
import operator
import sys as _sys

# The test machinery the code may patch (its own copies: that changes nothing the runner
# computes, but says what it tried), watched by identity snapshots of the modules' and
# classes' dictionaries.
_WATCHED_MODULES = ("builtins", "unittest", "unittest.case", "unittest.result", "unittest.mock",
                    "json", "json.encoder", "pytest", "_pytest.python", "_pytest.runner",
                    "_pytest.outcomes", "sys")
_WATCHED_CLASSES = (("unittest.case", "TestCase"), ("unittest.result", "TestResult"),
                    ("json.encoder", "JSONEncoder"), ("unittest.case", "_Outcome"))


def _dict_tag_reader():
    """A reader of a dict's version tag (PEP 509: it changes with every change of the dict)
    from the dict's address, or None where this interpreter keeps none (the layout is checked
    on dicts changed here). Reading it touches neither the dict nor its values: in a suite
    forked from the warm interpreter, comparing every value would copy on write each page
    of the test machinery they sit on (~200 pages, ~2.5 ms per suite)."""
    try:
        import ctypes
        word = ctypes.sizeof(ctypes.c_ssize_t)
        tag_at = ctypes.c_uint64.from_address
        used_at = ctypes.c_ssize_t.from_address

        def tag(addr):
            return tag_at(addr + 3 * word).value  # after ob_refcnt, ob_type, ma_used

        d = {"a": 1}
        a = id(d)
        t0 = tag(a)
        d["a"] = 2
        t1 = tag(a)
        d["b"] = 3
        if used_at(a + 2 * word).value != 2 or not (t0 != t1 != tag(a)):
            return None
        return tag
    except Exception:
        return None


def _snapshot(obj, tag):
    """(obj, a copy of its dictionary, the dictionary's address and version tag)."""
    import gc
    d = vars(obj)
    if isinstance(obj, type):
        inner = [r for r in gc.get_referents(d) if type(r) is dict]  # under the mappingproxy
        d = inner[0] if len(inner) == 1 else None
    if tag is None or type(d) is not dict:
        return (obj, dict(vars(obj)), None, None)
    return (obj, dict(d), id(d), tag(id(d)))


def _watch(watched, tag, skip=()):
    """Snapshots, into `watched`, of the watched machinery loaded and not yet in it."""
    for name in _WATCHED_MODULES:
        m = _sys.modules.get(name)
        if m is not None and name not in watched and name not in skip:
            watched[name] = _snapshot(m, tag)
    for owner, cname in _WATCHED_CLASSES:
        cls = getattr(_sys.modules.get(owner), cname, None)
        key = owner + "." + cname
        if isinstance(cls, type) and key not in watched:
            watched[key] = _snapshot(cls, tag)
    return watched


# Snapshots of the machinery already loaded where this file is compiled: in the warm
# interpreter, before any suite is forked from it (so a suite inherits them untouched). `sys`
# is left to the host, whose own start changes it (argv).
_DICT_TAG = _dict_tag_reader()
_PRISTINE = _watch({}, _DICT_TAG, skip=("sys",))


# ---- the harness, defined once where this file is compiled (in the warm interpreter, before
# any suite is forked: a suite then defines nothing). What is a suite's own is set by
# `_host_main` in the names below, each in its process's copy of this module.
spec = None  # the host spec (JSON from argv)
regions = ()  # (file, first line, last line) of the code under test
untrusted_dirs = ()  # the code's and the scratch directory, each with a trailing /
frames = handles = peer = None
hooks0 = {}  # sys's hooks as the host started

monotonic = time.monotonic
getframe = _sys._getframe
stdlib = frozenset(_sys.stdlib_module_names) | frozenset(_sys.builtin_module_names)
host_file = getframe().f_code.co_filename


class HostTimeout(BaseException):
    """The runner's deadline for this request passed."""


class RunnerAbort(BaseException):
    """The test failed in the runner while the code was calling back into it."""


# ---- evidence: what the code did to the test machinery it can see ------------------------
notes = []
seen_notes = set()


def note(text):
    if text not in seen_notes and len(notes) < 64:
        seen_notes.add(text)
        notes.append(text[:300])


def code_line(filename, lineno):
    for path, first, last in regions:
        if filename == path and lineno >= first and (last is None or lineno <= last):
            return lineno
    return None


def caller_in_code(depth):
    """file:line of the code under test when it is what called (the import machinery and
    exec'd text are passed through to whoever ran them); None for a library."""
    try:
        f = getframe(depth)
    except ValueError:
        return None
    while f is not None:
        fn = f.f_code.co_filename
        if fn.startswith(untrusted_dirs):
            return "%s:%d" % (os.path.basename(fn), f.f_lineno)
        if fn != host_file and not fn.startswith("<"):
            return None
        f = f.f_back
    return None


busy = [False]
frame_events = {
    "sys._getframe": "inspected the call stack (sys._getframe)",
    "sys._current_frames": "inspected other threads' stacks (sys._current_frames)",
    "gc.get_objects": "searched the heap (gc.get_objects)",
    "gc.get_referrers": "searched the heap (gc.get_referrers)",
    "gc.get_referents": "searched the heap (gc.get_referents)",
    "sys.settrace": "installed a trace function (sys.settrace)",
    "sys.setprofile": "installed a profile function (sys.setprofile)",
    "sys.addaudithook": "added an audit hook",
    "os.kill": "sent a signal (os.kill)",
    "os.killpg": "sent a signal (os.killpg)",
    "signal.pthread_kill": "sent a signal (signal.pthread_kill)",
    "code.__new__": "built a code object",
}


def audit(event, args):
    if busy[0]:
        return
    busy[0] = True
    try:
        what = frame_events.get(event)
        if what is not None:
            where = caller_in_code(2)
            if where is not None:
                note("%s at %s" % (what, where))
        elif event.startswith("ctypes."):
            where = caller_in_code(2)
            if where is not None:
                note("used ctypes (%s) at %s" % (event, where))
        elif event == "import" and args and args[0] in ("ctypes", "gc"):
            where = caller_in_code(2)
            if where is not None:
                note("imported %s at %s" % (args[0], where))
        elif event == "object.__setattr__" and args:
            target, name = args[0], args[1] if len(args) > 1 else "?"
            if name in ("__code__", "__class__", "__defaults__", "__kwdefaults__"):
                where = caller_in_code(2)
                if where is not None:
                    note("assigned %s of %s at %s" % (name, getattr(target, "__qualname__",
                                                                   type(target).__name__),
                                                      where))
        elif event == "open" and args:
            path = args[0]
            if isinstance(path, (str, bytes)):
                p = os.fsdecode(path)
                base = os.path.basename(p)
                if p.startswith("/proc/") and not p.startswith("/proc/self/fd"):
                    where = caller_in_code(2)
                    if where is not None:
                        note("opened %s at %s" % (p[:80], where))
                elif base.startswith("test_") and base.endswith(".py"):
                    where = caller_in_code(2)
                    if where is not None:
                        note("looked for a test file (%s) at %s" % (p[:80], where))
    except BaseException:
        pass
    finally:
        busy[0] = False


watched = dict(_PRISTINE)


def watch_all():
    """Snapshots of the test machinery this process has loaded since (`_PRISTINE`: what
    it was forked with)."""
    _watch(watched, _DICT_TAG)


def check_tampering():
    for key, (obj, snap, addr, tag) in list(watched.items()):
        if key != "sys" and not isinstance(obj, type) and _sys.modules.get(key, obj) is not obj:
            note("replaced sys.modules[%r]" % key)
        if addr is not None and _DICT_TAG(addr) == tag:
            continue  # not changed since the snapshot
        try:
            now = vars(obj)
        except BaseException:
            note("made %s unreadable" % key)
            continue
        for k, v in snap.items():
            if key == "sys" and k in ("stdout", "stderr", "stdin", "path", "modules",
                                      "last_type", "last_value", "last_traceback"):
                continue
            cur = now.get(k, snap)
            if cur is snap:
                note("deleted %s.%s" % (key, k))
            elif cur is not v:
                note("replaced %s.%s" % (key, k))
        if isinstance(obj, type):
            for k in now:
                if k not in snap:
                    note("added %s.%s" % (key, k))
    for k, v in hooks0.items():
        if getattr(_sys, k, None) is not v:
            note("replaced sys.%s" % k)
    if _sys.gettrace() is not None:
        note("left a trace function installed (sys.settrace)")
    if _sys.getprofile() is not None:
        note("left a profile function installed (sys.setprofile)")


# ---- the peer -----------------------------------------------------------------------------
deadline = [None]
container_tags = {
    list: T_LIST, dict: T_DICT, set: T_SET, bytearray: T_BYTEARRAY,
    collections.deque: T_DEQUE, collections.OrderedDict: T_ODICT,
    collections.Counter: T_COUNTER, collections.defaultdict: T_DEFAULTDICT,
}
trusted_meta = {type, abc.ABCMeta, enum.EnumType}
path_cache = {}


def module_trusted(name):
    """A module the runner can import itself (standard library or installed packages), not
    one from the code's or the scratch directory."""
    if name in path_cache:
        return path_cache[name]
    m = _sys.modules.get(name)
    ok = False
    if m is not None and type(m) is types.ModuleType:
        f = getattr(m, "__file__", None)
        if f is None:
            ok = name.split(".")[0] in stdlib and getattr(m, "__path__", None) is None
        else:
            try:
                real = os.path.realpath(f)
            except (TypeError, ValueError):
                real = ""
            ok = bool(real) and not real.startswith(untrusted_dirs) and \
                name not in spec.get("code_modules", ())
    path_cache[name] = ok
    return ok


def class_path(cls):
    """(module, qualname) when the runner can import the class itself."""
    try:
        mod = cls.__dict__.get("__module__") if type(cls.__dict__) is types.MappingProxyType \
            else None
        mod = mod if type(mod) is str else type.__dict__["__module__"].__get__(cls)
        qual = type.__dict__["__qualname__"].__get__(cls)
    except BaseException:
        return None
    if type(cls) not in trusted_meta or type(mod) is not str or not module_trusted(mod):
        return None
    obj = _sys.modules[mod]
    for part in qual.split("."):
        obj = getattr(obj, part, None)
    return (mod, qual) if obj is cls else None


class Peer(Codec):
    def __init__(self):
        super().__init__()
        self.type_path = class_path
        self.copies = []  # per request being served: cid -> container
        self.fixups = []
        self.next_rid = 1
        self.proxy_classes = {}
        self.pending_copies = Lent()
        self.budget = [200_000]

    # -- encoding (host -> runner) --
    def enc_other(self, x, out, depth):
        t = type(x)
        if t is _Raw:
            out += x.data
            return
        if t is _Raised:
            self.enc_raised(x.exc, out, depth)
            return
        if t is _Snap:  # a container's handle with its state
            o = x.obj
            ot = type(o)
            out.append(T_SNAP)
            self.enc_handle(o, out, depth)
            self.enc_state(o, ot, container_tags[ot], out, depth + 1, [1 << 40])
            return
        hid = handles.proxy_ids.get(id(x))
        if hid is not None and isinstance(x, RunnerObject):
            out.append(T_YOURS)
            _varint(hid, out)
            return
        tag = container_tags.get(t)
        if tag is not None:
            cid = self.copies[-1].cid_of(x) if self.copies else None
            if cid is not None:
                out.append(T_COPYREF)
                _varint(cid, out)
                return
            self.enc_container_handle(x, t, tag, out, depth)
            return
        if t is type or isinstance(x, type):
            path = class_path(x)
            if path is not None:
                self.enc_path("c", path[0], path[1], out, depth)
                return
            self.enc_class(x, out, depth)
            return
        if t is types.ModuleType:
            name = getattr(x, "__name__", None)
            if type(name) is str and module_trusted(name) and _sys.modules.get(name) is x:
                self.enc_path("m", name, "", out, depth)
                return
        if self.enc_value(x, out, depth):
            return
        self.enc_handle(x, out, depth)

    def enc_handle(self, x, out, depth):
        hid, new = handles.export(x)
        if new:
            out.append(T_NEW)
            _varint(hid, out)
            self.enc(type(x), out, depth + 1)
        else:
            out.append(T_AGAIN)
            _varint(hid, out)

    def enc_class(self, cls, out, depth):
        hid, new = handles.export(cls)
        if not new:
            out.append(T_AGAIN)
            _varint(hid, out)
            return
        out.append(T_CLASS)
        _varint(hid, out)
        g = type.__dict__
        try:
            bases = tuple(g["__bases__"].__get__(cls))
        except BaseException:
            bases = (object,)
        proto, methods, flags = [], [], 0
        for name in PROTOCOL:
            try:
                if getattr(cls, name, None) is not None:
                    proto.append(name)
            except BaseException:
                pass
        try:
            mro = g["__mro__"].__get__(cls)
        except BaseException:
            mro = (cls,)
        for k in mro:
            if class_path(k) is not None:
                continue
            try:
                d = g["__dict__"].__get__(k)
            except BaseException:
                continue
            for name, v in list(d.items()):
                if type(name) is str and not name.startswith("__") and isinstance(
                        v, (types.FunctionType, staticmethod, classmethod)) \
                        and name not in methods:
                    methods.append(name)
            if "__getattribute__" in d:
                flags |= 1
        try:
            if issubclass(cls, BaseException):
                flags |= 2
        except BaseException:
            pass
        try:
            name, qual = g["__name__"].__get__(cls), g["__qualname__"].__get__(cls)
            mod = g["__module__"].__get__(cls)
            doc = g["__doc__"].__get__(cls)
        except BaseException:
            name, qual, mod, doc = "?", "?", "?", None
        self.enc((str(name), str(qual), str(mod) if mod is not None else "?",
                  bases, type(cls), tuple(proto), tuple(methods[:500]), flags,
                  doc[:2000] if type(doc) is str else None), out, depth + 1)

    def enc_tentative(self, x, out, depth):
        """Encode `x` onto `out` and say True, or leave `out` as it was and say False:
        what the failed attempt exported is forgotten (its bytes never reach the runner,
        so a later mention must introduce it, not name it again)."""
        mark = handles.next_hid
        tmp = bytearray()
        try:
            self.enc(x, tmp, depth)
        except BaseException:
            handles.forget_since(mark)
            return False
        out += tmp
        return True

    def enc_container_handle(self, x, t, tag, out, depth):
        budget = self.budget
        state = None
        if budget[0] > 0:
            mark = handles.next_hid
            try:
                state = bytearray()
                self.enc_state(x, t, tag, state, depth + 1, budget)
            except _TooBig:
                # The snapshot is dropped: so are the objects it introduced.
                handles.forget_since(mark)
                state = None
        if state is not None:
            out.append(T_SNAP)
        self.enc_handle(x, out, depth)
        if state is not None:
            out += state

    def enc_state(self, x, t, tag, out, depth, budget):
        n = len(x)
        budget[0] -= n + 1
        if budget[0] < 0 or depth > 40:
            raise _TooBig()
        out.append(tag)
        out.append(0)  # no cid: a snapshot, not a copy
        if tag in (T_DICT, T_ODICT, T_COUNTER, T_DEFAULTDICT):
            if tag == T_DEFAULTDICT:
                self.enc(x.default_factory, out, depth)
            items = list(x.items())
            for k, _ in items:
                if budget[0] < (1 << 39) and not self.key_ok(k):
                    raise _TooBig()  # inline snapshots: keys the runner hashes alone
            _varint(len(items), out)
            for k, v in items:
                self.enc(k, out, depth)
                self.enc(v, out, depth)
        elif tag == T_SET:
            items = list(x)
            for k in items:
                if budget[0] < (1 << 39) and not self.key_ok(k):
                    raise _TooBig()
            _varint(len(items), out)
            for e in items:
                self.enc(e, out, depth)
        elif tag == T_BYTEARRAY:
            _varint(len(x), out)
            out += x
        else:
            if tag == T_DEQUE:
                self.enc(x.maxlen, out, depth)
            items = list(x)
            _varint(len(items), out)
            for e in items:
                self.enc(e, out, depth)

    def key_ok(self, k):
        if self.plain(k):
            return True
        t = type(k)
        path = class_path(t)
        return path is not None and value_of(k, class_path) is not None

    def enc_copy_state(self, x, out):
        """What a container the runner lent now holds (its copy-back)."""
        t = type(x)
        tag = container_tags[t]
        self.enc_state(x, t, tag, out, 1, [1 << 40])

    # -- decoding (runner -> host) --
    def d_yours(self, depth):
        return handles.exported_object(self.uvarint())

    def d_path(self, depth):
        kind = chr(self._buf[self._p])
        self._p += 1
        mod, qual = self.dec_str(depth), self.dec_str(depth)
        import importlib
        obj = importlib.import_module(mod)
        if kind == "m":
            return obj
        for part in qual.split("."):
            obj = getattr(obj, part)
        return obj

    def d_value(self, depth):
        mod, qual = self.dec_str(depth), self.dec_str(depth)
        state = self.dec(depth + 1)
        import importlib
        cls = importlib.import_module(mod)
        for part in qual.split("."):
            cls = getattr(cls, part)

        def fail(text):
            raise WireError(text)
        return value_from(cls, mod + "." + qual, state, fail)

    def d_new(self, depth):
        hid = self.uvarint()
        info = self.dec_tuple(depth)  # (class, protocol names, callable)
        return self.runner_proxy(hid, info, None)

    def d_again(self, depth):
        hid = self.uvarint()
        proxy, entry = handles.held(hid)
        if entry is None:
            raise WireError("unknown runner object %d" % hid)
        if proxy is None:
            proxy = self.runner_proxy(hid, entry[2], entry)
        return proxy

    def runner_proxy(self, hid, info, entry):
        cls_value, proto = info[0], info[1]
        key = tuple(proto)
        pcls = self.proxy_classes.get(key)
        if pcls is None:
            pcls = make_runner_proxy_class(key)
            self.proxy_classes[key] = pcls
        p = object.__new__(pcls)
        claimed[id(p)] = cls_value
        handles.hold(hid, p, info, entry)
        return p

    def d_container(self, tag, depth):
        cid = self.uvarint()
        cur = self.copies[-1] if self.copies else {}
        if tag == T_BYTEARRAY:
            x = bytearray(self.raw(self.uvarint()))
            if cid:
                cur[cid] = x
            return x
        if tag == T_DEFAULTDICT:
            factory = self.dec(depth + 1)
            x = collections.defaultdict(factory)
        elif tag == T_DEQUE:
            maxlen = self.dec(depth + 1)
            x = collections.deque(maxlen=maxlen)
        else:
            x = {T_LIST: list, T_DICT: dict, T_SET: set, T_ODICT: collections.OrderedDict,
                 T_COUNTER: collections.Counter}[tag]()
        if cid:
            cur[cid] = x
        n = self.count()
        if tag in (T_DICT, T_ODICT, T_COUNTER, T_DEFAULTDICT):
            pairs = [(self.dec(depth + 1), self.dec(depth + 1)) for _ in range(n)]
            self.fixups.append(lambda: [x.__setitem__(k, v) for k, v in pairs])
        elif tag == T_SET:
            items = [self.dec(depth + 1) for _ in range(n)]
            self.fixups.append(lambda: x.update(items))
        else:
            x.extend([self.dec(depth + 1) for _ in range(n)])
        return x

    def d_list(self, depth):
        return self.d_container(T_LIST, depth)

    def d_dict(self, depth):
        return self.d_container(T_DICT, depth)

    def d_set(self, depth):
        return self.d_container(T_SET, depth)

    def d_bytearray(self, depth):
        return self.d_container(T_BYTEARRAY, depth)

    def d_deque(self, depth):
        return self.d_container(T_DEQUE, depth)

    def d_odict(self, depth):
        return self.d_container(T_ODICT, depth)

    def d_counter(self, depth):
        return self.d_container(T_COUNTER, depth)

    def d_defaultdict(self, depth):
        return self.d_container(T_DEFAULTDICT, depth)

    def d_copyref(self, depth):
        cid = self.uvarint()
        cur = self.copies[-1] if self.copies else {}
        if cid not in cur:
            raise WireError("unknown container %d" % cid)
        return cur[cid]

    def d_exc(self, depth):
        cls = self.dec(depth + 1)
        args = self.dec_tuple(depth)
        self.dec(depth + 1)  # attributes: the runner sends none
        self.dec(depth + 1)  # display
        if not (isinstance(cls, type) and issubclass(cls, BaseException)):
            cls = Exception
        try:
            return cls(*args)
        except BaseException:
            e = Exception.__new__(Exception)
            e.args = args
            return e

    def decode(self, payload):
        # The copies a request carries are decoded before `serve` runs: into a fresh map.
        self.copies.append(Lent())
        self.fixups = []
        try:
            msg = self.loads(payload)
            for f in self.fixups:
                f()
        finally:
            self.fixups = []
            self.pending_copies = self.copies.pop()
        return msg

    # -- messages --
    def send(self, msg):
        self.send_payload(self.dumps(msg))

    def recv(self):
        while not frames.pending():
            try:
                more = frames.fill()
            except OSError:
                more = False
            if not more:
                os._exit(0)  # the runner is gone: nothing left to do
        return self.decode(frames.take())

    def request(self, op, *operands):
        """Ask the runner (a callback into a test's object); serve its requests meanwhile."""
        rid = self.next_rid
        self.next_rid += 1
        was = in_code[0]
        in_code[0] = False  # the runner keeps time while it runs the callback
        try:
            self.send(("q", rid, op, None, None) + operands)
            while True:
                msg = self.recv()
                kind = msg[0]
                if kind == "q":
                    self.serve(msg)
                elif kind == "R":
                    handles.release(msg[1])
                elif kind == "a" and msg[1] == rid:
                    return msg[2]
                elif kind == "x" and msg[1] == rid:
                    if msg[3] == "abort":
                        raise RunnerAbort("the test failed in the runner")
                    raise msg[2]
                else:
                    raise WireError("unexpected message %r" % (kind,))
        finally:
            in_code[0] = was

    def serve(self, msg):
        rid, op, left, depth = msg[1], msg[2], msg[3], msg[4]
        operands = msg[5:]
        outer = deadline[0]
        # Importing the modules of values to come is off the clock of the call it may
        # interrupt (a callback's answer): that call's deadline moves by its time.
        aside = op == "imports"
        t0 = monotonic()
        if type(left) in (int, float):
            mine = t0 + left
            deadline[0] = mine if outer is None or aside else min(outer, mine)
            arm()
        self.copies.append(self.pending_copies)
        self.pending_copies = Lent()
        self.budget = [200_000]
        was = in_code[0]
        try:
            handler = ops.get(op)
            if handler is None:
                raise ValueError("unknown request %r" % (op,))
            in_code[0] = True  # the alarm may interrupt the code, never the protocol
            limit = headroom(depth)
            try:
                value = handler(*operands)
            finally:
                in_code[0] = was
                if limit:
                    _sys.setrecursionlimit(base_limit)
            backs = []
            self.budget = [200_000]
            for cid, c in self.copies[-1].items():
                state = bytearray(b"B")
                _varint(cid, state)
                self.enc_copy_state(c, state)
                backs.append(_Raw(state))
            answer = ("a", rid, value, tuple(backs))
            payload = self.encode_message(answer)
        except HostTimeout as e:
            payload = self.error_message(rid, e, "timeout")
        except RunnerAbort as e:
            payload = self.error_message(rid, e, "abort")
        except BaseException as e:
            payload = self.error_message(rid, e, "raise")
        finally:
            self.copies.pop()
            deadline[0] = outer + (monotonic() - t0) if aside and outer is not None else outer
            arm()
        self.send_payload(payload)

    def encode_message(self, msg):
        try:
            return bytes(self.dumps(msg))
        except WireError as e:
            raise TypeError("the answer cannot cross to the tests: %s" % e) from None

    def error_message(self, rid, e, kind):
        try:
            return bytes(self.dumps(("x", rid, _Raised(e), kind)))
        except BaseException:
            return bytes(self.dumps(("x", rid, _Raised(TypeError(
                "%s (its details cannot cross to the tests)" % type(e).__name__)), kind)))

    def send_payload(self, payload):
        rel = handles.take_released()
        if rel is None:
            frames.send(payload)
        else:
            frames.send(self.dumps(("R", rel)), payload)

    def enc_raised(self, e, out, depth):
        # Each part is encoded once, tentatively: a trial encoding thrown away would
        # leave the objects it introduced unknown to the runner (an exception whose args
        # hold a list, `decimal.InvalidOperation([ConversionSyntax])`, was HostMisbehaved).
        out.append(T_EXC)
        t = type(e)
        self.enc(t, out, depth + 1)
        try:
            args = tuple(e.args)
        except BaseException:
            args = ()
        if not self.enc_tentative(args, out, depth + 1):
            self.enc(tuple(safe_str(a) for a in args), out, depth + 1)
        attrs = []
        try:
            for k, v in list(vars(e).items())[:20]:
                if type(k) is str and not k.startswith("__"):
                    pair = bytearray()
                    if self.enc_tentative((k, v), pair, depth + 2):
                        attrs.append(pair)
        except BaseException:
            pass
        out.append(T_TUPLE)
        _varint(len(attrs), out)
        for pair in attrs:
            out += pair
        self.enc(describe(e), out, depth + 1)


class _TooBig(Exception):
    pass


class _Raw:
    """Bytes already encoded (a copy-back state)."""
    __slots__ = ("data",)

    def __init__(self, data):
        self.data = data


class _Raised:
    """An exception to send as raised (type, args, attributes, display)."""
    __slots__ = ("exc",)

    def __init__(self, exc):
        self.exc = exc


def safe_str(x):
    try:
        return str(x)
    except BaseException:
        return "<unprintable %s>" % type(x).__name__


def describe(e):
    """(innermost type name, message, line in the code, traceback) for display."""
    inner = e
    seen = set()
    while inner.__cause__ is not None and id(inner) not in seen:
        seen.add(id(inner))
        inner = inner.__cause__
    try:
        msg = str(inner)
    except BaseException:
        msg = "<unprintable %s>" % type(inner).__name__
    line = None
    tb = inner.__traceback__
    while tb is not None:
        cl = code_line(tb.tb_frame.f_code.co_filename, tb.tb_lineno)
        if cl is not None:
            line = cl
        tb = tb.tb_next
    if line is None and isinstance(inner, SyntaxError) and inner.filename:
        line = code_line(inner.filename, inner.lineno or 0)
    try:
        te = traceback.TracebackException.from_exception(e, limit=32)
        cur = te
        while cur is not None:
            cur.stack = traceback.StackSummary.from_list(
                [fs for fs in cur.stack if fs.filename != host_file])
            cur = cur.__cause__ or (None if cur.__suppress_context__ else cur.__context__)
        text = "".join(te.format())
    except BaseException:
        text = ""
    if len(text) > 8000:
        text = text[:4000] + "\n...\n" + text[-4000:]
    name = type(inner).__name__
    if isinstance(e, HostTimeout):
        name = "Timeout"
    return (str(name), msg[:4000], line, text)


# ---- the runner's objects, as the code sees them ------------------------------------------
claimed = {}  # id(proxy) -> the class the runner says the object has


class RunnerObject:
    """An object of the tests (a mock, a callback): calls and public attributes only."""
    __slots__ = ("__weakref__",)

    def __getattr__(self, name):
        return peer.request("getattr", self, name)

    def __setattr__(self, name, value):
        peer.request("setattr", self, name, value)

    def __delattr__(self, name):
        raise AttributeError("the code under test cannot delete attributes of the tests' "
                             "objects (%s)" % name)

    @property
    def __class__(self):
        c = claimed.get(id(self))
        return c if isinstance(c, type) else RunnerObject


def forward(name):
    if name == "__call__":
        def fn(self, *args, **kwargs):
            return peer.request("call", self, args, tuple(kwargs.items()))
    elif name == "__hash__":
        def fn(self):
            return peer.request("op", self, name, ())
    else:
        def fn(self, *args):
            return peer.request("op", self, name, args)
    fn.__name__ = name
    return fn


def make_runner_proxy_class(proto):
    ns = {"__slots__": ()}
    for name in proto:
        if name in PROTOCOL_SET:
            ns[name] = forward(name)
    if "__hash__" not in ns:
        ns["__hash__"] = None
    if "__eq__" not in ns:
        ns["__eq__"] = lambda self, other: self is other
        ns["__hash__"] = lambda self: id(self) >> 4
    return type("RunnerObject", (RunnerObject,), ns)


# ---- what the runner may ask ----------------------------------------------------------------
alarm_on = [False]

in_code = [False]  # the code under test is running (not the protocol)
base_limit = _sys.getrecursionlimit()


def headroom(depth):
    """Give the code the recursion headroom it would have in one process, called from a
    test frame at `depth` (code that recurses until RecursionError and catches it behaves
    by where that happens)."""
    if type(depth) is not int or depth <= 0:
        return False
    f, here = getframe(1), 0
    while f is not None:
        here += 1
        f = f.f_back
    # serve -> handler -> the code: the code's first frame is here + 2 deep; in one
    # process it is depth + 1.
    _sys.setrecursionlimit(max(base_limit - depth - 1 + here + 2, here + 64))
    return True


def on_alarm(signum, frame):
    signal.setitimer(signal.ITIMER_REAL, 0.2)  # keep firing until the code lets it through
    if in_code[0]:
        raise HostTimeout("the test's time ran out")


SIGALRM, ITIMER_REAL = int(signal.SIGALRM), int(signal.ITIMER_REAL)


def arm():
    d = deadline[0]
    try:
        if d is None:
            if alarm_on[0]:
                _signal.setitimer(ITIMER_REAL, 0)
                alarm_on[0] = False
            return
        # The code may have replaced it. (_signal's: signal.getsignal makes an enum of the
        # handler, raising and catching a ValueError, on every request.)
        if _signal.getsignal(SIGALRM) is not on_alarm:
            _signal.signal(SIGALRM, on_alarm)
        _signal.setitimer(ITIMER_REAL, max(d - monotonic(), 0.001))
        alarm_on[0] = True
    except (ValueError, OSError):
        pass


def kwargs_of(pairs):
    return {k: v for k, v in pairs}


def import_modules(modules):
    out = []
    for name in modules:
        out.append(__import__(name, fromlist=["*"]) and _sys.modules[name])
    watch_all()
    return tuple(out)


# The code is imported as soon as the host starts, while the runner is still starting
# (the runner's first request then only collects the result). The time limit is the one
# the runner gives the import.
early = []


def import_early():
    modules = tuple(spec.get("code_modules") or ())
    if not modules:
        return
    limit = spec.get("import_timeout")
    deadline[0] = monotonic() + limit if type(limit) in (int, float) else None
    arm()
    in_code[0] = True
    try:
        early.append((modules, import_modules(modules), None))
    except BaseException as e:
        early.append((modules, None, e))
    finally:
        in_code[0] = False
        deadline[0] = None
        arm()


def op_import(modules, globals_module=None):
    if early and early[0][0] == modules:
        _, out, error = early.pop()
        if error is not None:
            raise error
    else:
        del early[:]
        out = import_modules(modules)
    if globals_module is None:
        return out, None
    return out, tuple(k for k in list(vars(_sys.modules[globals_module]))
                      if type(k) is str and not (k.startswith("__") and k.endswith("__")))


def op_globals(module, names):
    """The module's top-level names in `names`, with their values."""
    wanted = frozenset(names)
    return tuple((k, v) for k, v in list(vars(module).items())
                 if type(k) is str and k in wanted)


def op_getattr(obj, name):
    return getattr(obj, name)


def op_setattr(obj, name, value):
    setattr(obj, name, value)


def op_delattr(obj, name):
    delattr(obj, name)


def op_call(obj, args, kwargs):
    return obj(*args, **kwargs_of(kwargs))


def op_callm(obj, name, args, kwargs):
    return getattr(obj, name)(*args, **kwargs_of(kwargs))


unary = {
    "__len__": len, "__iter__": iter, "__next__": next, "__reversed__": reversed,
    "__bool__": bool, "__str__": str, "__repr__": repr, "__bytes__": bytes,
    "__hash__": hash, "__int__": int, "__float__": float, "__complex__": complex,
    "__index__": operator.index, "__abs__": abs, "__neg__": operator.neg,
    "__pos__": operator.pos, "__invert__": operator.invert,
    "__fspath__": os.fspath, "__length_hint__": operator.length_hint,
    "__trunc__": lambda x: type(x).__trunc__(x),
    "__floor__": lambda x: type(x).__floor__(x), "__ceil__": lambda x: type(x).__ceil__(x),
    "__enter__": lambda x: type(x).__enter__(x),
}
binary = {
    "__eq__": operator.eq, "__ne__": operator.ne, "__lt__": operator.lt,
    "__le__": operator.le, "__gt__": operator.gt, "__ge__": operator.ge,
    "__contains__": lambda x, k: k in x, "__getitem__": operator.getitem,
    "__delitem__": operator.delitem, "__format__": format,
    "__round__": round,
}
for name in ("add", "sub", "mul", "matmul", "truediv", "floordiv", "mod", "pow", "lshift",
             "rshift", "and", "xor", "or"):
    f = getattr(operator, name + "_" if name in ("and", "or") else name)
    binary["__%s__" % name] = f
    binary["__r%s__" % name] = (lambda f: lambda x, y: f(y, x))(f)
    binary["__i%s__" % name] = getattr(operator, "i" + name)
binary["__divmod__"] = divmod
binary["__rdivmod__"] = lambda x, y: divmod(y, x)


def op_op(obj, name, args):
    if name in unary and not args:
        return unary[name](obj)
    if name in binary and len(args) == 1:
        return binary[name](obj, args[0])
    if name == "__round__" and not args:
        return round(obj)
    if name == "__setitem__" and len(args) == 2:
        obj[args[0]] = args[1]
        return None
    if name == "__exit__" and len(args) == 3:
        return type(obj).__exit__(obj, *args)
    if name == "__copy__":
        import copy
        return copy.copy(obj)
    if name == "__deepcopy__":
        import copy
        return copy.deepcopy(obj)
    raise TypeError("unsupported operation %s" % name)


def op_snap(obj):
    t = type(obj)
    tag = container_tags.get(t)
    if tag is None:
        raise TypeError("no snapshot of %s" % t.__name__)
    return _Snap(obj)


class _Snap:
    __slots__ = ("obj",)

    def __init__(self, obj):
        self.obj = obj


def op_eqn(obj, values, negate):
    """obj == v (or !=) for each value, in the order given, with the truth of each result
    taken at once (the runner judges by it; the exception when it has none)."""
    out = []
    for v in values:
        try:
            r = (obj != v) if negate else (obj == v)
            try:
                out.append(("ok", r, bool(r)))
            except HostTimeout:
                raise
            except BaseException as e:
                out.append(("ok", r, None, _Raised(e)))
        except HostTimeout:
            raise
        except BaseException as e:
            out.append(("err", _Raised(e)))
    return tuple(out)


patches = {}
next_patch = [1]


def op_patch(modname, attr, value):
    import importlib
    m = importlib.import_module(modname)
    missing = attr not in vars(m)
    old = vars(m).get(attr)
    setattr(m, attr, value)
    token = next_patch[0]
    next_patch[0] += 1
    patches[token] = (m, attr, missing, old)
    return token


def op_unpatch(token):
    entry = patches.pop(token, None)
    if entry is None:
        return None
    m, attr, missing, old = entry
    if missing:
        try:
            delattr(m, attr)
        except AttributeError:
            pass
    else:
        setattr(m, attr, old)
    return None


def op_environ(pairs):
    os.environ.clear()
    os.environ.update({k: v for k, v in pairs})


def op_imports(modules):
    """Modules of values the runner is about to send, imported before the message that
    carries them (the runner stops the test's clock meanwhile). A module that fails to
    import fails again, and is reported, where the value is rebuilt."""
    import importlib
    for name in modules:
        if type(name) is str:
            try:
                importlib.import_module(name)
            except Exception:
                pass


def op_evidence():
    check_tampering()
    return tuple(notes)


ops = {
    "import": op_import, "globals": op_globals, "getattr": op_getattr,
    "setattr": op_setattr, "delattr": op_delattr, "call": op_call, "callm": op_callm,
    "op": op_op, "snap": op_snap, "eqn": op_eqn, "patch": op_patch,
    "unpatch": op_unpatch, "environ": op_environ, "evidence": op_evidence,
    "imports": op_imports,
}


def _host_main():
    global spec, regions, untrusted_dirs, frames, handles, peer, hooks0
    spec = json.loads(_sys.argv[1])
    code_dir = os.path.realpath(spec["code_dir"])
    scratch = os.path.realpath(spec.get("scratch") or os.getcwd())
    regions = [(os.path.join(code_dir, r["file"]), r.get("first", 1), r.get("last"))
               for r in spec.get("code", [])]
    untrusted_dirs = tuple(d + os.sep for d in (code_dir, scratch))
    for p in reversed(spec.get("sys_path") or [code_dir, scratch]):
        if p not in _sys.path:
            _sys.path.insert(0, p)
    try:
        os.chdir(scratch)
    except OSError:
        pass
    os.umask(0)  # the runner (another uid) reads and removes what the code writes
    _sys.addaudithook(audit)
    hooks0 = {k: getattr(_sys, k, None) for k in ("excepthook", "displayhook",
                                                  "unraisablehook", "breakpointhook")}
    frames = Frames(spec.get("host_fd", 3), 1 << 30)  # the runner is trusted: memory bounds it
    handles = Handles()
    peer = Peer()

    watch_all()
    import_early()
    # Serve until the runner closes the socket.
    while True:
        msg = peer.recv()
        kind = msg[0]
        if kind == "q":
            peer.serve(msg)
        elif kind == "R":
            handles.release(msg[1])


def _host_entry():
    try:
        _host_main()
    except BaseException as e:
        try:
            import traceback
            _sys.stderr.write("classlab host error: " + "".join(traceback.format_exception(e)))
            _sys.stderr.flush()
        except BaseException:
            pass
        import os
        os._exit(118)
    import os
    os._exit(0)


if __name__ == "__main__":
    _host_entry()
