"""After exploration: hunt the mutants classlab sent, select a small suite (greedy cover of arcs,
killed mutants and one sequence ending in each public method), shrink each selected sequence to
its shortest form that keeps its goals, and replay the result to drop what varies."""

import time

from forge_runner import assertions, holds, usable


def lines_of(arcs):
    return {abs(a) for arc in arcs for a in arc}


class MutantHunt:
    """Mutants (from classlab's mutation analysis) and which sequences kill them. A sequence
    runs on a mutant only when the reference executed the mutant's line (or the mutant's line
    is never executed by any sequence: then it runs at import, and any sequence may kill it)."""

    def __init__(self, runner, mutants):
        self.runner = runner
        self.classes = {}
        self.line = {}
        self.dead_on_import = set()
        for m in mutants:
            cls = runner.load_mutant(m)
            if cls is None:
                self.dead_on_import.add(m["id"])
            else:
                self.classes[m["id"]] = cls
                self.line[m["id"]] = m.get("line", 0)
        self.live = set(self.classes)
        self.executed_lines = set()

    def kills(self, seq, trace, arcs, candidates=None):
        expected = assertions(trace)
        if not expected:
            return set()
        seen = lines_of(arcs)
        out = set()
        for mid in sorted(candidates if candidates is not None else self.live):
            if self.line.get(mid) not in seen and self.line.get(mid) in self.executed_lines:
                continue
            res = self.runner.run(seq, cls=self.classes[mid], traced=False)
            if res is None:
                continue
            if res["timeout"] or not all(holds(a, res["trace"]) for a in expected):
                out.add(mid)
        return out


def finish(plan, ex, runner, deadline):
    out = {"deadline_hit": False}
    hunt = MutantHunt(runner, plan.get("mutants", []))
    hunt.executed_lines = lines_of(ex.covered)
    goals = []  # per corpus entry: its goals
    for seq, trace, arcs in ex.corpus:
        g = {("arc",) + a for a in arcs}
        goals.append(g)
    if hunt.live:
        for idx, (seq, trace, arcs) in enumerate(ex.corpus):
            if time.monotonic() > deadline:
                out["deadline_hit"] = True
                break
            killed = hunt.kills(seq, trace, arcs)
            goals[idx] |= {("mutant", m) for m in killed}
            hunt.live -= killed
        extra = plan.get("mutant_iterations", 300)
        for _ in range(extra):
            if not hunt.live or time.monotonic() > deadline:
                out["deadline_hit"] = out["deadline_hit"] or bool(hunt.live)
                break
            seq = fresh_sequence(ex)
            res = runner.run(seq)
            if not usable(res, runner.documented):
                continue
            killed = hunt.kills(seq, res["trace"], res["arcs"])
            if killed:
                hunt.live -= killed
                ex.corpus.append((seq, res["trace"], set(res["arcs"])))
                goals.append({("arc",) + a for a in res["arcs"]} | {("mutant", m) for m in killed})
    for idx, (seq, trace, arcs) in enumerate(ex.corpus):
        if seq["calls"] and trace and trace[-1].get("out") in ("ret", "exc"):
            goals[idx].add(("method", seq["calls"][-1]["method"]))
    chosen = greedy(goals, ex.corpus)
    tests = []
    for idx, assigned in chosen:
        seq, trace, arcs = ex.corpus[idx]
        if time.monotonic() <= deadline:
            seq, trace = shrink(seq, trace, assigned, runner, hunt)
        tests.append({"seq": seq, "trace": trace, "goals": sorted(map(list, assigned))})
    out["tests"], out["unstable"] = stabilise(tests, runner)
    out["coverage"] = measure(runner, out["tests"])
    out["arcs_reached"] = sorted(map(list, ex.covered))
    killed = set()
    for t in out["tests"]:
        killed |= {g[1] for g in t["goals"] if g[0] == "mutant"}
    out["mutants"] = {"given": len(plan.get("mutants", [])), "dead_on_import": len(hunt.dead_on_import),
                      "killed_by_selection": len(killed), "live": sorted(hunt.live)}
    out["methods_without_test"] = sorted(
        m["name"] for m in ex.methods
        if not any(t["seq"]["calls"] and t["seq"]["calls"][-1]["method"] == m["name"] for t in out["tests"]))
    return out


def fresh_sequence(ex):
    ex.instances = 0
    a, k = ex.args(ex.plan["init"], [])
    seq = {"init": a, "init_kwargs": k, "calls": []}
    for _ in range(ex.rng.randint(1, ex.max_calls)):
        if not ex.methods:
            break
        seq["calls"].append(ex.new_call([]))
    return seq


def greedy(goals, corpus):
    """Repeatedly the sequence that reaches the most goals not yet reached (ties: fewer calls,
    then earlier); each chosen one keeps the goals it was chosen for."""
    reached = set()
    chosen = []
    left = set(range(len(goals)))
    while left:
        best, gain = None, set()
        for i in sorted(left):
            g = goals[i] - reached
            if len(g) > len(gain) or (g and len(g) == len(gain) and
                                      len(corpus[i][0]["calls"]) < len(corpus[best][0]["calls"])):
                best, gain = i, g
        if best is None:
            break
        chosen.append((best, gain))
        reached |= gain
        left.discard(best)
    return chosen


def shrink(seq, trace, assigned, runner, hunt):
    """Drop calls (last first) while the sequence still reaches every goal it was chosen for
    and its last call is still to the same method."""
    target = seq["calls"][-1]["method"] if seq["calls"] else None
    best, best_trace = seq, trace
    changed = True
    while changed:
        changed = False
        for i in range(len(best["calls"]) - 1, -1, -1):
            calls = best["calls"][:i] + best["calls"][i + 1:]
            if _refers_to(calls, i + 1):
                continue
            cand = {"init": best["init"], "init_kwargs": best.get("init_kwargs", {}),
                    "calls": _renumber(calls, i + 1)}
            if target and (not cand["calls"] or cand["calls"][-1]["method"] != target):
                continue
            res = runner.run(cand)
            if not usable(res, runner.documented) or not keeps(cand, res, assigned, hunt):
                continue
            best, best_trace, changed = cand, res["trace"], True
            break
    return best, best_trace


def keeps(seq, res, assigned, hunt):
    arcs = res["arcs"]
    for g in assigned:
        if g[0] == "arc" and (g[1], g[2]) not in arcs:
            return False
        if g[0] == "method" and (not seq["calls"] or seq["calls"][-1]["method"] != g[1]):
            return False
    mutants = {g[1] for g in assigned if g[0] == "mutant"}
    if mutants and hunt.kills(seq, res["trace"], arcs, mutants) != mutants:
        return False
    return True


def _refers_to(calls, step):
    """Whether any call uses the result of `step` (which is being removed)."""
    def walk(a):
        if isinstance(a, dict):
            if a.get("ref") == step:
                return True
            return any(walk(x) for x in a.values())
        if isinstance(a, list):
            return any(walk(x) for x in a)
        return False
    return walk(calls)


def _renumber(calls, removed):
    def walk(a):
        if isinstance(a, dict):
            if "ref" in a and a["ref"] > removed:
                return {"ref": a["ref"] - 1}
            return {k: walk(v) for k, v in a.items()}
        if isinstance(a, list):
            return [walk(x) for x in a]
        return a
    return walk(calls)


def clock_texts():
    """The current date and time as classes print them: a value holding one of these is the
    clock's, not the class's (it would differ on another day or minute)."""
    now = time.localtime()
    fmts = ("%Y-%m-%d", "%d/%m/%Y", "%m/%d/%Y", "%Y%m%d", "%H:%M", "%Y/%m/%d", "%d-%m-%Y")
    return {time.strftime(f, now) for f in fmts}


def stabilise(tests, runner):
    """Replay every test twice more (fresh directories; the second round after the clock's
    second has turned); an assertion that does not hold on a replay, or whose value holds the
    current date or time, is dropped with its reason. A test whose calls all stopped holding
    is dropped."""
    clock = clock_texts()
    state = []
    for t in tests:
        expected = assertions(t["trace"])
        dropped = []
        for a in list(expected):
            if "src" in a and any(c in a["src"] for c in clock):
                expected.remove(a)
                dropped.append(dict(a, reason="holds the current date or time"))
        state.append((t, expected, dropped))
    for round_ in range(2):
        if round_ == 1:
            time.sleep(1.05 - (time.time() % 1.0))
        for t, expected, dropped in state:
            if not expected:
                continue
            res = runner.run(t["seq"], traced=False)
            if res is None or res["timeout"]:
                expected.clear()
                dropped.append({"reason": "the replay did not complete"})
                continue
            for a in list(expected):
                if not holds(a, res["trace"]):
                    expected.remove(a)
                    dropped.append(dict(a, reason="value differs between runs"))
    kept, unstable = [], []
    for t, expected, dropped in state:
        if any(r.get("unstable") for r in t["trace"]):
            unstable.append({"seq": t["seq"], "reason": "recursion or memory error on the reference"})
        elif not any(a["kind"] != "ok" for a in expected) and dropped:
            unstable.append({"seq": t["seq"], "reason": "no stable assertion", "dropped": dropped})
        elif not expected:
            unstable.append({"seq": t["seq"], "reason": "no stable assertion", "dropped": dropped})
        else:
            t["assertions"] = expected
            t["dropped"] = dropped
            kept.append(t)
    return kept, unstable


def measure(runner, tests):
    """coverage.py's own figures (branch=True, the reference module only) for the selected
    sequences, replayed on a fresh import of the reference: line = covered / statements,
    branch = covered_branches / num_branches of its JSON report (None without branches)."""
    try:
        import coverage
    except ImportError as e:
        return {"error": "coverage.py not importable: %s" % e}
    import json
    import os
    cov = coverage.Coverage(branch=True, data_file=None, include=[runner.ref_file])
    try:
        cov.start()
        try:
            cls = runner.fresh_class()
            for t in tests:
                runner.run(t["seq"], cls=cls, traced=False)
        finally:
            cov.stop()
        path = os.path.join(runner.base, "coverage.json")
        with runner.quiet():
            cov.json_report(outfile=path)
        with open(path, encoding="utf-8") as f:
            report = json.load(f)
        os.unlink(path)
    except BaseException as e:
        return {"error": "%s: %s" % (type(e).__name__, str(e)[:300])}
    files = list(report.get("files", {}).values())
    if not files:
        return {"error": "the reference was not measured"}
    s = files[0]["summary"]
    nb = s.get("num_branches", 0)
    return {
        "line": 100.0 * s["covered_lines"] / s["num_statements"] if s["num_statements"] else None,
        "branch": 100.0 * s["covered_branches"] / nb if nb else None,
        "branches": [s.get("covered_branches", 0), nb],
        "missing_lines": files[0].get("missing_lines", []),
        "missing_arcs": files[0].get("missing_branches", []),
    }
