#!/usr/bin/env python3
"""Check the bundled sample dataset as it ships: assets/sample/sample.json.

For every task of the JSON (not the sources under assets/sample/src/, so what is checked is
exactly what classlab bundles):

  private   solution_code + "\\n\\n" + test, as one module in a fresh temporary directory, run by
            `python3 -I -m unittest discover -v` (cwd = that directory, timeout 60 s); every
            test must pass and the number of tests run must equal the test methods in `test`.
  public    the same for solution_code + `import unittest` + each method's public_tests.
  doctests  the `>>>` examples of every method docstring (and of the constructor docstring),
            run against the reference class, in order, in a fresh temporary directory.
  skeleton  the skeleton's method set (ast) equals the solution's, and the target methods are
            exactly methods_info, in skeleton order.
  deps      each method's annotated method_dependencies equals the ground-truth edges
            (domain.md section 3: A depends on B when A's body references self.B, cls.B or
            <ClassName>.B, B a method of the class, A != B, __init__ excluded on both sides);
            field_dependencies / lib_dependencies equal the fields (self.x) and imported
            modules the body uses, and Standalone is true exactly when all three are empty.
            Tasks listed in the "Deliberate annotation differences" section of
            assets/sample/README.md are reported but not failed.

Every run of the suites happens --repeat times (default 2), each in a new directory and a new
interpreter, hence a new hash seed. The run is reported per task; the exit status is 1 when
anything failed. `unittest discover -s .` is used rather than `unittest <module>` because -I
keeps the working directory off sys.path and discovery adds the start directory itself.

Standard library only (Python 3.11+).
"""

import argparse
import ast
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_DATASET = ROOT / 'assets' / 'sample' / 'sample.json'
README = ROOT / 'assets' / 'sample' / 'README.md'
EXCEPTIONS_HEADING = 'deliberate annotation differences'
TIMEOUT = 60
MODULE = 'test_sample_module.py'

DOCTEST_DRIVER = r'''
import doctest
import json
import sys

with open('solution_under_test.py', encoding='utf-8') as handle:
    source = handle.read()
globs = {'__name__': 'solution_under_test'}
exec(compile(source, 'solution_under_test.py', 'exec'), globs)
with open('docstrings.json', encoding='utf-8') as handle:
    docstrings = json.load(handle)
parser = doctest.DocTestParser()
runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
examples = 0
for name, text in docstrings:
    test = parser.get_doctest(text, dict(globs), name, None, 0)
    examples += len(test.examples)
    runner.run(test, out=sys.stdout.write)
result = runner.summarize(verbose=False)
print(f'DOCTEST-SUMMARY attempted={result.attempted} failed={result.failed}')
sys.exit(1 if result.failed else 0)
'''


def run_python(args, files, cwd_label):
    """Write files into a fresh temporary directory and run python3 -I there."""
    with tempfile.TemporaryDirectory(prefix=f'classlab-{cwd_label}-') as tmp:
        for name, text in files.items():
            Path(tmp, name).write_text(text, encoding='utf-8')
        try:
            proc = subprocess.run(
                [sys.executable, '-I', *args],
                cwd=tmp,
                capture_output=True,
                text=True,
                timeout=TIMEOUT,
            )
        except subprocess.TimeoutExpired:
            return None, f'timed out after {TIMEOUT} s'
        return proc.returncode, proc.stdout + proc.stderr


def count_tests(module_source):
    tree = ast.parse(module_source)
    total = 0
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            total += sum(
                1 for item in node.body
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and item.name.startswith('test')
            )
    return total


def run_unittest(module_source, label):
    """Run one unittest module; return (ok, detail)."""
    expected = count_tests(module_source)
    code, output = run_python(['-m', 'unittest', 'discover', '-v', '-s', '.', '-p', MODULE], {MODULE: module_source}, label)
    if code is None:
        return False, output
    ran = re.search(r'^Ran (\d+) tests?', output, re.MULTILINE)
    ran = int(ran.group(1)) if ran else 0
    if code != 0 or not re.search(r'^OK\b', output, re.MULTILINE):
        return False, f'exit {code}\n{tail(output)}'
    if ran != expected:
        return False, f'ran {ran} tests, expected {expected}\n{tail(output)}'
    return True, f'{ran} tests'


def tail(text, lines=40):
    kept = text.rstrip().splitlines()
    return '\n'.join(('    ' + line) for line in kept[-lines:])


def docstring_of(fragment, wrapper):
    """Docstring of the first function in a method_description / class_constructor fragment."""
    tree = ast.parse(wrapper(fragment))
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return ast.get_docstring(node, clean=True)
    return None


def run_doctests(task, label):
    docstrings = []
    init_doc = docstring_of(task['class_constructor'], lambda text: text)
    if init_doc:
        docstrings.append((f"{task['class_name']}.__init__", init_doc))
    for method in task['methods_info']:
        doc = docstring_of(method['method_description'], lambda text: 'class _Probe:\n    ' + text + '\n')
        if doc is None:
            return False, f"{method['method_name']}: no docstring in method_description"
        docstrings.append((f"{task['class_name']}.{method['method_name']}", doc))
    code, output = run_python(
        ['doctest_driver.py'],
        {
            'solution_under_test.py': task['solution_code'],
            'docstrings.json': json.dumps(docstrings),
            'doctest_driver.py': DOCTEST_DRIVER,
        },
        label,
    )
    if code is None:
        return False, output
    summary = re.search(r'DOCTEST-SUMMARY attempted=(\d+) failed=(\d+)', output)
    if code != 0 or not summary:
        return False, f'exit {code}\n{tail(output)}'
    return True, f'{summary.group(1)} examples'


def class_node(tree, name):
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name == name:
            return node
    return None


def method_names(node):
    return [n.name for n in node.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]


def check_skeleton(task):
    name = task['class_name']
    skeleton = class_node(ast.parse(task['skeleton']), name)
    solution = class_node(ast.parse(task['solution_code']), name)
    if skeleton is None or solution is None:
        return False, f'class {name} missing from the skeleton or the solution'
    skeleton_methods, solution_methods = method_names(skeleton), method_names(solution)
    problems = []
    if set(skeleton_methods) != set(solution_methods):
        problems.append(
            f'skeleton-only {sorted(set(skeleton_methods) - set(solution_methods))}, '
            f'solution-only {sorted(set(solution_methods) - set(skeleton_methods))}'
        )
    targets = [m for m in skeleton_methods if m != '__init__']
    listed = [m['method_name'] for m in task['methods_info']]
    if targets != listed:
        problems.append(f'methods_info {listed} != skeleton target methods {targets}')
    for method in task['methods_info']:
        if method['test_class'] not in task['test_classes']:
            problems.append(f"{method['method_name']}: test class {method['test_class']} not in test_classes")
        if not method.get('public_tests'):
            problems.append(f"{method['method_name']}: no public tests")
    if problems:
        return False, '; '.join(problems)
    return True, f'{len(targets)} methods'


def imported_modules(import_lines):
    names = set()
    for line in import_lines:
        for node in ast.walk(ast.parse(line)):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                for alias in node.names:
                    names.add((alias.asname or alias.name).split('.')[0])
    return names


def ground_truth(task):
    """Per target method: (method edges, fields used, imported modules used)."""
    name = task['class_name']
    solution = class_node(ast.parse(task['solution_code']), name)
    functions = {n.name: n for n in solution.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
    targets = set(functions) - {'__init__'}
    fields = {f.removeprefix('self.') for f in task['fields']}
    modules = imported_modules(task['import_statement'])
    truth = {}
    for method, node in functions.items():
        if method == '__init__':
            continue
        edges, used_fields, used_modules = set(), set(), set()
        for item in ast.walk(node):
            if isinstance(item, ast.Attribute) and isinstance(item.value, ast.Name):
                owner = item.value.id
                if owner in ('self', 'cls', name) and item.attr in targets and item.attr != method:
                    edges.add(item.attr)
                if owner == 'self' and item.attr in fields:
                    used_fields.add(f'self.{item.attr}')
            if isinstance(item, ast.Name) and item.id in modules:
                used_modules.add(item.id)
        truth[method] = (edges, used_fields, used_modules)
    return truth


def check_dependencies(task):
    truth = ground_truth(task)
    problems = []
    edges = 0
    for method in task['methods_info']:
        name = method['method_name']
        deps = method['dependencies']
        true_edges, true_fields, true_modules = truth.get(name, (set(), set(), set()))
        edges += len(true_edges)
        for key, expected in (
            ('method_dependencies', true_edges),
            ('field_dependencies', true_fields),
            ('lib_dependencies', true_modules),
        ):
            annotated = deps[key]
            if len(annotated) != len(set(annotated)) or set(annotated) != expected:
                problems.append(f'{name}.{key}: annotated {annotated}, ground truth {sorted(expected)}')
        standalone = not (deps['method_dependencies'] or deps['field_dependencies'] or deps['lib_dependencies'])
        if deps['Standalone'] != standalone:
            problems.append(f"{name}.Standalone: annotated {deps['Standalone']}, expected {standalone}")
    if problems:
        return False, '; '.join(problems)
    return True, f'{edges} edges'


def deliberate_exceptions():
    """Task ids listed under the README heading 'Deliberate annotation differences'."""
    if not README.exists():
        return set()
    ids, inside = set(), False
    for line in README.read_text(encoding='utf-8').splitlines():
        if line.startswith('#'):
            inside = line.lstrip('#').strip().lower() == EXCEPTIONS_HEADING
            continue
        if inside:
            ids.update(re.findall(r'^\s*[-*]\s*`?(\w+)`?', line))
    return ids


def check_task(task, repeat, exceptions):
    label = task['task_id']
    results = []

    def record(check, ok, detail, fatal=True):
        results.append((check, ok or not fatal, ok, detail))

    for run in range(1, repeat + 1):
        suffix = f' (run {run})' if repeat > 1 else ''
        ok, detail = run_unittest(task['solution_code'] + '\n\n' + task['test'], label)
        record(f'private{suffix}', ok, detail)
        public_ok, public_details, public_tests = True, [], 0
        for method in task['methods_info']:
            module = task['solution_code'] + '\n\nimport unittest\n\n' + (method['public_tests'] or '')
            ok, detail = run_unittest(module, label)
            if ok:
                public_tests += int(detail.split()[0])
            else:
                public_ok = False
                public_details.append(f"{method['method_name']}: {detail}")
        record(f'public{suffix}', public_ok,
               f"{len(task['methods_info'])} classes, {public_tests} tests" if public_ok else '\n'.join(public_details))
        ok, detail = run_doctests(task, label)
        record(f'doctests{suffix}', ok, detail)
    ok, detail = check_skeleton(task)
    record('skeleton', ok, detail)
    ok, detail = check_dependencies(task)
    if not ok and task['task_id'] in exceptions:
        detail = 'deliberately different (README): ' + detail
    record('deps', ok, detail, fatal=task['task_id'] not in exceptions)
    return results


def main():
    parser = argparse.ArgumentParser(description='Check the bundled sample dataset (see the module docstring).')
    parser.add_argument('dataset', nargs='?', type=Path, default=DEFAULT_DATASET, help='default: assets/sample/sample.json')
    parser.add_argument('--repeat', type=int, default=2, help='runs of every suite, each in a fresh directory (default 2)')
    parser.add_argument('--task', action='append', help='check only this task id (repeatable)')
    args = parser.parse_args()

    data = json.loads(args.dataset.read_text(encoding='utf-8'))
    tasks = data['tasks'] if isinstance(data, dict) else data
    if args.task:
        tasks = [t for t in tasks if t['task_id'] in set(args.task)]
    exceptions = deliberate_exceptions()
    failed_tasks = []
    for task in tasks:
        results = check_task(task, max(1, args.repeat), exceptions)
        passed = all(accepted for _, accepted, _, _ in results)
        print(f"{'PASS' if passed else 'FAIL'} {task['task_id']} {task['class_name']}")
        for check, accepted, ok, detail in results:
            mark = 'ok  ' if ok else ('note' if accepted else 'FAIL')
            first, *rest = detail.splitlines() or ['']
            print(f'  {mark} {check:<16} {first}')
            for line in rest:
                print(f'       {line}')
        if not passed:
            failed_tasks.append(task['task_id'])
    print()
    if failed_tasks:
        print(f'check-sample: {len(failed_tasks)} of {len(tasks)} tasks FAILED: {", ".join(failed_tasks)}')
        return 1
    print(f'check-sample: all {len(tasks)} tasks passed')
    return 0


if __name__ == '__main__':
    sys.exit(main())
