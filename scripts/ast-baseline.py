#!/usr/bin/env python3
"""The baseline for scripts/bench-analysis.sh: classlab's `analyze` written with Python's `ast`.

For every class in every .py file below a path (nested classes included): its methods, a
skeleton (signatures + docstrings, bodies removed) and its dependency edges, by the same rules
as classlab (domain.md §3): A -> B when both are methods of the class other than __init__,
A != B, and A's body references self.B, cls.B or ClassName.B (nested classes skipped,
_Class__x folded to __x). Files that are not UTF-8 or do not parse are skipped, as classlab
does. Output: the same JSON lines as `classlab analyze --json`. Sequential, as such scripts are.

usage: ast-baseline.py PATH [--exclude DIRNAME ...]
"""
import ast
import json
import os
import sys


def python_files(root, exclude):
    if os.path.isfile(root):
        return [root]
    out = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if d not in exclude]
        out.extend(os.path.join(dirpath, f) for f in filenames if f.endswith(".py"))
    return sorted(out)


def unmangle(attr, class_name):
    bare = class_name.lstrip("_")
    prefix = "_" + bare
    if bare and attr.startswith(prefix) and attr[len(prefix):].startswith("__"):
        return attr[len(prefix):]
    return attr


def self_refs(func, class_name):
    refs = set()
    stack = list(func.body)
    while stack:
        node = stack.pop()
        if isinstance(node, ast.ClassDef):
            continue
        if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                and node.value.id in ("self", "cls", class_name)):
            refs.add(unmangle(node.attr, class_name))
        stack.extend(ast.iter_child_nodes(node))
    return refs


def skeleton(source_lines, imports, cls):
    out = list(imports)
    out.append(source_lines[cls.lineno - 1].rstrip())
    doc = ast.get_docstring(cls, clean=False)
    if doc is not None:
        out.append('    """' + doc + '"""')
    for m in cls.body:
        if not isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        first = (m.decorator_list[0].lineno - 1) if m.decorator_list else m.lineno
        body_line = m.body[0].lineno
        head = source_lines[first - 1 if m.decorator_list else m.lineno - 1:body_line - 1] or [source_lines[m.lineno - 1]]
        if m.name == "__init__":
            out.extend(source_lines[m.lineno - 1:m.end_lineno])
            continue
        out.extend(line.rstrip() for line in head)
        d = ast.get_docstring(m, clean=False)
        out.append('        """' + d + '"""' if d is not None else "        pass")
    return "\n".join(out)


def classes(tree, source_lines):
    imports = [ast.get_source_segment("\n".join(source_lines), n) or "" for n in tree.body
               if isinstance(n, (ast.Import, ast.ImportFrom))]
    found = []

    def visit(stmts, scope):
        for node in stmts:
            if isinstance(node, ast.ClassDef):
                qual = f"{scope}.{node.name}" if scope else node.name
                found.append((qual, node))
                visit(node.body, qual)
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                visit(node.body, f"{scope}.{node.name}" if scope else node.name)
            else:
                for field in ("body", "orelse", "finalbody"):
                    visit(getattr(node, field, []) or [], scope)
                for h in getattr(node, "handlers", []) or []:
                    visit(h.body, scope)
                for c in getattr(node, "cases", []) or []:
                    visit(c.body, scope)

    visit(tree.body, "")
    out = []
    for qual, cls in found:
        methods, seen = [], set()
        refs = {}
        for m in cls.body:
            if isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef)):
                if m.name not in seen:
                    seen.add(m.name)
                    methods.append(m.name)
                if m.name != "__init__":
                    refs.setdefault(m.name, set()).update(self_refs(m, cls.name))
        nodes = [n for n in methods if n != "__init__"]
        known = set(nodes)
        edges = [[a, b] for a in nodes for b in sorted(refs.get(a, ())) if b in known and b != a]
        sk = skeleton(source_lines, imports, cls)
        out.append({"class": qual, "line": cls.lineno, "methods": methods, "edges": edges,
                    "skeleton_lines": sk.count("\n") + 1})
    return out


def main():
    args = sys.argv[1:]
    exclude = set()
    while "--exclude" in args:
        i = args.index("--exclude")
        exclude.add(args[i + 1])
        del args[i:i + 2]
    files = python_files(args[0], exclude)
    summary = {"files": len(files), "parsed_files": 0, "classes": 0, "methods": 0, "edges": 0,
               "failed_files": []}
    w = sys.stdout.write
    for path in files:
        try:
            with open(path, "rb") as f:
                text = f.read().decode("utf-8-sig")
            tree = ast.parse(text)
        except (UnicodeDecodeError, SyntaxError, ValueError, RecursionError, MemoryError) as e:
            summary["failed_files"].append({"file": path, "reason": type(e).__name__})
            continue
        summary["parsed_files"] += 1
        for c in classes(tree, text.splitlines()):
            summary["classes"] += 1
            summary["methods"] += len(c["methods"])
            summary["edges"] += len(c["edges"])
            w(json.dumps({"file": path, **c}) + "\n")
    w(json.dumps({"summary": summary}) + "\n")


if __name__ == "__main__":
    main()
