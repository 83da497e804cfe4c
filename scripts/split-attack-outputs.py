"""Model outputs that try to forge ClassEval verdicts under the split harness, for measuring it:
every method of every class answers with one attack object (every attribute too), written as
classlab JSONL predictions.

    python scripts/split-attack-outputs.py KIND [DATASET] > attack.jsonl
    classlab eval --dataset DATASET --predictions attack.jsonl --json

KIND:
  plain   a plain object (the baseline an attack must not beat)
  first   equal to the first value it is asked about, and consistently so after that (a guess
          among the values an equality is asked with, which no single answer gives away)
  pick    reads the values an equality is asked with from the host's own frame (the request's
          decoys among them) and says "equal" only to the one that looks least made up: the
          shortest float, the smallest int, the string whose odd character is not a lowercase
          letter, the set whose elements share one type; the same for near-equality (`-`)
"""

import ast
import json
import sys

ATTACKS = {
    "plain": '''
class _X:
    pass
''',
    "first": '''
class _X:
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


def attack_class(task):
    """The class's shape: from the skeleton, or the reference where the skeleton does not parse
    (a few ClassEval skeletons do not)."""
    name = task["class_name"]
    try:
        tree = ast.parse(task["skeleton"])
    except SyntaxError:
        tree = ast.parse(task["solution_code"])
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name == name:
            return node
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef):
            return node
    return None


def output(task, kind):
    cls = attack_class(task)
    lines = [ATTACKS[kind].strip(), "", ""]
    if cls is None:
        return "\n".join(lines)
    lines.append("class %s:" % cls.name)
    lines.append("    def __getattr__(self, name):")
    lines.append("        if name.startswith('__'):")
    lines.append("            raise AttributeError(name)")
    lines.append("        return _X()")
    for node in cls.body:
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for d in node.decorator_list:
            lines.append("    @" + ast.unparse(d))
        lines.append("    def %s(%s):" % (node.name, ast.unparse(node.args)))
        lines.append("        return None" if node.name == "__init__" else "        return _X()")
    return "\n".join(lines) + "\n"


def main():
    kind = sys.argv[1]
    dataset = sys.argv[2] if len(sys.argv) > 2 else "../shared/data/classeval/ClassEval_data.json"
    for task in json.load(open(dataset)):
        print(json.dumps({"task_id": task["task_id"], "model": "attack-" + kind,
                          "strategy": "holistic", "sample": 0, "code": output(task, kind)}))


if __name__ == "__main__":
    main()
