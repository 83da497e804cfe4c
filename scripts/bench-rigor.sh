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
# Two rounds, alternated (schemata, plain, schemata, plain): the machine's drift over the
# minutes of a round falls on both runners; the ratio is of the two rounds' mean times.
for round in 1 2; do
    run "schemata$round" "$ce_py" "$data/classeval/ClassEval_data.json" "${tasks[@]}"
    run "plain$round" "$ce_py" "$data/classeval/ClassEval_data.json" "${tasks[@]}" --runner plain
done
cp "$work/schemata1.json" "$work/schemata.json"; cp "$work/plain1.json" "$work/plain.json"
python3 - "$work" <<'PY'
import json, sys
w = sys.argv[1]
def load(n):
    return json.load(open(f"{w}/{n}.json")), float(open(f"{w}/{n}.s").read())
(s, ts1), (p, tp1) = load("schemata1"), load("plain1")
(_, ts2), (_, tp2) = load("schemata2"), load("plain2")
ts, tp = (ts1 + ts2) / 2, (tp1 + tp2) / 2
m = sum(t["mutants"] - t["equivalent"] for t in s["tasks"].values())
print(f"runner comparison on {len(s['tasks'])} ClassEval tasks, {m} mutants run, two rounds:")
print(f"  plain (straightforward)  {tp1:6.1f} / {tp2:6.1f} s, mean {tp:6.1f} s  {m / tp:7.1f} mutants/s")
print(f"  schemata (classlab)      {ts1:6.1f} / {ts2:6.1f} s, mean {ts:6.1f} s  {m / ts:7.1f} mutants/s"
      f"   x{tp / ts:.2f} (rounds: x{tp1 / ts1:.2f}, x{tp2 / ts2:.2f})")
def differ(s, p):
    # The plain runner does no TCE: its "killed + survived" covers what schemata calls equivalent.
    key = lambda a: (a["killed"], sorted((x["op"], x["line"], x["before"]) for x in a["survived"]))
    return [t for t, a in s["tasks"].items() if key(a) != key(p["tasks"][t])]
for what, a, b in [("schemata and plain", s, p),
                   ("the two schemata rounds", s, load("schemata2")[0]),
                   ("the two plain rounds", p, load("plain2")[0])]:
    diff = differ(a, b)
    print(f"  same verdicts ({what}) on {len(a['tasks']) - len(diff)} of {len(a['tasks'])} tasks"
          + (f"; differ: {', '.join(diff)}" if diff else ""))
PY

if [ -n "$subset" ]; then
    run full "$ce_py" "$data/classeval/ClassEval_data.json"
else
    cp "$work/schemata1.json" "$work/full.json"; cp "$work/schemata1.s" "$work/full.s"
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
