#!/usr/bin/env bash
# Times, in one run, classlab's own overhead per generated method (class-level TDD, model and
# tests stubbed: prompt, extraction, splicing, session write with its fsyncs, reducer; see
# benches/generate.rs) against one public-test run in the warm sandbox, on the bundled sample
# and, when ../shared/data is beside the checkout, ClassEval. Then, end to end,
# `classlab run --strategy tdd --provider reference` on one sample task: its wall time beside
# the wall time of the suites it ran.
#
# usage: scripts/bench-generate.sh        (TASK=Sample_0 by default)
set -euo pipefail
cd "$(dirname "$0")/.."
task="${TASK:-Sample_0}"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT

cargo build --release --quiet
target="${CARGO_TARGET_DIR:-target}"
bin="$target/release/classlab"

echo "divan: cargo bench --bench generate (a few minutes)…"
cargo bench --quiet --bench generate > "$out/divan.txt" 2> "$out/divan.err" \
    || { cat "$out/divan.err"; exit 1; }
cat "$out/divan.txt"
grep -E '^(corpus|sandbox|no sandbox|.*missing)' "$out/divan.err" || true
echo

# End to end: one task, TDD with the reference answering, in a fresh sessions directory on the
# checkout's file system (where ./sessions would be).
sessions="$(mktemp -d -p "$target" bench-generate-sessions.XXXXXX)"
trap 'rm -rf "$out" "$sessions"' EXIT
t0=$(python3 -c 'import time; print(time.time())')
"$bin" --sessions "$sessions" run --strategy tdd --provider reference --tasks "$task" --jobs 1 \
    > "$out/run.txt" 2>&1 || { cat "$out/run.txt"; exit 1; }
t1=$(python3 -c 'import time; print(time.time())')

python3 - "$out/divan.txt" "$sessions" "$task" "$t0" "$t1" "$(df -T "$target" | awk 'NR == 2 { print $2 }')" <<'PY'
import glob, json, re, sys

divan, sessions, task, t0, t1, fs = sys.argv[1:]
units = {"ns": 1e-3, "µs": 1.0, "us": 1.0, "ms": 1e3, "s": 1e6}

def micros(cell):
    m = re.match(r"\s*([\d.]+)\s*(ns|µs|us|ms|s)\s*$", cell)
    return float(m.group(1)) * units[m.group(2)] if m else None

# bench -> corpus -> (median, mean) in µs. Lines: "├─ bench", then "│  ├─ corpus   fastest │
# slowest │ median │ mean │ samples │ iters".
stats, bench = {}, None
for line in open(divan, encoding="utf-8"):
    line = re.sub(r"\x1b\[[0-9;]*m", "", line.rstrip("\n"))
    m = re.match(r"^([│ ]*)[├╰]─ (\S+)(.*)$", line)
    if not m:
        continue
    depth, name, rest = len(m.group(1)) // 3, m.group(2), m.group(3)
    if depth == 0:
        bench = name
        continue
    cols = rest.split("│")
    if len(cols) >= 4 and micros(cols[3]) is not None:
        stats.setdefault(bench, {})[name.strip('"')] = (micros(cols[2]), micros(cols[3]))

def mean(b, c):
    return stats.get(b, {}).get(c, (float("nan"), float("nan")))[1]

corpora = [c for c in ("sample", "classeval") if c in stats.get("per_method_step", {})]
memory = [
    ("tests_and_stub", "stub + public tests"),
    ("prompt", "prompt rendering"),
    ("extract_method", "extraction (+ helpers)"),
    ("splice_method", "splicing"),
    ("reduce", "reducer"),
]
def row(label, values):
    print(f"  {label:<40}" + "".join(f"{v:12.1f}" for v in values))

print(f"{'classlab overhead per method, mean (µs)':<42}" + "".join(f"{c:>12}" for c in corpora))
for key, label in memory:
    row(label, [mean(key, c) for c in corpora])
row("sum in memory", [sum(mean(k, c) for k, _ in memory) for c in corpora])
row(f"session write (fsync per event; {fs})", [mean("session_write", c) for c in corpora])
row("composed step (per_method_step)", [mean("per_method_step", c) for c in corpora])
print()
for c in corpora:
    step = mean("per_method_step", c)
    in_memory = sum(mean(k, c) for k, _ in memory)
    if "test_run" not in stats or c not in stats["test_run"]:
        print(f"{c}: no test run measured (no sandbox?)")
        continue
    run_median, run_mean = stats["test_run"][c]
    print(f"{c}: one public test run (warm sandbox) {run_mean / 1e3:.1f} ms mean, "
          f"{run_median / 1e3:.1f} ms median; overhead per method {step / 1e3:.2f} ms "
          f"(in memory {in_memory / 1e3:.2f} ms)")
    print(f"    test run / overhead: {run_mean / step:.1f}x on the mean, {run_median / step:.1f}x on the "
          f"median; overhead = {100 * step / run_mean:.1f}% / {100 * step / run_median:.1f}% of a test run, "
          f"in memory alone {100 * in_memory / run_mean:.1f}% / {100 * in_memory / run_median:.1f}%")

# End to end.
dirs = glob.glob(f"{sessions}/*/events.jsonl")
if dirs:
    events = [json.loads(l) for l in open(dirs[0], encoding="utf-8") if l.strip()]
    runs = [e for e in events if e.get("kind") == "test_run"]
    methods = sum(1 for e in events if e.get("kind") == "method_finished")
    suites = sum(e["result"].get("wall_s", 0.0) for e in runs)
    wall = float(t1) - float(t0)
    print()
    print(f"classlab run --strategy tdd --provider reference --tasks {task}: {wall:.2f} s wall, "
          f"{methods} methods, {len(events)} events, {len(runs)} suites "
          f"({sum(1 for e in runs if e['scope'] == 'public')} public) taking {suites:.2f} s "
          f"({1e3 * suites / max(len(runs), 1):.0f} ms each); the rest, {wall - suites:.2f} s, is "
          f"process start, sandbox probe and warm interpreter start, and classlab's own work")
PY
