"""The wire's codec and frames (assets/harness/wire.py), in process: what crosses by value
round-trips exactly, and malformed input is refused with WireError, never anything else."""

import datetime
import decimal
import fractions
import os
import pathlib
import socket
import unittest
import uuid

HERE = os.path.dirname(os.path.abspath(__file__))
W = {"__name__": "wire"}
with open(os.path.join(HERE, "..", "..", "assets", "harness", "wire.py"), encoding="utf-8") as f:
    exec(compile(f.read(), "wire.py", "exec"), W)
Codec, WireError, Frames, Handles = W["Codec"], W["WireError"], W["Frames"], W["Handles"]


class CodecTest(unittest.TestCase):
    def setUp(self):
        self.c = Codec()

    def roundtrip(self, v):
        return self.c.loads(self.c.dumps(v))

    def test_plain_values_round_trip_exactly(self):
        for v in (None, True, False, 0, -1, 2 ** 63 - 1, -2 ** 63, 2 ** 200, -(3 ** 150),
                  1.5, float("inf"), -0.0, complex(1, -2), "", "héllo \udc80 ✓", b"\x00\xff",
                  (), (1, ("a", (b"b", None))), frozenset({1, "x", (2, 3)}), Ellipsis,
                  NotImplemented):
            got = self.roundtrip(v)
            self.assertEqual(type(got), type(v))
            self.assertEqual(got, v)
        nan = self.roundtrip(float("nan"))
        self.assertNotEqual(nan, nan)

    def test_what_the_codec_does_not_know_is_refused(self):
        for v in ([1], {1: 2}, {1}, object(), frozenset({(1, [2])}) if False else object()):
            with self.assertRaises(WireError):
                self.c.dumps(v)

    def test_malformed_messages_raise_wire_error_only(self):
        good = bytes(self.c.dumps(("a", 1, (2.5, "x"), ())))
        cases = [b"", b"Z", b"s\x05ab", b"t\x03N", good + b"N", b"I\xff\xff\xff\xff\xff\xff\xff"
                 b"\xff\xff\xff\x01", b"i\x00", b"s\x02\xff\xfe", b"L\x00\x00", b"h\x01N",
                 b"z\x01L\x00\x00"]
        for i in range(len(good)):
            cases.append(good[:i])
        for data in cases:
            with self.assertRaises(WireError, msg=repr(data)):
                self.c.loads(data)

    def test_nesting_and_size_are_bounded(self):
        deep = b"t\x01" * 500 + b"N"
        with self.assertRaises(WireError):
            self.c.loads(deep)
        v = ()
        for _ in range(150):
            v = (v,)
        with self.assertRaises(WireError):
            self.c.dumps(v)
        huge_count = b"t\xff\xff\xff\xff\x0f"
        with self.assertRaises(WireError):
            self.c.loads(huge_count)

    def test_a_frozenset_holds_plain_data_only(self):
        # Hashing a handle would run the peer's code while decoding.
        raw = b"z\x01" + bytes(self.c.dumps((1, 2)))
        self.assertEqual(self.c.loads(raw), frozenset({(1, 2)}))


class ValueTypesTest(unittest.TestCase):
    def path(self, t):
        return (t.__module__, t.__qualname__)

    def test_value_types_rebuild_as_genuine_instances(self):
        tz = datetime.timezone(datetime.timedelta(hours=2), "X")
        for v in (datetime.datetime(2024, 2, 29, 13, 5, 7, 123, tzinfo=tz),
                  datetime.date(1999, 12, 31), datetime.time(1, 2, 3, 4),
                  datetime.timedelta(days=-3, seconds=5), decimal.Decimal("1.10"),
                  fractions.Fraction(3, 7), uuid.UUID(int=12345), pathlib.PurePosixPath("a/b"),
                  range(1, 10, 3), slice(None, 5, None)):
            mod, qual, st = W["value_of"](v, self.path)
            got = W["value_from"](type(v), mod + "." + qual, st, self.fail)
            self.assertIs(type(got), type(v))
            self.assertEqual(got, v)
            self.assertEqual(str(got), str(v))

    def test_a_malformed_state_fails(self):
        def fail(text):
            raise WireError(text)
        for key, st in (("datetime.date", ("2024", 1, 1)), ("datetime.date", (1,)),
                        ("decimal.Decimal", (1.5,)), ("uuid.UUID", ("x",)),
                        ("datetime.datetime", (2024, 1, 1, 0, 0, 0, 0, "UTC", 0))):
            cls = {"datetime.date": datetime.date, "decimal.Decimal": decimal.Decimal,
                   "uuid.UUID": uuid.UUID, "datetime.datetime": datetime.datetime}[key]
            with self.assertRaises(WireError):
                W["value_from"](cls, key, st, fail)


class FramesTest(unittest.TestCase):
    def test_frames_reassemble_and_oversized_ones_are_refused(self):
        a, b = socket.socketpair()
        try:
            fa, fb = Frames(a.fileno(), 1 << 20), Frames(b.fileno(), 100)
            fa.send(b"x" * 50)
            fa.send(b"y")
            while not fb.pending():
                self.assertTrue(fb.fill())
            self.assertEqual(fb.take(), b"x" * 50)
            while not fb.pending():
                self.assertTrue(fb.fill())
            self.assertEqual(fb.take(), b"y")
            fa.send(b"z" * 200)
            with self.assertRaises(WireError):
                while not fb.pending():
                    fb.fill()
        finally:
            a.close()
            b.close()


class LentTest(unittest.TestCase):
    """A message's lent containers, found again by identity (not by equality)."""

    def test_a_container_is_found_by_identity(self):
        lent = W["Lent"]()
        a, b = [1], [1]
        lent[1] = a
        self.assertEqual(lent.cid_of(a), 1)
        self.assertIsNone(lent.cid_of(b), "an equal list is another container")
        lent[2] = b
        self.assertEqual((lent.cid_of(a), lent.cid_of(b), dict(lent)), (1, 2, {1: a, 2: b}))


class HandlesTest(unittest.TestCase):
    def test_an_object_is_one_handle_and_released_by_count(self):
        h = Handles()
        x = object()
        hid, new = h.export(x)
        self.assertTrue(new)
        self.assertEqual(h.export(x), (hid, False))
        h.release([(hid, 1)])
        self.assertIs(h.exported_object(hid), x)
        h.release([(hid, 1)])
        with self.assertRaises(WireError):
            h.exported_object(hid)

    def test_a_dropped_proxy_reports_how_many_references_it_had(self):
        h = Handles()

        class P:
            pass
        p = P()
        h.hold(7, p, "rebuild")
        got, entry = h.held(7)
        self.assertIs(got, p)
        del p, got
        self.assertEqual(h.take_released(), ((7, 2),))
        again, entry = h.held(7)  # named again after it died: rebuilt from the entry
        self.assertIsNone(again)
        self.assertEqual(entry[2], "rebuild")


if __name__ == "__main__":
    unittest.main()
