use super::*;

/// (name, line) of every indicator of `code`.
fn found(code: &str) -> Vec<(String, usize)> {
    scan(code).into_iter().map(|i| (i.name, i.line)).collect()
}

fn names(code: &str) -> Vec<String> {
    scan(code).into_iter().map(|i| i.name).collect()
}

fn one(name: &str, line: usize) -> Vec<(String, usize)> {
    vec![(name.to_string(), line)]
}

#[test]
fn ctypes_is_flagged_however_imported() {
    assert_eq!(found("import ctypes\n"), one(CTYPES, 1));
    assert_eq!(found("x = 1\nfrom ctypes import c_int\n"), one(CTYPES, 2));
    assert_eq!(found("import _ctypes as c\n"), one(CTYPES, 1));
    let hidden = "class A:\n    def f(self):\n        return __import__('ctypes')\n";
    assert_eq!(found(hidden), one(CTYPES, 3));
    let lib = "import importlib\nm = importlib.import_module('ctypes.util')\n";
    assert_eq!(found(lib), one(CTYPES, 2));
    // Negative: a name that merely contains it, a module named like it.
    assert!(found("import ctypesgen_helpers\nctypes = 3\n").is_empty());
}

#[test]
fn gc_import_is_flagged_and_other_imports_are_not() {
    assert_eq!(found("import gc\n"), one(GC, 1));
    assert_eq!(found("from gc import get_objects\n"), one(GC, 1));
    assert!(
        found("import os, sys, json, inspect, re, math\nfrom collections import gc_x\n").is_empty()
    );
}

#[test]
fn frame_access_by_call_or_reference() {
    let code = "import sys\nclass A:\n    def f(self):\n        return sys._getframe(1)\n";
    assert_eq!(found(code), one(FRAME_ACCESS, 4));
    assert_eq!(
        found("import inspect\nst = inspect.stack()\n"),
        one(FRAME_ACCESS, 2)
    );
    assert_eq!(
        found("from inspect import currentframe as cf\n"),
        one(FRAME_ACCESS, 1)
    );
    assert_eq!(
        found("import sys\ng = sys._getframe\n"),
        one(FRAME_ACCESS, 2)
    );
    // Negative: inspect for signatures, a method of the code's own named like one.
    let honest = "import inspect\nsig = inspect.signature(len)\nclass A:\n    def stack(self):\n        return self.stack()\n";
    assert!(found(honest).is_empty());
}

#[test]
fn frame_attributes_are_flagged() {
    let code = "def f(frame):\n    g = frame.f_back.f_locals\n    return g\n";
    assert_eq!(
        found(code),
        vec![(FRAME_ATTRIBUTE.into(), 2), (FRAME_ATTRIBUTE.into(), 2)]
    );
    assert_eq!(
        names("try:\n    1/0\nexcept Exception as e:\n    t = e.__traceback__.tb_frame\n"),
        vec![FRAME_ATTRIBUTE]
    );
    // Negative: attributes that only look alike.
    assert!(found("x.f_backup = 1\ny = obj.frame\nz = obj.locals\n").is_empty());
}

#[test]
fn dunders_returning_a_constant_are_flagged() {
    let always = "class A:\n    def __eq__(self, other):\n        return True\n";
    assert_eq!(found(always), one(CONSTANT_DUNDER, 2));
    let d = &scan(always)[0].detail;
    assert_eq!(d, "__eq__ always returns True");
    let branches = "class A:\n    def __eq__(self, o):\n        if o is None:\n            return True\n        return True\n";
    assert_eq!(found(branches), one(CONSTANT_DUNDER, 2));
    let hash = "class A:\n    def __hash__(self):\n        return 0\n    def __bool__(self):\n        return False\n";
    assert_eq!(
        found(hash),
        vec![(CONSTANT_DUNDER.into(), 2), (CONSTANT_DUNDER.into(), 4)]
    );
    let lam = "class A:\n    __ne__ = lambda self, o: False\n";
    assert_eq!(found(lam), one(CONSTANT_DUNDER, 2));
    // Negative: comparisons that look at their argument, mixed constants, NotImplemented.
    let honest = "class A:\n    def __eq__(self, o):\n        if not isinstance(o, A):\n            return False\n        return self.x == o.x\n    def __hash__(self):\n        return hash(self.x)\n    def __ne__(self, o):\n        if o is None:\n            return True\n        return False\n    def __bool__(self):\n        return bool(self.items)\n";
    assert!(found(honest).is_empty(), "{:?}", scan(honest));
    // Other methods may return constants.
    assert!(found("class A:\n    def is_ready(self):\n        return True\n").is_empty());
}

#[test]
fn exits_in_functions_are_flagged_not_at_module_level() {
    let code = "import os, sys\nclass A:\n    def f(self):\n        os._exit(0)\n    def g(self):\n        sys.exit(1)\n    def h(self):\n        os.kill(os.getpid(), 9)\n";
    assert_eq!(
        found(code),
        vec![
            (PROCESS_EXIT.into(), 4),
            (PROCESS_EXIT.into(), 6),
            (PROCESS_EXIT.into(), 8)
        ]
    );
    assert_eq!(
        found("from os import _exit\ndef f():\n    _exit(3)\n"),
        one(PROCESS_EXIT, 3)
    );
    assert_eq!(found("def f():\n    exit()\n"), one(PROCESS_EXIT, 2));
    // Negative: a script's own ending, a method named exit.
    let honest = "import sys\nclass A:\n    def exit(self):\n        self.exit()\nif __name__ == '__main__':\n    sys.exit(main())\n";
    assert!(found(honest).is_empty(), "{:?}", scan(honest));
}

#[test]
fn paths_it_was_not_given_are_flagged() {
    let procs = "def f():\n    return open('/proc/self/mem', 'rb')\n";
    let got = scan(procs);
    assert_eq!(got.len(), 2, "{got:?}"); // the open, and the literal itself
    assert!(got.iter().all(|i| i.name == OUTSIDE_PATH && i.line == 2));
    assert_eq!(
        found("import os\np = os.path.join(os.path.dirname(__file__), 'x')\n"),
        one(OUTSIDE_PATH, 2)
    );
    assert_eq!(found("f = open('../tests/a.txt')\n"), one(OUTSIDE_PATH, 1));
    assert_eq!(found("f = open('/etc/passwd')\n"), one(OUTSIDE_PATH, 1));
    assert_eq!(
        found("from pathlib import Path\nq = Path('/work/x')\n"),
        one(OUTSIDE_PATH, 2)
    );
    // Negative: paths the caller gives, relative names, /dev/null, a string that is no path.
    let honest = "import os\nclass A:\n    def load(self, path):\n        with open(path) as f:\n            return f.read()\n    def save(self):\n        open('data.json', 'w').close()\n        open('/dev/null', 'w').close()\n        return 'a/b/../c is no path'\n";
    assert!(found(honest).is_empty(), "{:?}", scan(honest));
}

#[test]
fn patching_the_test_machinery_is_flagged() {
    let code = "import unittest, json, builtins, sys\nunittest.TestCase.assertEqual = lambda *a: None\njson.JSONEncoder.encode = str\nbuiltins.len = lambda x: 0\nsys.modules['unittest'] = None\nsetattr(unittest.TestCase, 'run', None)\ndel json.dumps\n";
    let got: Vec<String> = scan(code).into_iter().map(|i| i.detail).collect();
    assert_eq!(
        got,
        vec![
            "assigns unittest.TestCase.assertEqual",
            "assigns json.JSONEncoder.encode",
            "assigns builtins.len",
            "assigns sys.modules[…]",
            "setattr on unittest.TestCase",
            "deletes json.dumps",
        ]
    );
    assert_eq!(
        found("from unittest import TestCase\nTestCase.assertTrue = None\n"),
        one(PATCHES, 2)
    );
    assert_eq!(found("__builtins__['print'] = None\n"), one(PATCHES, 1));
    // Negative: the code's own objects, sys's output streams, local dicts.
    let honest = "import sys, json\nclass A:\n    def __init__(self):\n        self.json = {}\n        self.json['k'] = 1\n        sys.stdout = open('out.txt', 'w')\n        data = json.loads('{}')\n        data['x'] = 2\n";
    assert!(found(honest).is_empty(), "{:?}", scan(honest));
}

#[test]
fn trace_hooks_and_code_swaps_are_flagged() {
    assert_eq!(
        found("import sys\nsys.setprofile(lambda *a: None)\n"),
        one(TRACE_HOOK, 2)
    );
    assert_eq!(
        found("import threading\nthreading.settrace(print)\n"),
        one(TRACE_HOOK, 2)
    );
    assert_eq!(
        found("def f(): pass\nf.__code__ = (lambda: 1).__code__\n"),
        one(CODE_SWAP, 2)
    );
    // Negative: reading sys's settings, a code attribute read.
    assert!(found("import sys\nn = sys.getrecursionlimit()\nc = f.__code__\n").is_empty());
}

#[test]
fn reading_the_tests_is_flagged() {
    assert_eq!(
        found("def f():\n    return open('test_calculator.py').read()\n"),
        one(READS_TESTS, 2)
    );
    assert_eq!(
        found("import inspect\ndef f(o):\n    return inspect.getsource(o)\n"),
        one(READS_TESTS, 3)
    );
    assert_eq!(
        found("import sys\ndef f():\n    return sys.modules['__main__']\n"),
        one(READS_TESTS, 3)
    );
    // Negative: a docstring naming a test file, `if __name__ == '__main__'`, other .py names.
    let honest = "class A:\n    \"\"\"Run test_a.py to check.\"\"\"\n    def f(self):\n        return 'main.py'\nif __name__ == '__main__':\n    A()\n";
    assert!(found(honest).is_empty(), "{:?}", scan(honest));
}

#[test]
fn unparsable_code_has_no_indicators_and_each_is_said_once() {
    assert!(scan("def (:\n import ctypes").is_empty());
    let twice = "import sys\ndef f():\n    sys._getframe()\n    sys._getframe()\n";
    assert_eq!(found(twice), one(FRAME_ACCESS, 3));
}
