# classlab split harness: the wire both processes speak (prepended to runner.py and host.py).
#
# The runner (trusted: the benchmark's tests, the verdicts) and the host (the code under test)
# talk over one AF_UNIX stream socket. A frame is a 4-byte little-endian length and one message
# in the encoding below; a message is a tuple whose first item says what it is:
#   ("q", rid, op, seconds_left, depth, *operands)
#                                            a request; answered before anything else of the
#                                            sender's (both sides serve the peer's requests
#                                            while they wait: a callback may call back); depth:
#                                            the caller's stack depth (recursion headroom)
#   ("a", rid, value, backs)                 the answer; `backs` copies back the containers the
#                                            request carried ((cid, state), ...)
#   ("x", rid, error)                        the request raised
#   ("R", ((hid, n), ...))                   the sender dropped n references to each handle
# Values cross by value when they are immutable plain data (scalars, tuples, frozensets, value
# types rebuilt from an import path and a canonical state); containers the sender owns cross by
# copy (runner -> host, copied back after the call) or as a handle with a snapshot (host ->
# runner); everything else crosses as a handle: one per object and direction, so `is` holds,
# counted so that either side may drop what the other no longer holds. No pickle, no eval:
# decoding builds only the types named here, and each side decides what a path may name.

import os as _wire_os
import struct as _wire_struct
import weakref as _wire_weakref

_WIRE_VERSION = 1

# Tags (one byte each).
(T_NONE, T_TRUE, T_FALSE, T_ELLIPSIS, T_NOTIMPL, T_INT, T_BIGINT, T_FLOAT, T_COMPLEX, T_STR,
 T_BYTES, T_TUPLE, T_FROZENSET, T_LIST, T_DICT, T_SET, T_BYTEARRAY, T_DEQUE, T_ODICT, T_COUNTER,
 T_DEFAULTDICT, T_COPYREF, T_NEW, T_AGAIN, T_SNAP, T_YOURS, T_PATH, T_VALUE, T_CLASS,
 T_EXC) = b"NTF.!iIfjsbtzLDSYQOKUcnawrPVCX"

_PACK_Q = _wire_struct.Struct("<q").pack
_UNPACK_Q = _wire_struct.Struct("<q").unpack_from
_PACK_D = _wire_struct.Struct("<d").pack
_UNPACK_D = _wire_struct.Struct("<d").unpack_from
_PACK_DD = _wire_struct.Struct("<dd").pack
_UNPACK_DD = _wire_struct.Struct("<dd").unpack_from
_LEN = _wire_struct.Struct("<I")

# The dunder protocol a handle forwards (when the object's type has the method). Everything a
# test does to an object goes through one of these or an attribute.
PROTOCOL = (
    "__call__", "__len__", "__iter__", "__next__", "__reversed__", "__contains__",
    "__getitem__", "__setitem__", "__delitem__", "__bool__", "__str__", "__repr__",
    "__format__", "__bytes__", "__hash__", "__eq__", "__ne__", "__lt__", "__le__", "__gt__",
    "__ge__", "__int__", "__float__", "__complex__", "__index__", "__round__", "__trunc__",
    "__floor__", "__ceil__", "__abs__", "__neg__", "__pos__", "__invert__", "__enter__",
    "__exit__", "__fspath__", "__length_hint__", "__copy__", "__deepcopy__",
    "__add__", "__radd__", "__iadd__", "__sub__", "__rsub__", "__isub__", "__mul__",
    "__rmul__", "__imul__", "__matmul__", "__rmatmul__", "__imatmul__", "__truediv__",
    "__rtruediv__", "__itruediv__", "__floordiv__", "__rfloordiv__", "__ifloordiv__",
    "__mod__", "__rmod__", "__imod__", "__divmod__", "__rdivmod__", "__pow__", "__rpow__",
    "__ipow__", "__lshift__", "__rlshift__", "__ilshift__", "__rshift__", "__rrshift__",
    "__irshift__", "__and__", "__rand__", "__iand__", "__xor__", "__rxor__", "__ixor__",
    "__or__", "__ror__", "__ior__",
)
PROTOCOL_SET = frozenset(PROTOCOL)


class WireError(Exception):
    """A message that is not well formed (or breaks a limit)."""


def _varint(n, out):
    while n >= 0x80:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)


class Codec:
    """Encoding and decoding of the values both sides share; what crosses by handle, copy or
    path is each side's business (`enc_other` and the tag handlers of a subclass)."""

    max_depth = 100
    max_items = 4_000_000

    def __init__(self):
        dec = [None] * 256
        for tag, fn in (
            (T_NONE, lambda d: None), (T_TRUE, lambda d: True), (T_FALSE, lambda d: False),
            (T_ELLIPSIS, lambda d: Ellipsis), (T_NOTIMPL, lambda d: NotImplemented),
            (T_INT, self._d_int), (T_BIGINT, self._d_bigint), (T_FLOAT, self._d_float),
            (T_COMPLEX, self._d_complex), (T_STR, self._d_str), (T_BYTES, self._d_bytes),
            (T_TUPLE, self._d_tuple), (T_FROZENSET, self._d_frozenset),
            (T_LIST, self.d_list), (T_DICT, self.d_dict), (T_SET, self.d_set),
            (T_BYTEARRAY, self.d_bytearray), (T_DEQUE, self.d_deque), (T_ODICT, self.d_odict),
            (T_COUNTER, self.d_counter), (T_DEFAULTDICT, self.d_defaultdict),
            (T_COPYREF, self.d_copyref), (T_NEW, self.d_new), (T_AGAIN, self.d_again),
            (T_SNAP, self.d_snap), (T_YOURS, self.d_yours), (T_PATH, self.d_path),
            (T_VALUE, self.d_value), (T_CLASS, self.d_class), (T_EXC, self.d_exc),
        ):
            dec[tag] = fn
        self._dec_table = dec
        self._buf = b""
        self._p = 0
        self._items = 0

    # ---- encoding --------------------------------------------------------------------------
    def dumps(self, obj):
        out = bytearray()
        self.enc(obj, out, 0)
        return out

    def enc(self, x, out, depth):
        t = type(x)
        if x is None:
            out.append(T_NONE)
        elif t is bool:
            out.append(T_TRUE if x else T_FALSE)
        elif t is int:
            if -0x8000000000000000 <= x <= 0x7FFFFFFFFFFFFFFF:
                out.append(T_INT)
                out += _PACK_Q(x)
            else:
                raw = x.to_bytes((x.bit_length() + 8) // 8, "little", signed=True)
                out.append(T_BIGINT)
                _varint(len(raw), out)
                out += raw
        elif t is str:
            raw = x.encode("utf-8", "surrogatepass")
            out.append(T_STR)
            _varint(len(raw), out)
            out += raw
        elif t is float:
            out.append(T_FLOAT)
            out += _PACK_D(x)
        elif t is tuple:
            if depth >= self.max_depth:
                raise WireError("nested deeper than %d" % self.max_depth)
            out.append(T_TUPLE)
            _varint(len(x), out)
            for e in x:
                self.enc(e, out, depth + 1)
        elif t is bytes:
            out.append(T_BYTES)
            _varint(len(x), out)
            out += x
        elif t is complex:
            out.append(T_COMPLEX)
            out += _PACK_DD(x.real, x.imag)
        elif x is Ellipsis:
            out.append(T_ELLIPSIS)
        elif x is NotImplemented:
            out.append(T_NOTIMPL)
        elif t is frozenset and self.plain(x, depth):
            out.append(T_FROZENSET)
            _varint(len(x), out)
            for e in x:
                self.enc(e, out, depth + 1)
        else:
            if depth >= self.max_depth:
                raise WireError("nested deeper than %d" % self.max_depth)
            self.enc_other(x, out, depth)

    _PLAIN = frozenset((type(None), bool, int, float, complex, str, bytes))

    def plain(self, x, depth=0):
        """Immutable plain data all the way down (what may sit in a frozenset or a dict key
        without asking anyone to hash it)."""
        t = type(x)
        if t in self._PLAIN:
            return True
        if (t is tuple or t is frozenset) and depth < self.max_depth:
            return all(self.plain(e, depth + 1) for e in x)
        return False

    def enc_str(self, s, out):
        self.enc(s if type(s) is str else str(s), out, 0)

    def enc_other(self, x, out, depth):
        raise WireError("cannot encode %s" % type(x).__name__)

    def type_path(self, t):
        """(module, qualname) of a class the peer can import itself, or None (each side's)."""
        return None

    def uses_module(self, module):
        """The peer will import `module` to rebuild what is being encoded."""

    def enc_path(self, kind, module, qualname, out, depth):
        self.uses_module(module)
        out.append(T_PATH)
        out.append(ord(kind))
        self.enc(module, out, depth)
        self.enc(qualname, out, depth)

    def enc_value(self, x, out, depth):
        """A value type's instance by (path, state); False when x is none."""
        v = value_of(x, self.type_path)
        if v is None:
            return False
        self.uses_module(v[0])
        out.append(T_VALUE)
        self.enc(v[0], out, depth)
        self.enc(v[1], out, depth)
        self.enc(v[2], out, depth + 1)
        return True

    # ---- decoding --------------------------------------------------------------------------
    def loads(self, data):
        self._buf = memoryview(data)
        self._p = 0
        self._items = 0
        try:
            v = self.dec(0)
        except (IndexError, ValueError, OverflowError, RecursionError, UnicodeError,
                _wire_struct.error) as e:
            raise WireError("malformed message (%s: %s)" % (type(e).__name__, e)) from None
        if self._p != len(self._buf):
            raise WireError("%d bytes after the message" % (len(self._buf) - self._p))
        return v

    def dec(self, depth):
        if depth > self.max_depth:
            raise WireError("nested deeper than %d" % self.max_depth)
        self._items += 1
        if self._items > self.max_items:
            raise WireError("more than %d items in one message" % self.max_items)
        tag = self._buf[self._p]
        self._p += 1
        fn = self._dec_table[tag]
        if fn is None:
            raise WireError("unknown tag %r" % chr(tag))
        return fn(depth)

    def uvarint(self):
        buf = self._buf
        n = shift = 0
        while True:
            b = buf[self._p]
            self._p += 1
            n |= (b & 0x7F) << shift
            if b < 0x80:
                return n
            shift += 7
            if shift > 63:
                raise WireError("length too long")

    def raw(self, n):
        p = self._p
        if p + n > len(self._buf):
            raise WireError("truncated message")
        self._p = p + n
        return self._buf[p:p + n]

    def count(self):
        n = self.uvarint()
        if n > len(self._buf) - self._p:  # every item takes at least one byte
            raise WireError("count %d beyond the message" % n)
        return n

    def _d_int(self, depth):
        v = _UNPACK_Q(self._buf, self._p)[0]
        self._p += 8
        return v

    def _d_bigint(self, depth):
        n = self.uvarint()
        if n > 1 << 20:
            raise WireError("integer of %d bytes" % n)
        return int.from_bytes(self.raw(n), "little", signed=True)

    def _d_float(self, depth):
        v = _UNPACK_D(self._buf, self._p)[0]
        self._p += 8
        return v

    def _d_complex(self, depth):
        re_, im = _UNPACK_DD(self._buf, self._p)
        self._p += 16
        return complex(re_, im)

    def _d_str(self, depth):
        return str(self.raw(self.uvarint()), "utf-8", "surrogatepass")

    def _d_bytes(self, depth):
        return bytes(self.raw(self.uvarint()))

    def _d_tuple(self, depth):
        n = self.count()
        dec = self.dec
        return tuple([dec(depth + 1) for _ in range(n)])

    def _d_frozenset(self, depth):
        n = self.count()
        items = [self.dec(depth + 1) for _ in range(n)]
        for e in items:
            if not self.plain(e):
                raise WireError("a frozenset of something other than plain data")
        return frozenset(items)

    def dec_str(self, depth=0):
        v = self.dec(depth + 1)
        if type(v) is not str:
            raise WireError("expected a string, got %s" % type(v).__name__)
        return v

    def dec_tuple(self, depth=0):
        v = self.dec(depth + 1)
        if type(v) is not tuple:
            raise WireError("expected a tuple, got %s" % type(v).__name__)
        return v

    def bad(self, depth):
        raise WireError("a tag this side does not accept")

    d_list = d_dict = d_set = d_bytearray = d_deque = d_odict = d_counter = d_defaultdict = bad
    d_copyref = d_new = d_again = d_snap = d_yours = d_path = d_value = d_class = d_exc = bad


class Lent(dict):
    """The containers one message lends: cid -> container, and a container's cid by its
    identity (a message that lends many finds each again at once)."""
    __slots__ = ("ids",)

    def __init__(self):
        dict.__init__(self)
        self.ids = {}

    def __setitem__(self, cid, c):
        dict.__setitem__(self, cid, c)
        self.ids[id(c)] = cid

    def cid_of(self, x):
        cid = self.ids.get(id(x))
        return cid if cid is not None and dict.get(self, cid) is x else None


class Frames:
    """Length-prefixed frames over one socket descriptor."""

    def __init__(self, fd, max_frame):
        self.fd = fd
        self.max_frame = max_frame
        self._in = bytearray()
        # One read buffer for the whole suite: reading into a fresh 1 MiB object per message
        # cost an mmap, page faults and an munmap (with its TLB shootdown) every time.
        self._buf = memoryview(bytearray(1 << 16))
        self._readv = _wire_os.readv
        self._write = _wire_os.write

    def send(self, *payloads):
        """One write for all the frames (the peer wakes once per message, not per frame)."""
        data = bytearray()
        for payload in payloads:
            data += _LEN.pack(len(payload))
            data += payload
        view = memoryview(data)
        write = self._write
        while view:
            try:
                k = write(self.fd, view)
            except InterruptedError:
                continue
            view = view[k:]

    def pending(self):
        """A whole frame is already buffered."""
        b = self._in
        return len(b) >= 4 and len(b) >= 4 + _LEN.unpack_from(b)[0]

    def take(self):
        """The buffered frame (call when `pending`)."""
        b = self._in
        n = _LEN.unpack_from(b)[0]
        payload = bytes(b[4:4 + n])
        del b[:4 + n]
        return payload

    def fill(self):
        """Read what the socket has (blocking until something): False at end of stream."""
        try:
            n = self._readv(self.fd, [self._buf])
        except InterruptedError:
            return True
        if not n:
            return False
        self._in += self._buf[:n]
        if len(self._in) >= 4 and _LEN.unpack_from(self._in)[0] > self.max_frame:
            raise WireError("frame of %d bytes (limit %d)" % (_LEN.unpack_from(self._in)[0],
                                                              self.max_frame))
        return True


class Handles:
    """The handle tables of one side: what it exported (kept alive while the peer holds it)
    and the peer's objects it holds (proxies, weakly, with how many references it received)."""

    def __init__(self):
        self.exported = {}  # hid -> [object, times sent]
        self.exported_ids = {}  # id(object) -> hid
        self.next_hid = 1
        self.imported = {}  # hid -> [weakref or None, times received, how to rebuild]
        self.proxy_ids = {}  # id(proxy) -> hid, while the proxy lives
        self.released = []  # (hid, n) to tell the peer

    def export(self, obj):
        """The object's hid, and whether the peer has not been told what it is."""
        hid = self.exported_ids.get(id(obj))
        if hid is not None:
            entry = self.exported[hid]
            if entry[0] is obj:
                entry[1] += 1
                return hid, False
        hid = self.next_hid
        self.next_hid += 1
        self.exported[hid] = [obj, 1]
        self.exported_ids[id(obj)] = hid
        return hid, True

    def forget_since(self, mark):
        """Forget the objects exported since `next_hid` was `mark`: their encoding was thrown
        away (a trial that failed), so the peer was never told of them, and a later mention
        must introduce them again."""
        for hid in range(mark, self.next_hid):
            entry = self.exported.pop(hid, None)
            if entry is not None and self.exported_ids.get(id(entry[0])) == hid:
                del self.exported_ids[id(entry[0])]

    def exported_object(self, hid):
        entry = self.exported.get(hid)
        if entry is None:
            raise WireError("no object %d was handed over (or it was released)" % hid)
        return entry[0]

    def release(self, pairs):
        for hid, n in pairs:
            entry = self.exported.get(hid)
            if entry is None or type(n) is not int:
                continue
            entry[1] -= n
            if entry[1] <= 0:
                del self.exported[hid]
                if self.exported_ids.get(id(entry[0])) == hid:
                    del self.exported_ids[id(entry[0])]

    def held(self, hid):
        """The live proxy for hid (None if it died), counting one more reference."""
        entry = self.imported.get(hid)
        if entry is None:
            return None, None
        entry[1] += 1
        ref = entry[0]
        return (ref() if ref is not None else None), entry

    def hold(self, hid, proxy, rebuild, entry=None, strong=False):
        """Register the proxy made for the peer's object hid (`rebuild` remakes it if it dies
        and the peer names hid again); `strong` proxies are never released (classes)."""
        pid = id(proxy)

        def gone(ref, hid=hid, pid=pid):
            e = self.imported.get(hid)
            if e is not None and e[0] is ref:
                self.released.append((hid, e[1]))
                e[0] = None
                e[1] = 0
            if self.proxy_ids.get(pid) == hid:
                del self.proxy_ids[pid]

        ref = None
        if not strong:
            try:
                ref = _wire_weakref.ref(proxy, gone)
            except TypeError:
                ref = None
        if ref is None:
            ref = (lambda p=proxy: p)  # kept for the whole run
        if entry is None:
            self.imported[hid] = [ref, 1, rebuild]
        else:
            entry[0] = ref
            entry[2] = rebuild
        self.proxy_ids[pid] = hid
        return proxy

    def take_released(self):
        if not self.released:
            return None
        out = tuple(self.released)
        del self.released[:]
        return out


# ---- value types: rebuilt by their own constructor from a canonical state of plain data ------
VALUE_KEYS = frozenset((
    "datetime.datetime", "datetime.date", "datetime.time", "datetime.timedelta",
    "datetime.timezone", "decimal.Decimal", "fractions.Fraction", "uuid.UUID",
    "pathlib.PurePosixPath", "pathlib.PosixPath", "pathlib.PurePath", "pathlib.Path",
    "builtins.range", "builtins.slice", "numpy.ndarray", "PIL.Image.Image",
))


def value_of(x, type_path):
    """(module, qualname, state) of a value-type instance, or None. `type_path(t)` is the
    (module, qualname) of a class the peer can import itself, or None."""
    import sys
    t = type(x)
    pil = sys.modules.get("PIL.Image")
    if pil is not None and isinstance(x, pil.Image):
        try:
            fmt, name = getattr(x, "format", None), getattr(x, "filename", None)
            return ("PIL.Image", "Image", (x.mode, tuple(x.size), x.tobytes(),
                                           fmt if type(fmt) is str else None,
                                           name if type(name) is str else None))
        except Exception:
            return None
    path = type_path(t)
    if path is None:
        return None
    key = path[0] + "." + path[1]
    if key == "datetime.datetime":
        st = (x.year, x.month, x.day, x.hour, x.minute, x.second, x.microsecond, x.tzinfo,
              x.fold)
    elif key == "datetime.date":
        st = (x.year, x.month, x.day)
    elif key == "datetime.time":
        st = (x.hour, x.minute, x.second, x.microsecond, x.tzinfo, x.fold)
    elif key == "datetime.timedelta":
        st = (x.days, x.seconds, x.microseconds)
    elif key == "datetime.timezone":
        st = (x.utcoffset(None), x.tzname(None))
    elif key == "decimal.Decimal":
        st = (str(x),)
    elif key == "fractions.Fraction":
        st = (x.numerator, x.denominator)
    elif key == "uuid.UUID":
        st = (x.int,)
    elif key.startswith("pathlib."):
        st = (str(x),)
    elif key in ("builtins.range", "builtins.slice"):
        st = (x.start, x.stop, x.step)
    elif key == "numpy.ndarray":
        if x.dtype.hasobject or x.nbytes > (32 << 20):
            return None
        st = (x.dtype.str, tuple(int(n) for n in x.shape), x.tobytes())
    elif path[0] == "numpy" and hasattr(x, "dtype") and getattr(x, "shape", None) == ():
        if x.dtype.hasobject:
            return None
        st = (x.dtype.str, x.tobytes())
    elif isinstance(x, __import__("enum").Enum):
        st = (x._name_,)
    elif issubclass(t, tuple) and type(getattr(t, "_fields", None)) is tuple:
        st = tuple(x)  # a named tuple of the standard library or a package
    else:
        return None
    return (path[0], path[1], st)


def value_from(cls, key, st, fail):
    """The instance of the value type `cls` (named `key`) for the state `st`; `fail(text)`
    raises when the state is not what that type's state is."""
    import datetime
    import enum

    def want(v, *types):
        if type(v) not in types:
            fail("a %s with a part of type %s" % (key, type(v).__name__))
        return v

    def ints(vs):
        return [want(v, int) for v in vs]

    def tz(v):
        if v is not None and type(v) is not datetime.timezone:
            fail("a %s with a time zone of another type" % key)
        return v

    if type(st) is not tuple:
        fail("a %s whose state is not a tuple" % key)
    if key == "datetime.datetime" and len(st) == 9:
        return datetime.datetime(*ints(st[:7]), tzinfo=tz(st[7]), fold=want(st[8], int))
    if key == "datetime.date" and len(st) == 3:
        return datetime.date(*ints(st))
    if key == "datetime.time" and len(st) == 6:
        return datetime.time(*ints(st[:4]), tzinfo=tz(st[4]), fold=want(st[5], int))
    if key == "datetime.timedelta" and len(st) == 3:
        return datetime.timedelta(*ints(st))
    if key == "datetime.timezone" and len(st) == 2:
        off = want(st[0], datetime.timedelta)
        return datetime.timezone(off) if st[1] is None else \
            datetime.timezone(off, want(st[1], str))
    if key in ("decimal.Decimal", "pathlib.PurePosixPath", "pathlib.PosixPath",
               "pathlib.PurePath", "pathlib.Path") and len(st) == 1:
        return cls(want(st[0], str))
    if key == "fractions.Fraction" and len(st) == 2:
        return cls(want(st[0], int), want(st[1], int))
    if key == "uuid.UUID" and len(st) == 1:
        return cls(int=want(st[0], int))
    if key == "builtins.range" and len(st) == 3:
        return range(*ints(st))
    if key == "builtins.slice" and len(st) == 3:
        return slice(*[want(v, int, type(None)) for v in st])
    if key == "numpy.ndarray" and len(st) == 3:
        import numpy
        dt = numpy.dtype(want(st[0], str))
        shape = tuple(ints(want(st[1], tuple)))
        if dt.hasobject:
            fail("an array of objects")
        return numpy.frombuffer(want(st[2], bytes), dtype=dt).reshape(shape).copy()
    if key == "PIL.Image.Image" and len(st) == 5:
        from PIL import Image
        img = Image.frombytes(want(st[0], str), tuple(ints(want(st[1], tuple))),
                              want(st[2], bytes))
        img.format = want(st[3], str, type(None))  # what it was read from, if anything
        if st[4] is not None:
            img.filename = want(st[4], str)
        return img
    if isinstance(cls, enum.EnumType) and len(st) == 1:
        member = cls.__members__.get(want(st[0], str))
        if member is None:
            fail("no member %r in %s" % (st[0], key))
        return member
    if key.startswith("numpy.") and len(st) == 2:
        import numpy
        dt = numpy.dtype(want(st[0], str))
        if dt.hasobject or dt.type is not cls:
            fail("a numpy scalar of another dtype")
        return numpy.frombuffer(want(st[1], bytes), dtype=dt)[0]
    if isinstance(cls, type) and issubclass(cls, tuple) and \
            type(getattr(cls, "_fields", None)) is tuple and len(st) == len(cls._fields):
        return cls(*st)
    fail("%s is not a value type (or its state is malformed)" % key)
