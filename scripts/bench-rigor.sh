#!/usr/bin/env bash
# Times, in one run, `classlab rigor` (the schemata runner: one warm interpreter per task, a fork
# per mutant running the covering tests first, every core busy) against the straightforward
# runner (`--runner plain`: a fork per mutant that imports the mutated module from a file and
# runs the whole suite in order; same sandbox, same cores, same budgets) on the same tasks, and
# checks that both reach the same verdicts. Then ClassEval's references in full (the target is
# <= 3 minutes) and the two RealClassEval folders, for the figures in README.md.
#
# usage: [BIN=…] [KEEP=DIR] scripts/bench-rigor.sh [TASKS]   (TASKS: comma-separated ids for the
#        runner comparison; default every ClassEval task; KEEP: copy each run's JSON there).
#        Needs ../shared/data beside the checkout and the project's Python environments
#        (.python/, scripts/setup-python.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
data=../shared/data
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
# BIN=target/debug/classlab to time a debug build (the Rust side only plans and stores; the
# time is the sandboxed Python's).
bin="${BIN:-target/release/classlab}"
if [ -z "${BIN:-}" ]; then cargo build --release --quiet; fi
ce_py=.python/classeval/bin/python
rce_py=.python/realclasseval/bin/python
subset="${1:-}"

run() { # name, python, dataset, extra args… → JSON in $work/name.json, seconds in $work/name.s
    local name="$1" py="$2" ds="$3"; shift 3
    local t0 t1
    t0=$(date +%s.%N)
    "$bin" --python "$py" --dataset "$ds" --json rigor --no-cache --store "$work/$name.db" "$@" \
        > "$work/$name.json" 2> "$work/$name.err" || { cat "$work/$name.err" >&2; exit 1; }
    t1=$(date +%s.%N)
    python3 -c "print(round($t1 - $t0, 2))" > "$work/$name.s"
    echo "  $name: $(cat "$work/$name.s") s, load after $(cut -d' ' -f1-3 /proc/loadavg)" >&2
}

tasks=()
if [ -n "$subset" ]; then tasks=(--tasks "$subset"); fi
echo "machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
run schemata "$ce_py" "$data/classeval/ClassEval_data.json" "${tasks[@]}"
run plain "$ce_py" "$data/classeval/ClassEval_data.json" "${tasks[@]}" --runner plain
python3 - "$work" <<'PY'
import json, sys
w = sys.argv[1]
def load(n):
    return json.load(open(f"{w}/{n}.json")), float(open(f"{w}/{n}.s").read())
(s, ts), (p, tp) = load("schemata"), load("plain")
m = sum(t["mutants"] - t["equivalent"] for t in s["tasks"].values())
print(f"runner comparison on {len(s['tasks'])} ClassEval tasks, {m} mutants run:")
print(f"  plain (straightforward)  {tp:8.1f} s  {m / tp:7.1f} mutants/s")
print(f"  schemata (classlab)      {ts:8.1f} s  {m / ts:7.1f} mutants/s   x{tp / ts:.2f}")
same, diff = 0, []
for tid, a in s["tasks"].items():
    b = p["tasks"][tid]
    # The plain runner does no TCE: its "killed + survived" covers what schemata calls equivalent.
    if (a["killed"], sorted((x["op"], x["line"], x["before"]) for x in a["survived"])) == \
       (b["killed"], sorted((x["op"], x["line"], x["before"]) for x in b["survived"])):
        same += 1
    else:
        diff.append(tid)
print(f"  same verdicts on {same} of {len(s['tasks'])} tasks" + (f"; differ: {', '.join(diff)}" if diff else ""))
PY

if [ -n "$subset" ]; then
    run full "$ce_py" "$data/classeval/ClassEval_data.json"
else
    cp "$work/schemata.json" "$work/full.json"; cp "$work/schemata.s" "$work/full.s"
fi
run post "$rce_py" "$data/realclasseval/post_cut-off"
run csn "$rce_py" "$data/realclasseval/csn"
python3 - "$work" <<'PY'
import json, sys
w = sys.argv[1]
print()
print("| dataset | tasks | mutants | wall | line cov. mean / median | branch cov. mean / median | mutation score mean / median |")
print("|---|---:|---:|---:|---:|---:|---:|")
for name, label in [("full", "ClassEval (100)"), ("post", "RealClassEval post_cut-off"), ("csn", "RealClassEval csn")]:
    v = json.load(open(f"{w}/{name}.json")); s = v["summary"]; t = float(open(f"{w}/{name}.s").read())
    f = lambda d, k=1: "-" if not d else f"{d['mean'] * k:.1f} / {d['median'] * k:.1f}"
    print(f"| {label} | {s['tasks']} | {s['totals']['mutants']} | {t:.1f} s | {f(s['line'])} | {f(s['branch'])} | {f(s['score'], 100)} |")
    errs = s["errors"]
    if errs:
        print(f"  not analysed: {', '.join(e[0] for e in errs)}", file=sys.stderr)
PY
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
if [ -n "${KEEP:-}" ]; then mkdir -p "$KEEP" && cp "$work"/*.json "$work"/*.s "$KEEP"/; fi
