#!/usr/bin/env python3
"""Assemble the bundled sample dataset, assets/sample/sample.json, from assets/sample/src/.

Every task lives in assets/sample/src/<ClassName>/ as human-editable sources:

    task.toml         task_id, class_name, fields, and one [dependencies.<method>] table per
                      target method (the human annotation, ClassEval's four keys)
    skeleton.py       imports, class docstring, implemented __init__, target methods with
                      signature + docstring and no body
    solution.py       the reference class with its imports
    tests.py          the private unittest module: <Class>Test<Method> per method + <Class>TestMain
    public_tests.py   one public TestCase <Class>Test<Method>Public per method

The output is the classlab dataset format (docs/dataset-format.md): ClassEval's task fields
plus `public_tests` per method and `provenance` per task. Everything is derived with `ast`
(source segments), so the JSON always matches the sources; inconsistencies between the
sources (skeleton vs solution, missing test classes, annotation for an unknown method ...)
stop the build.

Usage:
    python3 scripts/build-sample.py           regenerate assets/sample/sample.json
    python3 scripts/build-sample.py --check   exit 1 if sample.json is missing or out of date

Standard library only (Python 3.11+).
"""

import argparse
import ast
import json
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SAMPLE_DIR = ROOT / 'assets' / 'sample'
SRC_DIR = SAMPLE_DIR / 'src'
OUT_PATH = SAMPLE_DIR / 'sample.json'

HEADER = {
    'format': 'classlab-dataset',
    'version': 1,
    'name': 'classlab sample',
    'description': (
        'Eight small Python classes written for classlab in the cleaned ClassEval-TDD style: '
        'reStructuredText docstrings with doctests, constructor docstrings with :ivar, private '
        'unittest classes per method plus a class-level class, and method-level public tests. '
        'They cover a dependency chain, a helper with several callers, a name-mangled helper, '
        'static and class methods, file-based tests with temporary directories, and one task '
        '(Sample_5) with exactly three planted defects for the linter. '
        'See assets/sample/README.md.'
    ),
}

DEPENDENCY_KEYS = ('Standalone', 'lib_dependencies', 'field_dependencies', 'method_dependencies')


class BuildError(Exception):
    pass


def camel(method_name):
    """`get_jwt_user` -> `GetJwtUser`, `__normalize` -> `Normalize` (ClassEval's test-class naming)."""
    return ''.join(part[:1].upper() + part[1:] for part in method_name.strip('_').split('_') if part)


def span(source, start_line, start_col, end_line, end_col):
    """Source text between two ast positions (1-based lines, UTF-8 byte columns)."""
    lines = source.splitlines(keepends=True)
    chunk = [line.encode('utf-8') for line in lines[start_line - 1:end_line]]
    if len(chunk) == 1:
        return chunk[0][start_col:end_col].decode('utf-8')
    chunk[0] = chunk[0][start_col:]
    chunk[-1] = chunk[-1][:end_col]
    return b''.join(chunk).decode('utf-8')


def node_source(source, node):
    """Like ast.get_source_segment, but a function's or class's decorators are included."""
    decorators = getattr(node, 'decorator_list', None) or []
    start_line = min([node.lineno] + [d.lineno for d in decorators])
    return span(source, start_line, node.col_offset, node.end_lineno, node.end_col_offset)


def full_lines(source, node):
    """The whole lines a node spans, indentation kept, ending with a newline."""
    lines = source.splitlines(keepends=True)
    text = ''.join(lines[node.lineno - 1:node.end_lineno])
    return text if text.endswith('\n') else text + '\n'


def parse(path):
    source = path.read_text(encoding='utf-8')
    try:
        return source, ast.parse(source, filename=str(path))
    except SyntaxError as err:
        raise BuildError(f'{path}: {err}') from err


def find_class(tree, name, path):
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name == name:
            return node
    raise BuildError(f'{path}: no class {name}')


def methods_of(class_node):
    return [n for n in class_node.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]


def imports_of(source, tree):
    return [ast.get_source_segment(source, n) for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom))]


def docstring_node(node):
    first = node.body[0] if node.body else None
    if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
        return first
    return None


def without_docstring(function):
    """ast.dump of a function with its docstring statement removed (to compare skeleton and solution)."""
    body = function.body[1:] if docstring_node(function) else function.body
    return ast.dump(ast.Module(body=body, type_ignores=[]))


def signature_dump(function):
    return ast.dump(function.args) + '|' + '|'.join(ast.dump(d) for d in function.decorator_list)


def testcase_classes(tree):
    """Top-level classes deriving from unittest.TestCase, in source order."""
    found = []
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and any(
            isinstance(b, ast.Attribute) and b.attr == 'TestCase' for b in node.bases
        ):
            found.append(node)
    return found


def init_fields(init):
    fields = []
    for node in ast.walk(init):
        targets = []
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, (ast.AnnAssign, ast.AugAssign)):
            targets = [node.target]
        for target in targets:
            if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == 'self':
                name = f'self.{target.attr}'
                if name not in fields:
                    fields.append(name)
    return fields


def needed_imports(source, tree, class_node):
    """Import lines of a test module (unittest excluded) whose bound names the class uses."""
    used = {n.id for n in ast.walk(class_node) if isinstance(n, ast.Name)}
    lines = []
    for node in tree.body:
        if not isinstance(node, (ast.Import, ast.ImportFrom)):
            continue
        bound = {(alias.asname or alias.name).split('.')[0] for alias in node.names}
        if 'unittest' in bound:
            continue
        if bound & used:
            lines.append(ast.get_source_segment(source, node))
    return lines


def build_task(task_dir):
    meta_path = task_dir / 'task.toml'
    with meta_path.open('rb') as handle:
        meta = tomllib.load(handle)
    for key in ('task_id', 'class_name', 'fields', 'dependencies'):
        if key not in meta:
            raise BuildError(f'{meta_path}: missing key {key!r}')
    class_name = meta['class_name']

    skeleton_path = task_dir / 'skeleton.py'
    solution_path = task_dir / 'solution.py'
    tests_path = task_dir / 'tests.py'
    public_path = task_dir / 'public_tests.py'
    skeleton_src, skeleton_tree = parse(skeleton_path)
    solution_src, solution_tree = parse(solution_path)
    tests_src, tests_tree = parse(tests_path)
    public_src, public_tree = parse(public_path)

    skeleton_class = find_class(skeleton_tree, class_name, skeleton_path)
    solution_class = find_class(solution_tree, class_name, solution_path)

    imports = imports_of(skeleton_src, skeleton_tree)
    if imports != imports_of(solution_src, solution_tree):
        raise BuildError(f'{task_dir.name}: skeleton and solution imports differ')

    class_doc = docstring_node(skeleton_class)
    if class_doc is None:
        raise BuildError(f'{skeleton_path}: the class has no docstring')

    skeleton_methods = {m.name: m for m in methods_of(skeleton_class)}
    solution_methods = {m.name: m for m in methods_of(solution_class)}
    if list(skeleton_methods) != list(solution_methods):
        raise BuildError(
            f'{task_dir.name}: skeleton methods {list(skeleton_methods)} != solution methods {list(solution_methods)}'
        )
    if '__init__' not in skeleton_methods:
        raise BuildError(f'{skeleton_path}: no __init__')
    skeleton_init = skeleton_methods['__init__']
    if docstring_node(skeleton_init) is None:
        raise BuildError(f'{skeleton_path}: __init__ has no docstring')
    if without_docstring(skeleton_init) != without_docstring(solution_methods['__init__']):
        raise BuildError(f'{task_dir.name}: skeleton and solution __init__ bodies differ')

    target_names = [name for name in skeleton_methods if name != '__init__']
    for name in target_names:
        skeleton_method = skeleton_methods[name]
        if signature_dump(skeleton_method) != signature_dump(solution_methods[name]):
            raise BuildError(f'{task_dir.name}: signature of {name} differs between skeleton and solution')
        if docstring_node(skeleton_method) is None or len(skeleton_method.body) != 1:
            raise BuildError(f'{skeleton_path}: {name} must have a docstring and no body')

    fields = list(meta['fields'])
    if fields != init_fields(solution_methods['__init__']):
        raise BuildError(f'{meta_path}: fields {fields} != {init_fields(solution_methods["__init__"])} set by __init__')

    annotations = meta['dependencies']
    if set(annotations) != set(target_names):
        raise BuildError(f'{meta_path}: [dependencies] tables {sorted(annotations)} != methods {sorted(target_names)}')

    private_classes = {c.name: c for c in testcase_classes(tests_tree)}
    public_classes = {c.name: c for c in testcase_classes(public_tree)}
    expected_private = [f'{class_name}Test{camel(name)}' for name in target_names] + [f'{class_name}TestMain']
    expected_public = [f'{class_name}Test{camel(name)}Public' for name in target_names]
    if list(private_classes) != expected_private:
        raise BuildError(f'{tests_path}: test classes {list(private_classes)} != expected {expected_private}')
    if list(public_classes) != expected_public:
        raise BuildError(f'{public_path}: public test classes {list(public_classes)} != expected {expected_public}')

    methods_info = []
    for name in target_names:
        annotation = annotations[name]
        missing = [key for key in DEPENDENCY_KEYS if key not in annotation]
        extra = sorted(set(annotation) - set(DEPENDENCY_KEYS))
        if missing or extra:
            raise BuildError(f'{meta_path}: [dependencies.{name}] missing {missing}, unknown {extra}')
        test_class = f'{class_name}Test{camel(name)}'
        public_class = public_classes[f'{test_class}Public']
        public_imports = needed_imports(public_src, public_tree, public_class)
        public_code = node_source(public_src, public_class)
        if public_imports:
            public_code = '\n'.join(public_imports) + '\n\n\n' + public_code
        methods_info.append({
            'method_name': name,
            'method_description': node_source(skeleton_src, skeleton_methods[name]),
            'test_class': test_class,
            'test_code': node_source(tests_src, private_classes[test_class]),
            'solution_code': node_source(solution_src, solution_methods[name]),
            'dependencies': {key: annotation[key] for key in DEPENDENCY_KEYS},
            'public_tests': public_code,
        })

    return {
        'task_id': meta['task_id'],
        'skeleton': skeleton_src,
        'test': tests_src,
        'solution_code': solution_src,
        'import_statement': imports,
        'class_description': full_lines(skeleton_src, class_doc),
        'methods_info': methods_info,
        'class_name': class_name,
        'test_classes': list(private_classes),
        'class_constructor': f'class {class_name}: \n' + full_lines(skeleton_src, skeleton_init) + '\n',
        'fields': fields,
        'provenance': {'source': 'classlab-sample', 'original_id': None, 'original_digest': None},
    }


def task_order(task):
    prefix, _, number = task['task_id'].rpartition('_')
    return (prefix, int(number)) if number.isdigit() else (task['task_id'], 0)


def build():
    task_dirs = sorted(p for p in SRC_DIR.iterdir() if (p / 'task.toml').is_file())
    if not task_dirs:
        raise BuildError(f'no task under {SRC_DIR}')
    tasks = sorted((build_task(d) for d in task_dirs), key=task_order)
    ids = [t['task_id'] for t in tasks]
    if len(set(ids)) != len(ids):
        raise BuildError(f'duplicate task ids: {ids}')
    dataset = dict(HEADER)
    dataset['tasks'] = tasks
    return json.dumps(dataset, indent=2, ensure_ascii=False) + '\n'


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--check', action='store_true', help='exit 1 if sample.json is out of date, write nothing')
    args = parser.parse_args()
    try:
        text = build()
    except BuildError as err:
        print(f'build-sample: error: {err}', file=sys.stderr)
        return 2
    relative = OUT_PATH.relative_to(ROOT)
    if args.check:
        current = OUT_PATH.read_text(encoding='utf-8') if OUT_PATH.exists() else None
        if current != text:
            state = 'missing' if current is None else 'out of date'
            print(f'build-sample: {relative} is {state}; run python3 scripts/build-sample.py', file=sys.stderr)
            return 1
        print(f'build-sample: {relative} is up to date')
        return 0
    OUT_PATH.write_text(text, encoding='utf-8')
    print(f'build-sample: wrote {relative} ({text.count(chr(10))} lines)')
    return 0


if __name__ == '__main__':
    sys.exit(main())
