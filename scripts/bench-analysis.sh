#!/usr/bin/env bash
# Times, in one run, classlab's analysis (methods, skeleton, dependency graph of every class)
# against the same analysis written with Python's ast module (scripts/ast-baseline.py), on a
# directory tree of Python files — by default this machine's standard library, site-packages
# excluded — and checks that both find the same classes and edges.
#
# usage: scripts/bench-analysis.sh [DIR]     (RUNS=3 by default; the best run of each counts)
set -euo pipefail
cd "$(dirname "$0")/.."
dir="${1:-$(python3 -c "import sysconfig; print(sysconfig.get_paths()['stdlib'])")}"
runs="${RUNS:-3}"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT

cargo build --release --quiet
bin=target/release/classlab

# Best wall-clock seconds of $runs runs of a command; its stdout goes to $out/$1.jsonl.
best() {
    local name="$1"; shift
    local best=""
    for _ in $(seq "$runs"); do
        local t0 t1
        t0=$(date +%s.%N)
        "$@" > "$out/$name.jsonl"
        t1=$(date +%s.%N)
        best=$(python3 -c "a='$best'; d=$t1-$t0; print(d if not a else min(float(a), d))")
    done
    echo "$best"
}

echo "corpus: $dir (site-packages excluded), $runs runs each, best counts"
t_ast=$(best ast python3 scripts/ast-baseline.py "$dir" --exclude site-packages)
t_all=$(best classlab "$bin" analyze --json "$dir" --exclude site-packages)
t_one=$(best classlab1 "$bin" analyze --json --jobs 1 "$dir" --exclude site-packages)
python3 - "$t_ast" "$t_all" "$t_one" "$(nproc)" <<'PY'
import sys
ast_s, all_s, one_s, cores = map(float, sys.argv[1:])
print(f"ast baseline (1 process):       {ast_s:8.2f} s")
print(f"classlab analyze ({int(cores)} threads):  {all_s:8.2f} s   speed-up {ast_s/all_s:6.1f}x")
print(f"classlab analyze (1 thread):    {one_s:8.2f} s   speed-up {ast_s/one_s:6.1f}x")
PY
python3 scripts/compare-analysis.py "$out/classlab.jsonl" "$out/ast.jsonl" || true
