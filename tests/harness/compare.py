"""Run suites (JSON files of classlab's SuiteSpec) in split and in-process mode through the dev
driver and list every test whose outcome differs: the split harness must agree with the
in-process one wherever the protocol carries what the test does.

    python tests/harness/compare.py DIR [-j N] [--only NAME...]

DIR holds NAME.json (split layout) and NAME.inproc.json (one-module layout) per suite, as
`tests/split_fidelity.rs --ignored dump` (or a script) writes them.
"""

import concurrent.futures
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import driver  # noqa: E402


def outcomes(records):
    out = {}
    for r in records:
        if r.get("t") == "test":
            out.setdefault(r["id"], (r["o"], r.get("et"), (r.get("msg") or "")[:160]))
        elif r.get("t") == "import":
            out["<import>"] = ("import", r.get("et"), (r.get("msg") or "")[:160])
    return out


def one(args):
    d, name, python = args
    split_suite = json.load(open(os.path.join(d, name + ".json")))
    inproc_file = os.path.join(d, name + ".inproc.json")
    a = driver.run_suite(split_suite, python=python)
    b = driver.run_suite(json.load(open(inproc_file)), python=python, inproc=True) if \
        os.path.exists(inproc_file) else None
    return name, a, b


def main():
    d = sys.argv[1]
    jobs = 2
    only = None
    if "-j" in sys.argv:
        jobs = int(sys.argv[sys.argv.index("-j") + 1])
    python = sys.executable
    if "--python" in sys.argv:
        python = sys.argv[sys.argv.index("--python") + 1]
    prefix = ""
    if "--prefix" in sys.argv:
        prefix = sys.argv[sys.argv.index("--prefix") + 1]
    if "--only" in sys.argv:
        only = sys.argv[sys.argv.index("--only") + 1:]
    names = sorted(f[:-5] for f in os.listdir(d) if f.endswith(".json")
                   and not f.endswith(".inproc.json"))
    if only:
        names = [n for n in names if n in only]
    names = [n for n in names if n.startswith(prefix)]
    total = agree = 0
    t_split = t_inproc = c_split = c_inproc = 0.0
    with concurrent.futures.ProcessPoolExecutor(jobs) as ex:
        for name, a, b in ex.map(one, [(d, n, python) for n in names]):
            sa = outcomes(a[0])
            t_split += a[5]
            c_split += a[6]
            if b is None:
                continue
            sb = outcomes(b[0])
            t_inproc += b[5]
            c_inproc += b[6]
            ev = [r for r in a[0] if r.get("t") == "evidence"]
            for tid in sorted(set(sa) | set(sb)):
                total += 1
                x, y = sa.get(tid), sb.get(tid)
                if x is not None and y is not None and x[0] == y[0]:
                    agree += 1
                else:
                    print("%s %s: split %s | inproc %s" % (name, tid, x, y))
            if ev:
                print("%s evidence: %s" % (name, json.dumps(ev)[:300]))
            if "classlab harness error" in a[2] or "classlab host error" in a[2]:
                print("%s harness error:\n%s" % (name, a[2][-2000:]))
    print("agree %d/%d; wall: split %.1fs inproc %.1fs; CPU: split %.1fs inproc %.1fs"
          % (agree, total, t_split, t_inproc, c_split, c_inproc))


if __name__ == "__main__":
    main()
