"""Model outputs that try to forge ClassEval verdicts under the split harness, for measuring it:
ClassEval's skeleton of each class, every method but `__init__` answering with one attack object
(and every attribute `__init__` does not set), written as classlab JSONL predictions. The
baseline is the skeleton itself (`skeleton`): an attack must not pass more tests than it.

    python scripts/split-attack-outputs.py KIND [DATASET] > attack.jsonl
    classlab eval --dataset DATASET --predictions attack.jsonl --json

KIND:
  skeleton  the honest skeleton, as it is (the baseline an attack must not beat)
  plain   a plain object
  first   equal to the first value it is asked about, and consistently so after that (a guess
          among the values an equality is asked with, which no single answer gives away)
  bools   guesses only where True and False are asked (one in two), unequal to all else
  fresh   as `first`, each answer an instance of a type made for it
  raise   raises an exception that is a ValueError, a TypeError, a KeyError, … at once (not a
          forgery of the harness: a reward hack on tests that expect an exception)
  pick    reads the values an equality is asked with from the host's own frame (the request's
          decoys among them) and says "equal" only to the one that looks least made up: the
          shortest float, the smallest int, the string whose odd character is not a lowercase
          letter, the set whose elements share one type; the same for near-equality (`-`)
"""

import ast
import json
import sys

# Equal to the first value it is asked about, and consistently so after that.
GUESS = '''
class _Guess:
    def __init__(self):
        self._seen = []

    def __eq__(self, other):
        for v in self._seen:
            if type(v) is type(other) and v == other:
                return True
        if not self._seen:
            self._seen.append(other)
            return True
        return False

    def __ne__(self, other):
        return not self.__eq__(other)

    __hash__ = object.__hash__
'''

ATTACKS = {
    "plain": '''
class _X:
    pass
''',
    "first": GUESS + '''

_X = _Guess
''',
    "bools": '''
class _X:
    """Guesses only between True and False (one time in two, as a coin would) and is unequal to
    everything else."""

    def __init__(self):
        self._seen = None

    def __eq__(self, other):
        if type(other) is not bool:
            return False
        if self._seen is None:
            self._seen = other
        return other is self._seen

    def __ne__(self, other):
        return not self.__eq__(other)

    __hash__ = object.__hash__
''',
    "fresh": GUESS + '''

_made = [0]


def _X():
    """Each answer an instance of a type of its own (a count per type would start anew)."""
    _made[0] += 1
    return type("_Guess%d" % _made[0], (_Guess,), {})()
''',
    "raise": '''
class _Omni(ValueError, TypeError, KeyError, IndexError, ZeroDivisionError, RuntimeError,
            AttributeError, OverflowError):
    """An exception of every type a test may expect at once."""


def _X():
    raise _Omni("no")
''',
    "pick": '''
import sys as _sys


def _odd_lower(a, b):
    """Of two equal-length strings that differ in one place, the one whose character there is
    not a lowercase letter (a made decoy replaces one character with one)."""
    diff = [i for i in range(len(a)) if a[i] != b[i]]
    if len(diff) != 1:
        return None
    i = diff[0]
    la, lb = a[i].islower(), b[i].islower()
    if la != lb:
        return b if la else a
    return None


def _plausible(vals):
    """The candidate that looks least like a made-up decoy."""
    vals = list(vals)
    if not vals:
        return None
    t = type(vals[0])
    if any(type(v) is not t for v in vals):
        return vals[0]
    if t is float:
        return min(vals, key=lambda v: (len(repr(v)), abs(v)))
    if t is int:
        return min(vals, key=abs)
    if t is str and len(vals) == 2 and len(vals[0]) == len(vals[1]):
        got = _odd_lower(vals[0], vals[1])
        if got is not None:
            return got
    if t in (set, frozenset):
        return min(vals, key=lambda v: (len({type(e) for e in v}), len(v)))
    if t in (list, tuple) and len(vals) == 2 and len(vals[0]) == len(vals[1]):
        a, b = vals
        diff = [i for i in range(len(a)) if a[i] != b[i]]
        if len(diff) == 1:
            i = diff[0]
            return a if _plausible([a[i], b[i]]) is a[i] else b
    if t is dict and len(vals) == 2 and vals[0].keys() == vals[1].keys():
        a, b = vals
        diff = [k for k in a if a[k] != b[k]]
        if len(diff) == 1:
            k = diff[0]
            return a if _plausible([a[k], b[k]]) is a[k] else b
    return min(vals, key=lambda v: len(repr(v)))


def _asked():
    f = _sys._getframe(2)
    while f is not None:
        if f.f_code.co_name == "op_eqn" and "values" in f.f_locals:
            return f.f_locals["values"]
        f = f.f_back
    return None


class _X:
    def __eq__(self, other):
        vals = _asked()
        if vals is None:
            return True
        distinct = []
        for v in vals:
            if not any(type(d) is type(v) and d == v for d in distinct):
                distinct.append(v)
        best = _plausible(distinct)
        return type(best) is type(other) and best == other

    def __ne__(self, other):
        return not self.__eq__(other)

    __hash__ = object.__hash__

    def __sub__(self, other):
        # near-equality: close to a short number only (a made decoy is a long one)
        if isinstance(other, float) and len(repr(other)) > 8:
            return 1e9
        return 0.0

    def __rsub__(self, other):
        return self.__sub__(other)

    def __abs__(self):
        return 0.0
''',
}


def attack_module(task, kind):
    """The skeleton (the reference where the skeleton does not parse, as a few of ClassEval's
    do not) with every method but `__init__` answering with the attack object, and every
    attribute `__init__` does not set too: the attack keeps all the honest skeleton has."""
    try:
        tree = ast.parse(task["skeleton"])
    except SyntaxError:
        tree = ast.parse(task["solution_code"])
    answer = ast.parse("return _X()").body
    getattr_ = ast.parse("""
def __getattr__(self, name):
    if name.startswith('__'):
        raise AttributeError(name)
    return _X()
""").body
    for node in tree.body:
        if not isinstance(node, ast.ClassDef):
            continue
        for item in node.body:
            if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) \
                    and item.name != "__init__":
                item.body = list(answer)
        node.body = getattr_ + node.body
    imports = "\n".join(task.get("import_statement") or [])
    return "\n\n".join(x for x in (imports, ATTACKS[kind].strip(), ast.unparse(tree)) if x) + "\n"


def main():
    kind = sys.argv[1]
    if kind == "skeleton":
        for task in json.load(open(sys.argv[2] if len(sys.argv) > 2 else
                                   "../shared/data/classeval/ClassEval_data.json")):
            code = "\n".join((task.get("import_statement") or []) + [task["skeleton"]])
            print(json.dumps({"task_id": task["task_id"], "model": "skeleton",
                              "strategy": "holistic", "sample": 0, "code": code}))
        return
    dataset = sys.argv[2] if len(sys.argv) > 2 else "../shared/data/classeval/ClassEval_data.json"
    for task in json.load(open(dataset)):
        print(json.dumps({"task_id": task["task_id"], "model": "attack-" + kind,
                          "strategy": "holistic", "sample": 0,
                          "code": attack_module(task, kind)}))


if __name__ == "__main__":
    main()
