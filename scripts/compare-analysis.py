#!/usr/bin/env python3
"""Compare two `analyze --json` outputs (classlab vs the ast baseline): counts, and every
file or class where they differ. usage: compare-analysis.py CLASSLAB.jsonl BASELINE.jsonl"""
import json
import sys
from collections import defaultdict


def load(path):
    classes, summary = {}, None
    for line in open(path, encoding="utf-8"):
        obj = json.loads(line)
        if "summary" in obj:
            summary = obj["summary"]
        else:
            classes[(obj["file"], obj["class"], obj["line"])] = obj
    return classes, summary


def main():
    ours, s_ours = load(sys.argv[1])
    base, s_base = load(sys.argv[2])
    for key in ("files", "parsed_files", "classes", "methods", "edges"):
        print(f"{key:>13}: classlab {s_ours[key]:>7}   ast {s_base[key]:>7}")
    failed_ours = {f["file"] for f in s_ours["failed_files"]}
    failed_base = {f["file"] for f in s_base["failed_files"]}
    for f in sorted(failed_ours - failed_base):
        n = sum(1 for k in base if k[0] == f)
        print(f"only classlab skipped: {f} ({n} classes in the baseline)")
    for f in sorted(failed_base - failed_ours):
        print(f"only the baseline skipped: {f}")
    by_file = defaultdict(int)
    differing = 0
    for key in ours.keys() & base.keys():
        a, b = ours[key], base[key]
        if a["methods"] != b["methods"] or sorted(map(tuple, a["edges"])) != sorted(map(tuple, b["edges"])):
            differing += 1
            print(f"differs: {key[0]}:{key[2]} {key[1]}: classlab {a['edges']} vs ast {b['edges']}")
    skipped = failed_ours ^ failed_base
    for key in ours.keys() ^ base.keys():
        if key[0] not in skipped:
            by_file[key[0]] += 1
    for f, n in sorted(by_file.items()):
        print(f"class sets differ in {f} ({n} classes)")
    same = (differing == 0 and not by_file)
    print("identical on every file both parse" if same else f"{differing} classes differ")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
