"""What the split harness carries, suite by suite through the dev driver (runner and host as
two processes, no sandbox): each test here is a small suite whose tests must come out as they
would in one process (or as the protocol says when it cannot)."""

import ast
import json
import os
import sys
import textwrap
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import driver  # noqa: E402


def expected(tests):
    ids = []
    for node in ast.parse(tests).body:
        if isinstance(node, ast.ClassDef):
            for m in node.body:
                if isinstance(m, ast.FunctionDef) and m.name.startswith("test"):
                    ids.append("%s.%s" % (node.name, m.name))
        elif isinstance(node, ast.FunctionDef) and node.name.startswith("test"):
            ids.append(node.name)
    return ids


def run_one_module(code, tests, class_timeout=5.0):
    """ClassEval's layout: the tests see the code's top-level names."""
    code, tests = textwrap.dedent(code), textwrap.dedent(tests)
    suite = {
        "files": [["code_module.py", code], ["test_classeval.py", tests]],
        "kind": {"kind": "unittest", "module": "test_classeval"},
        "code_modules": [], "globals_module": "code_module",
        "code": [{"file": "code_module.py", "first": 1, "last": len(code.splitlines())}],
        "expected": expected(tests),
        "limits": {"class_timeout": {"secs": int(class_timeout),
                                     "nanos": int(class_timeout % 1 * 1e9)}},
    }
    return records(suite)


def run_pytest(code, tests, test_timeout=5.0, site=()):
    """RealClassEval's layout: tests/test_snippet_1.py imports snippet_1. `site`: modules
    (name, text) both sides can import, as installed packages."""
    code, tests = textwrap.dedent(code), textwrap.dedent(tests)
    suite = {
        "files": [["snippet_1.py", code], ["tests/test_snippet_1.py", tests]],
        "site_files": [[name, textwrap.dedent(text)] for name, text in site],
        "kind": {"kind": "pytest", "file": "tests/test_snippet_1.py"},
        "code_modules": ["snippet_1"],
        "code": [{"file": "snippet_1.py", "first": 1, "last": None}],
        "expected": expected(tests),
        "limits": {"test_timeout": {"secs": int(test_timeout), "nanos": 0}},
    }
    return records(suite)


class Result:
    def __init__(self, recs, stderr):
        self.recs = recs
        self.stderr = stderr
        self.tests = {}
        for r in recs:
            if r.get("t") == "test":
                self.tests.setdefault(r["id"], r)
        self.evidence = [(r["source"], i["detail"]) for r in recs if r.get("t") == "evidence"
                         for i in r["items"]]

    def outcome(self, tid):
        return self.tests[tid]["o"]


def records(suite):
    recs, out, err, rc, hrc, dt, cpu = driver.run_suite(suite)
    assert "classlab harness error" not in err, err
    return Result(recs, err)


class Carried(unittest.TestCase):
    def assertAllPass(self, r):
        bad = {k: (v["o"], v.get("et"), v.get("msg")) for k, v in r.tests.items()
               if v["o"] != "pass"}
        self.assertFalse(bad, "%s\n%s" % (bad, r.stderr[-3000:]))
        # No test record at all: say what the suite did record (an import failure, a timeout).
        self.assertTrue(r.tests, "no test ran; records %r\n%s" % (r.recs[-5:], r.stderr[-3000:]))

    def test_mutation_through_handles_happens_in_the_host(self):
        r = run_one_module("""
            class Order:
                def __init__(self):
                    self.menu = []
                    self.students = {}

                def count(self):
                    return len(self.menu), len(self.students)
            """, """
            import unittest

            class T(unittest.TestCase):
                def test_append_and_assign(self):
                    o = Order()
                    o.menu.append({"dish": "x"})
                    o.students["ann"] = {"grade": 1}
                    o.students["ann"]["grade"] = 2
                    self.assertEqual(o.count(), (1, 1))
                    self.assertEqual(o.students, {"ann": {"grade": 2}})
                    self.assertIs(o.menu, o.menu)
                    self.assertEqual(type(o.students), dict)
                    self.assertIsInstance(o.menu, list)
                    self.assertEqual(sorted(o.students.keys()), ["ann"])
            """)
        self.assertAllPass(r)

    def test_only_the_code_s_names_the_tests_look_up_cross(self):
        # The code imports two modules; the tests name one. The other stays in the host: the
        # runner never imports it (ClassEval_52's nltk, _44's gensim, _28's pandas).
        code = """
            import colorsys
            from xml.dom import minidom
            len = 3

            def hls(r, g, b):
                return colorsys.rgb_to_hls(r, g, b)
            """
        r = run_one_module(code, """
            import sys
            import unittest

            class T(unittest.TestCase):
                def test_modules(self):
                    loaded = getattr(sys, "mod" + "ules")  # by a name the filter does not see
                    self.assertEqual(hls(1, 0, 0), colorsys.rgb_to_hls(1, 0, 0))
                    self.assertTrue("colorsys" in loaded)
                    self.assertFalse("xml.dom.minidom" in loaded, "the runner imported it")
            """)
        self.assertAllPass(r)
        self.assertFalse([d for _, d in r.evidence if "shadows" in d], r.evidence)
        # Tests that may look their globals up by string get them all.
        r = run_one_module(code, """
            import unittest

            class T(unittest.TestCase):
                def test_by_string(self):
                    self.assertIn("minidom", globals())
                    self.assertEqual(len("ab"), 2)
            """)
        self.assertEqual(r.outcome("T.test_by_string"), "pass", r.stderr[-2000:])
        self.assertTrue([d for _, d in r.evidence if "shadows a builtin" in d], r.evidence)

    def test_arguments_are_copied_back_and_identity_kept(self):
        r = run_one_module("""
            class Sorter:
                def sort_in_place(self, items):
                    items.sort()
                    items.append({"n": len(items)})

                def same(self, items):
                    return items
            """, """
            import unittest

            class T(unittest.TestCase):
                def test_in_place(self):
                    data = [3, 1, 2]
                    Sorter().sort_in_place(data)
                    self.assertEqual(data, [1, 2, 3, {"n": 3}])

                def test_returned_argument_is_the_tests(self):
                    data = [1]
                    self.assertIs(Sorter().same(data), data)
            """)
        self.assertAllPass(r)

    def test_exceptions_cross_with_their_types(self):
        r = run_one_module("""
            import json
            import sqlite3

            class MyError(ValueError):
                def __init__(self, code):
                    super().__init__("bad %d" % code)
                    self.code = code

            class Thing:
                def parse(self, text):
                    return json.loads(text)

                def query(self):
                    return sqlite3.connect(":memory:").execute("select * from nothing")

                def mine(self):
                    raise MyError(7)
            """, """
            import json
            import sqlite3
            import unittest

            class T(unittest.TestCase):
                def test_json(self):
                    with self.assertRaises(json.JSONDecodeError) as cm:
                        Thing().parse("{")
                    self.assertEqual(cm.exception.pos, 1)

                def test_sqlite(self):
                    with self.assertRaises(sqlite3.OperationalError):
                        Thing().query()

                def test_own_subclass_of_a_builtin(self):
                    with self.assertRaises(ValueError) as cm:
                        Thing().mine()
                    self.assertEqual(cm.exception.code, 7)
                    self.assertEqual(str(cm.exception), "bad 7")
                    self.assertIsInstance(cm.exception, MyError)
                    self.assertRaisesRegex(MyError, "bad", Thing().mine)
            """)
        self.assertAllPass(r)

    def test_types_report_the_code_s_names_and_isinstance_holds(self):
        r = run_pytest("""
            class Base:
                pass

            class Child(Base):
                LIMIT = 3

                def __init__(self, calls=None):
                    self.calls = calls or []

                @staticmethod
                def helper(x):
                    return x * 2
            """, """
            import pytest
            import snippet_1 as module_0

            def test_names():
                c = module_0.Child()
                assert f'{type(c).__module__}.{type(c).__qualname__}' == 'snippet_1.Child'
                assert f'{type(c.calls).__module__}.{type(c.calls).__qualname__}' == 'builtins.list'
                assert isinstance(c, module_0.Base)
                assert c.calls == []
                assert module_0.Child.LIMIT == 3
                assert module_0.Child.helper(4) == 8

            @pytest.mark.xfail(strict=True)
            def test_expected_failure():
                module_0.Child(1, 2, 3)
            """)
        self.assertEqual(r.outcome("test_names"), "pass", r.tests)
        self.assertEqual(r.outcome("test_expected_failure"), "xfail", r.tests)

    def test_a_slow_import_for_a_value_is_not_the_test_s_time(self):
        # The tests import a package that takes long to import, and hand one of its values to
        # the code, which never imported it: the host imports it first, off the test's clock,
        # as the tests' own import was in one process (RealClassEval snippet_143: deepteam).
        r = run_pytest("""
            class Template:
                def name_of(self, kind):
                    return kind.name.lower()

                def name_from(self, source):
                    return source().name.lower()
            """, """
            import slowpkg
            import slowpkg2
            import snippet_1 as module_0

            def test_value_of_a_slow_package():
                assert module_0.Template().name_of(slowpkg.Kind.HIJACKING) == "hijacking"

            def test_again():
                assert module_0.Template().name_of(slowpkg.Kind.OTHER) == "other"

            def test_a_callback_answers_with_one():
                assert module_0.Template().name_from(lambda: slowpkg2.Kind.OTHER) == "other"
            """, test_timeout=1.0, site=[(name, """
            import enum
            import time
            time.sleep(2.5)

            class Kind(enum.Enum):
                HIJACKING = 1
                OTHER = 2
            """) for name in ("slowpkg.py", "slowpkg2.py")])
        self.assertAllPass(r)

    def test_a_module_the_host_plants_is_never_imported_by_the_runner(self):
        # The code writes a module into the shared scratch directory and hands over a value
        # of it; the tests put their own directory (their `__file__` is in scratch) on
        # sys.path, a common idiom. Importing it would run the host's code among the tests.
        r = run_one_module("""
            import os
            import sys
            with open("planted_mod.py", "w") as f:
                f.write("import builtins, enum, unittest\\n"
                        "builtins.planted_ran = True\\n"
                        "unittest.TestCase.assertEqual = lambda *a, **k: None\\n"
                        "class Kind(enum.Enum):\\n    A = 1\\n")
            sys.path.insert(0, os.getcwd())
            import planted_mod

            class Thing:
                def kind(self):
                    # The host's own judgement of what the runner may import, overruled.
                    import gc
                    for f in gc.get_objects():
                        if type(f).__name__ == "function" and f.__name__ == "module_trusted":
                            f.__globals__["path_cache"]["planted_mod"] = True
                    return planted_mod.Kind.A
            """, """
            import os
            import sys
            import unittest

            class T(unittest.TestCase):
                def setUp(self):
                    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

                def test_kind(self):
                    self.assertEqual(Thing().kind().value, 2)

                def test_planted_module_never_ran_here(self):
                    import builtins
                    self.assertFalse(hasattr(builtins, "planted_ran"))
            """)
        self.assertEqual(r.outcome("T.test_kind"), "error", r.tests)
        self.assertEqual(r.tests["T.test_kind"].get("et"), "Unjudged", r.tests)
        self.assertEqual(r.outcome("T.test_planted_module_never_ran_here"), "pass", r.tests)

    def test_an_exception_object_handed_over_is_a_handle(self):
        # Not raised but returned or kept (pip's HashErrors collects errors; a method returns
        # an error as a value): an instance of the code's exception class whose every use is
        # a request, as in one process.
        r = run_one_module("""
            class Base(Exception):
                pass

            class Errors(Base):
                def __init__(self):
                    self.errors = []

                def append(self, e):
                    self.errors.append(e)

                def __bool__(self):
                    return bool(self.errors)

                def __str__(self):
                    return "%d errors" % len(self.errors)

            class MyErr(ValueError):
                pass

            class ConnectError(OSError):
                def __init__(self, path, os_error):
                    self._path = path
                    super().__init__(os_error.errno, os_error.strerror)

                @property
                def path(self):
                    return self._path

            class Maker:
                def make(self, msg):
                    return MyErr(msg, 3)

                def check(self, e):
                    return isinstance(e, MyErr) and e.args[0]
            """, """
            import unittest

            class T(unittest.TestCase):
                def test_collects(self):
                    obj = Errors()
                    self.assertFalse(obj)
                    obj.append(1)
                    self.assertEqual(obj.errors, [1])
                    self.assertTrue(obj)
                    self.assertEqual(str(obj), "1 errors")
                    self.assertIsInstance(obj, Base)

                def test_returned(self):
                    e = Maker().make("boom")
                    self.assertIsInstance(e, ValueError)
                    self.assertEqual(e.args, ("boom", 3))
                    self.assertEqual(str(e), "('boom', 3)")
                    self.assertEqual(Maker().check(e), "boom")
                    self.assertEqual({e: 1}[e], 1)

                def test_an_os_error(self):
                    e = ConnectError("/run/x.sock", OSError(2, "No such file"))
                    self.assertIsInstance(e, OSError)
                    self.assertEqual(e.path, "/run/x.sock")
                    self.assertEqual(e.errno, 2)

                def test_raised_by_the_test(self):
                    e = Maker().make("boom")
                    with self.assertRaises(MyErr):
                        raise e
            """)
        self.assertAllPass(r)

    def test_an_exception_whose_args_hold_objects_crosses_whole(self):
        # `decimal.Decimal('e')` raises InvalidOperation([ConversionSyntax]): its args hold a
        # list. The host once tried each part of a raised exception in a trial encoding, threw
        # it away, and then named the list as if the runner knew it (HostMisbehaved).
        r = run_one_module("""
            import decimal

            class Bag:
                def __init__(self):
                    self.items = [1, 2]

            class Calc:
                def parse(self, s):
                    return decimal.Decimal(s)

                def big(self):
                    # Too big for a snapshot, found out after the Bag was met.
                    return [Bag(), [0] * 199_990]

                def fail(self):
                    err = KeyError([Bag(), {"k": [3]}])
                    err.bag = Bag()
                    err.items = [4, 5]
                    raise err
            """, """
            import decimal
            import unittest

            class T(unittest.TestCase):
                def test_decimal(self):
                    with self.assertRaises(decimal.InvalidOperation) as cm:
                        Calc().parse("e")
                    self.assertIsInstance(cm.exception.args[0], list)
                    self.assertIs(cm.exception.args[0][0], decimal.ConversionSyntax)

                def test_args_and_attributes(self):
                    with self.assertRaises(KeyError) as cm:
                        Calc().fail()
                    bag, d = cm.exception.args[0]
                    self.assertEqual(bag.items, [1, 2])
                    self.assertEqual(d, {"k": [3]})
                    self.assertEqual(cm.exception.bag.items, [1, 2])
                    self.assertEqual(cm.exception.items, [4, 5])
                    # Named again later: known to the runner.
                    self.assertEqual(Calc().parse("1.5"), decimal.Decimal("1.5"))

                def test_a_snapshot_given_up_half_way(self):
                    big = Calc().big()
                    self.assertEqual(big[0].items, [1, 2])
                    self.assertEqual(len(big[1]), 199_990)
            """)
        self.assertAllPass(r)

    def test_patches_reach_the_code(self):
        r = run_pytest("""
            import os
            import time

            def now():
                return time.time()

            def read(path):
                with open(path) as f:
                    return f.read()

            def home():
                return os.environ.get("CLASSLAB_X")

            class Api:
                def fetch(self):
                    return now() + 1
            """, """
            import os
            from unittest import mock
            import snippet_1 as module_0

            def test_patch_module_name():
                with mock.patch("snippet_1.now", return_value=41):
                    assert module_0.Api().fetch() == 42
                assert module_0.Api().fetch() > 1000

            def test_patch_stdlib():
                with mock.patch("time.time", return_value=5.0):
                    assert module_0.now() == 5.0

            def test_patch_open():
                with mock.patch("builtins.open", mock.mock_open(read_data="hello")):
                    assert module_0.read("any") == "hello"

            def test_patch_environ():
                with mock.patch.dict(os.environ, {"CLASSLAB_X": "y"}):
                    assert module_0.home() == "y"
                assert module_0.home() is None
            """)
        self.assertAllPass(r)

    def test_callbacks_and_mocks(self):
        r = run_one_module("""
            class Bus:
                def __init__(self):
                    self.seen = []

                def publish(self, handler, value):
                    try:
                        return handler(value)
                    except BaseException:
                        return "swallowed"

                def read_file(self):
                    return "disk"

                def total(self):
                    return len(self.read_file())
            """, """
            import unittest
            from unittest.mock import MagicMock

            class T(unittest.TestCase):
                def test_callback_result(self):
                    self.assertEqual(Bus().publish(lambda v: v * 3, 2), 6)

                def test_mock_on_instance(self):
                    b = Bus()
                    b.read_file = MagicMock(return_value="abcd")
                    self.assertEqual(b.total(), 4)
                    b.read_file.assert_called_once_with()

                def test_assertion_in_callback_is_not_swallowed(self):
                    def handler(v):
                        self.assertEqual(v, 1)
                    Bus().publish(handler, 2)
            """)
        self.assertEqual(r.outcome("T.test_callback_result"), "pass", r.tests)
        self.assertEqual(r.outcome("T.test_mock_on_instance"), "pass", r.tests)
        self.assertEqual(r.outcome("T.test_assertion_in_callback_is_not_swallowed"), "fail")

    def test_honest_equality_is_no_forgery(self):
        r = run_one_module("""
            class Money:
                def __init__(self, cents):
                    self.cents = cents

                def __eq__(self, other):
                    if isinstance(other, Money):
                        return self.cents == other.cents
                    return self.cents == other

                def __hash__(self):
                    return hash(self.cents)

            def price():
                return Money(250)
            """, """
            import unittest

            class T(unittest.TestCase):
                def test_equal(self):
                    for _ in range(20):
                        self.assertEqual(price(), 250)
                        self.assertNotEqual(price(), 300)
                        self.assertTrue(price() == 250)
                        self.assertEqual(price(), Money(250))
                        self.assertIn(price(), [1, 250])
            """)
        self.assertAllPass(r)
        self.assertFalse(r.evidence)

    def test_a_guess_meets_many_values_that_look_alike(self):
        """A host that reads the values an equality is asked with (from its own frame) and
        guesses which is the test's: the value stands among as many of the suite's values as
        there are (up to 16 in all); a container's decoys are the value with one leaf, the
        same for all, set to other values of the suite; a value made for want of others has
        the value's form (a float its decimals, a set its elements' type)."""
        r = run_one_module("""
            import sys

            SEEN = []

            class Spy:
                def __eq__(self, other):
                    vals = sys._getframe(1).f_locals["values"]
                    if SEEN and SEEN[-1][0] is vals:
                        return False
                    distinct = []
                    for v in vals:
                        if not any(type(d) is type(v) and d == v for d in distinct):
                            distinct.append(v)
                    SEEN.append((vals, [repr(v) for v in distinct]))
                    return False

                __hash__ = object.__hash__

            def answer():
                return Spy()

            def seen():
                out = [shown for _, shown in SEEN]
                del SEEN[:]
                return out
            """, """
            import unittest

            class T(unittest.TestCase):
                def test_ints(self):
                    answer() == 1001
                    answer() == 1002
                    answer() == 1003
                    answer() == 1004
                    answer() == 1005
                    answer() == 1006
                    answer() == 1007
                    answer() == 1008
                    answer() == 1009
                    answer() == 1010
                    answer() == 1011
                    answer() == 1012
                    answer() == 1013
                    answer() == 1014
                    answer() == 1015
                    answer() == 1016
                    answer() == 1017
                    answer() == 1018
                    asked = seen()
                    self.assertEqual([len(a) for a in asked], [16] * 18, asked)

                def test_list(self):
                    answer() == [1001, 1002, 1003, 1004]
                    (asked,) = seen()
                    lists = [eval(a) for a in asked]
                    self.assertGreaterEqual(len(lists), 9, asked)
                    places = {i for l in lists for i in range(4) if l[i] != lists[0][i]}
                    self.assertEqual(len(places), 1, asked)
                    self.assertTrue(all(len(l) == 4 and all(type(x) is int for x in l)
                                        for l in lists), asked)

                def test_made(self):
                    answer() == 3.5
                    answer() == {"a", "b"}
                    (f, s) = seen()
                    self.assertEqual(len(f), 2, f)
                    made = float(f[1])
                    self.assertTrue(0 <= made <= 10 and len(f[1]) == 3, f)
                    self.assertEqual(len(s), 2, s)
                    self.assertTrue(all(type(x) is str for x in eval(s[1])), s)
            """)
        self.assertAllPass(r)

    def test_an_object_that_guesses_is_evidence(self):
        """Equal to the first value it is asked about, and consistently so: no single answer
        gives it away, but it equals a decoy nearly every time it is wrong (here 12 equalities
        among 16 values each: at least three decoys but for a chance of about 1e-10). Found
        out, its later equalities are not taken: the test is Tampered."""
        r = run_one_module("""
            class Guess:
                def __init__(self, seen=None):
                    self.seen = seen

                def __eq__(self, other):
                    if self.seen is None:
                        self.seen = other
                    return type(other) is type(self.seen) and other == self.seen

                def __ne__(self, other):
                    return not self.__eq__(other)

                __hash__ = object.__hash__

            def answer(n):
                return Guess()

            def right(n):
                return Guess(n)
            """, """
            import unittest

            class T(unittest.TestCase):
                def test_1(self):
                    self.assertEqual(answer(1), 1001)

                def test_2(self):
                    self.assertEqual(answer(2), 1002)

                def test_3(self):
                    self.assertEqual(answer(3), 1003)

                def test_4(self):
                    self.assertEqual(answer(4), 1004)

                def test_5(self):
                    self.assertEqual(answer(5), 1005)

                def test_6(self):
                    self.assertEqual(answer(6), 1006)

                def test_7(self):
                    self.assertEqual(answer(7), 1007)

                def test_8(self):
                    self.assertEqual(answer(8), 1008)

                def test_9(self):
                    self.assertEqual(answer(9), 1009)

                def test_10(self):
                    self.assertEqual(answer(10), 1010)

                def test_11(self):
                    self.assertEqual(answer(11), 1011)

                def test_12(self):
                    self.assertEqual(answer(12), 1012)

                def test_z_right(self):
                    self.assertEqual(right(1013), 1013)
            """)
        guessed = [e for e in r.evidence if "guess among" in json.dumps(e)]
        self.assertEqual(len(guessed), 1, r.evidence)
        self.assertIn("Guess", json.dumps(guessed))
        # Found guessing, its equalities are not taken any more, even a right one.
        self.assertEqual(r.outcome("T.test_z_right"), "tampered", r.tests["T.test_z_right"])

    def test_an_object_that_guesses_is_found_out_under_pytest_too(self):
        """pytest's rewritten `assert a == b` meets the same decoys and the same count."""
        r = run_pytest("""
            class Guess:
                def __init__(self):
                    self.seen = None

                def __eq__(self, other):
                    if self.seen is None:
                        self.seen = other
                    return type(other) is type(self.seen) and other == self.seen

                __hash__ = object.__hash__

            def answer(n):
                return Guess()
            """, """
            import snippet_1 as module_0

            def test_1():
                assert module_0.answer(1) == 1001

            def test_2():
                assert module_0.answer(2) == 1002

            def test_3():
                assert module_0.answer(3) == 1003

            def test_4():
                assert module_0.answer(4) == 1004

            def test_5():
                assert module_0.answer(5) == 1005

            def test_6():
                assert module_0.answer(6) == 1006

            def test_7():
                assert module_0.answer(7) == 1007

            def test_8():
                assert module_0.answer(8) == 1008

            def test_9():
                assert module_0.answer(9) == 1009

            def test_10():
                assert module_0.answer(10) == 1010

            def test_11():
                assert module_0.answer(11) == 1011

            def test_12():
                assert module_0.answer(12) == 1012
            """)
        guessed = [e for e in r.evidence if "guess among" in json.dumps(e)]
        self.assertEqual(len(guessed), 1, r.evidence)
        self.assertIn("tampered", [t["o"] for t in r.tests.values()], r.tests)

    def test_what_the_protocol_cannot_carry_is_unjudged(self):
        r = run_one_module("""
            class Store:
                def keep(self, thing):
                    self.thing = thing
            """, """
            import socket
            import unittest

            class T(unittest.TestCase):
                def test_socket(self):
                    a, b = socket.socketpair()
                    Store().keep(a)
            """)
        self.assertEqual(r.outcome("T.test_socket"), "error")
        self.assertEqual(r.tests["T.test_socket"]["et"], "Unjudged")

    def test_host_death_and_timeouts_fail_the_rest_listed(self):
        r = run_one_module("""
            import os

            class Slow:
                def spin(self):
                    while True:
                        pass

                def leave(self):
                    os._exit(3)
            """, """
            import unittest

            class A(unittest.TestCase):
                def test_spin(self):
                    Slow().spin()

                def test_after(self):
                    self.assertTrue(True)

            class B(unittest.TestCase):
                def test_leave(self):
                    Slow().leave()

                def test_z_later(self):
                    Slow()
            """, class_timeout=1.0)
        self.assertEqual(r.tests["A.test_spin"]["et"], "Timeout", r.tests)
        self.assertEqual(r.outcome("A.test_after"), "pass")  # the host answered in time
        self.assertEqual(r.tests["B.test_leave"]["et"], "HostDied", r.tests)
        self.assertEqual(r.tests["B.test_z_later"]["et"], "HostDied", r.tests)

    def test_import_failures_are_reported_as_the_code_s(self):
        r = run_one_module("""
            class A:
                def f(self):
                    return 1 +
            """, """
            import unittest

            class T(unittest.TestCase):
                def test_f(self):
                    self.assertEqual(A().f(), 1)
            """)
        imp = [x for x in r.recs if x.get("t") == "import"]
        self.assertEqual(imp[0]["et"], "SyntaxError", r.recs)
        self.assertEqual(imp[0]["where"], "code")
        self.assertEqual(imp[0]["line"], 4)


class ProtocolOf(unittest.TestCase):
    """What the runner tells the host an object of the tests supports: what getattr on its
    class finds, without running it (a MagicMock's class makes a child mock per magic method
    asked with getattr)."""

    def test_the_same_names_as_getattr_and_no_child_mocks(self):
        import collections
        from unittest import mock
        ns = {"__name__": "split_under_test"}
        exec(compile(driver.source("wire.py", "split.py"), "split.py", "exec"), ns)
        protocol = ns["PROTOCOL"]
        for x in (mock.Mock(), lambda: 1, len, [], {}, 3, object(), collections.Counter(),
                  int, "s", None):
            want = tuple(n for n in protocol if getattr(type(x), n, None) is not None)
            self.assertEqual(ns["protocol_of"](type(x)), want, type(x))
        m = mock.MagicMock()
        names = ns["protocol_of"](type(m))
        self.assertIn("__call__", names)
        self.assertIn("__len__", names)
        self.assertEqual(m._mock_children, {}, "child mocks were made")
        self.assertTrue(all(type(v) is not mock.MagicMock for v in vars(type(m)).values()))


class HostSnapshots(unittest.TestCase):
    """The host's snapshots of the test machinery, taken where host.py is compiled (the warm
    interpreter, before any suite forks from it), tell a changed dictionary from an unchanged
    one by its version tag alone."""

    def test_a_changed_dictionary_is_told_from_an_unchanged_one(self):
        import subprocess
        top = driver.source("host.py").split("\n# ---- the harness, defined once")[0]
        probe = textwrap.dedent("""
            assert _DICT_TAG is not None, "no version tags on this interpreter"
            names = set(_PRISTINE)
            assert {"builtins", "unittest.case", "json.encoder",
                    "unittest.case.TestCase"} <= names, names
            assert "sys" not in names
            def changed():
                return sorted(k for k, (_o, _s, addr, tag) in _PRISTINE.items()
                              if addr is None or _DICT_TAG(addr) != tag)
            assert changed() == [], changed()
            unittest.case.TestCase.assertEqual = lambda *a: None
            json.encoder.JSONEncoder.encode = lambda *a: "{}"
            assert changed() == ["json.encoder.JSONEncoder", "unittest.case.TestCase"], changed()
            print("ok")
        """)
        out = subprocess.run(
            [sys.executable, "-c", "import json, json.encoder, unittest, unittest.case\n" + top
             + "\n" + probe], capture_output=True, text=True, timeout=60)
        self.assertEqual((out.returncode, out.stdout.strip()), (0, "ok"), out.stderr)


if __name__ == "__main__":
    unittest.main()
