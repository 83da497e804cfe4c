# Private names: the tests share their module's globals with the code under test in ClassEval's
# layout, and a candidate that forgot `import re` must not run on the tests' import.
import linecache as _linecache
import os as _os
import re as _re
import shutil as _shutil
import types as _types
import unittest


class _Obj(_types.SimpleNamespace):
    """An argument object with the attributes the forge found the class reads (compared by
    its attributes, never by identity)."""


def _approx(value):
    """Floats rounded to 6 decimals, through lists, tuples and dicts (the forge's tolerance)."""
    if isinstance(value, float):
        rounded = round(value, 6)
        return 0.0 if rounded == 0 else rounded
    if isinstance(value, list):
        return [_approx(v) for v in value]
    if isinstance(value, tuple):
        return tuple(_approx(v) for v in value)
    if isinstance(value, dict):
        return {k: _approx(v) for k, v in value.items()}
    return value


_CLOCK = _re.compile(r"\d{4}-\d{2}-\d{2}(?:[ T]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)?"
                    r"|\d{2}/\d{2}/\d{4}|\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?")


def _noclock(value):
    """Timestamps (dates, times) in strings masked as `<clock>`, through containers: the
    current time is the clock's, not the class's."""
    if isinstance(value, str):
        return _CLOCK.sub("<clock>", value)
    if isinstance(value, list):
        return [_noclock(v) for v in value]
    if isinstance(value, tuple):
        return tuple(_noclock(v) for v in value)
    if isinstance(value, (set, frozenset)):
        return {_noclock(v) for v in value}
    if isinstance(value, dict):
        return {_noclock(k): _noclock(v) for k, v in value.items()}
    return value


def _split_args(text):
    """The top-level comma-separated parts of an argument list (brackets and quotes kept)."""
    parts, depth, quote, start, i = [], 0, None, 0, 0
    while i < len(text):
        c = text[i]
        if quote:
            if c == "\\":
                i += 1
            elif c == quote:
                quote = None
        elif c in "'\"":
            quote = c
        elif c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif c == "," and depth == 0:
            parts.append(text[start:i].strip())
            start = i + 1
        i += 1
    parts.append(text[start:].strip())
    return parts


_ASSERTION = _re.compile(r"self\.assert(Equal|AlmostEqual)\((.*)\)$")
_RAISES = _re.compile(r"with self\.assertRaises\((\w+)\):$")
_PLAIN = _re.compile(r"(?:(?:_approx|_noclock|set|sorted)\()?[A-Za-z_]\w*(?:\.\w+)?\)?$")


def _expectation(text):
    """`self.assertEqual(r1, 15)` as `r1 == 15` (and the operand), `with
    self.assertRaises(E):` as `raises E`."""
    m = _RAISES.match(text)
    if m:
        return "raises " + m.group(1), None
    m = _ASSERTION.match(text)
    if not m:
        return text, None
    parts = _split_args(m.group(2))
    op = " == " if m.group(1) == "Equal" else " ≈ "
    return parts[0] + op + (parts[1] if len(parts) > 1 else "?"), parts[0]


def _steps(source, first_line):
    """The steps of the test whose `def` is at `first_line`: [call line numbers, call,
    [(line, expectation source)]], in order."""
    steps, pending = [], None
    for number in range(first_line + 1, len(source) + 1):
        raw = source[number - 1]
        text = raw.strip()
        if not text:
            continue
        if len(raw) - len(raw.lstrip()) <= 4:
            break  # the next method or class
        if text.startswith("with self.assertRaises("):
            pending = (number, text)
        elif text.startswith("self.assert") and steps:
            steps[-1][2].append((number, text))
        elif pending is not None:
            steps.append([{pending[0], number}, text, [pending]])
            pending = None
        else:
            steps.append([{number}, text, []])
    return steps


def _counterexample(method, exc):
    """The calls of the failing test up to the first where this class and the reference
    differ, with what the reference did there (the test's assertions) and what this class
    did; None when the failure is not inside the test's own lines."""
    code = getattr(method, "__func__", method).__code__
    tb, frame, line = exc.__traceback__, None, None
    while tb is not None:
        if tb.tb_frame.f_code is code:
            frame, line = tb.tb_frame, tb.tb_lineno
        tb = tb.tb_next
    if frame is None:
        return None
    steps = _steps(_linecache.getlines(code.co_filename), code.co_firstlineno)
    at = next((k for k, s in enumerate(steps)
               if line in s[0] or any(n == line for n, _ in s[2])), None)
    if at is None:
        return None
    lines, expected, actual = steps[at][2], None, None
    failed = [text for n, text in lines if n == line and not text.startswith("with ")]
    if failed:
        expected, operand = _expectation(failed[0])
        if operand is not None and _PLAIN.match(operand):
            try:
                actual = "%s == %s" % (operand, repr(eval(operand, frame.f_globals,
                                                          frame.f_locals))[:300])
            except Exception:
                actual = None
    else:
        shown = [_expectation(text)[0] for _, text in lines]
        expected = "; ".join(shown) if shown else "returns (value not compared)"
        if isinstance(exc, AssertionError):
            actual = "returns normally"
    if actual is None:
        message = str(exc).split("\n")[0][:300]
        if isinstance(exc, AssertionError):
            actual = message
        else:
            actual = "raises %s%s" % (type(exc).__name__, ": " + message if message else "")
    out = ["counterexample: call %d of %d is the first that differs from the reference"
           % (at + 1, len(steps))]
    for k, step in enumerate(steps[:at + 1]):
        out.append("%s %2d  %s" % (">" if k == at else " ", k + 1, step[1]))
    out.append("      expected: " + expected)
    out.append("      actual:   " + actual)
    return "\n".join(out)


class _FreshDir(unittest.TestCase):
    """Each test leaves its directory as it found it; a failing test names its
    counterexample."""

    def _callTestMethod(self, method):
        # unittest's hook around the test method (Python >= 3.8; on older ones a failure is
        # only unexplained): the counterexample goes into an assertion's message, or onto
        # another exception as a note (the exception's type and message stay the class's).
        try:
            return super()._callTestMethod(method)
        except Exception as exc:
            try:
                text = _counterexample(method, exc)
            except Exception:
                text = None
            if text and isinstance(exc, AssertionError):
                exc.args = ("%s\n\n%s" % (exc, text),)
            elif text and hasattr(exc, "add_note"):
                exc.add_note(text)
            raise

    def _callSetUp(self):
        # What a test leaves in the directory it runs in goes when it ends (a cleanup: it runs
        # even when a `setUp` fails, and after any `tearDown`), so files one test writes never
        # reach another, whatever `setUp` a subclass brings. The test stays in that directory:
        # under classlab's split harness the code runs in a process of its own whose working
        # directory is this one, and a relative path the test and the code both name must be
        # one file (a test that moved to a directory of its own read another file than the
        # code wrote: model-written tests of a database class failed on the reference).
        self._cwd = _os.getcwd()
        self._before = set(_os.listdir(self._cwd))
        self.addCleanup(self._clean_dir)
        super()._callSetUp()

    def _clean_dir(self):
        _os.chdir(self._cwd)
        for name in set(_os.listdir(self._cwd)) - self._before:
            path = _os.path.join(self._cwd, name)
            if _os.path.isdir(path) and not _os.path.islink(path):
                _shutil.rmtree(path, ignore_errors=True)
            else:
                try:
                    _os.remove(path)
                except OSError:
                    pass
