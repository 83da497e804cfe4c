"""Hunting mutants in the explorer: which call sequences kill which of the mutants classlab sent
(rigor's, as byte spans of the reference). A kill is what the written test would see: one of the
assertions the reference's trace yields no longer holds on the mutant's trace (a different value
or exception, a raise where the reference returned), or a call runs past its budget.

Mutants run in forked children (one child takes them in turn, a new one replaces it when a
mutant hangs or crashes it): a mutant that loops, allocates without end or breaks the
interpreter's state takes only its child with it. This is
steering only; the suite's mutation score is rigor's, measured on the written tests.
"""

import json
import os
import select
import signal
import types

from forge_runner import MEMORY_HEADROOM, assertions, holds, limit_memory



def lines_of(arcs):
    return {abs(a) for arc in arcs for a in arc}


class MutantHunt:
    def __init__(self, runner, mutants):
        self.runner = runner
        with open(runner.ref_file, "rb") as f:
            self.source = f.read()
        self.mutants = {m["id"]: m for m in mutants}
        self.live = set(self.mutants)
        self.dead_on_import = set()
        self.unruly = set()  # children that ran out of time or crashed: not hunted further

    def lines(self, mid):
        m = self.mutants[mid]
        a, b = m.get("lines") or (0, 0)
        out = set(range(a, b + 1))
        if m.get("scope"):
            s, e = m["scope"]
            out |= set(range(s, e + 1))
        return out

    def relevant(self, mid, runs):
        """Indices of `runs` ([(seq, trace, arcs)]) that execute the mutant's lines; all of them
        when none does (a change run at import, a class attribute)."""
        want = self.lines(mid)
        hit = [i for i, (_, _, arcs) in enumerate(runs) if want & lines_of(arcs)]
        return hit if hit else list(range(len(runs)))

    def mutant_class(self, mid):
        m = self.mutants[mid]
        code = self.source[:m["start"]] + m["text"].encode("utf-8") + self.source[m["end"]:]
        module = types.ModuleType("forge_mutant")
        module.__file__ = "<mutant>"
        import sys
        sys.modules["forge_mutant"] = module
        with self.runner.quiet(), self.runner.timer(5.0):
            exec(compile(code, "<mutant %s>" % mid, "exec"), module.__dict__)
        return getattr(module, self.runner.plan["class"])

    def first_kill(self, mid, runs, order):
        """In a child: the first of `runs` (in `order`) that kills mutant `mid`; -1 none, -2 the
        mutant does not import (every test kills it)."""
        try:
            cls = self.mutant_class(mid)
        except BaseException:  # noqa: BLE001 - a mutant that does not import is killed by any test
            return -2
        for i in order:
            seq, trace, _ = runs[i]
            expected = assertions(trace)
            if not expected:
                continue
            res = self.runner.run(seq, cls=cls, traced=False)
            if res is None:
                continue
            if res["timeout"] or not all(holds(a, res["trace"]) for a in expected):
                return i
        return -1

    def observable(self, mid):
        """Whether a test that compares exceptions by type could see the mutant: a change to
        a string inside a `raise` statement (the message) cannot be seen, and is not hunted."""
        m = self.mutants[mid]
        line_start = self.source.rfind(b"\n", 0, m["start"]) + 1
        stmt = self.source[line_start:m["start"]].lstrip()
        was = self.source[m["start"]:m["end"]]
        return not (stmt.startswith(b"raise") and was[-1:] in (b"'", b'"'))

    def answers(self, runs, jobs):
        """`first_kill` for each (mutant, order) of `jobs`, run in forked children: one child
        takes the mutants in turn and answers each on a pipe; a mutant whose answer does not
        come within its budget (a loop the call timer cannot stop, a crash) is killed with its
        child, answered None, and a new child goes on with the rest."""
        out = {}
        todo = list(jobs)
        while todo:
            r, w = os.pipe()
            pid = os.fork()
            if pid == 0:  # the child
                try:
                    os.close(r)
                    limit_memory(MEMORY_HEADROOM)
                    for mid, order in todo:
                        ans = self.first_kill(mid, runs, order)
                        os.write(w, ("%d %d\n" % (mid, ans)).encode())
                finally:
                    os._exit(0)
            os.close(w)
            buf = b""
            try:
                for mid, order in list(todo):
                    budget = 5.0 + sum(self.runner.timeout * (len(runs[i][0]["calls"]) + 1)
                                       for i in order)
                    while b"\n" not in buf:
                        ready, _, _ = select.select([r], [], [], budget)
                        chunk = os.read(r, 4096) if ready else b""
                        if not chunk:
                            break
                        buf += chunk
                    if b"\n" not in buf:
                        os.kill(pid, signal.SIGKILL)
                        out[mid] = None
                        todo.pop(0)
                        break
                    line, buf = buf.split(b"\n", 1)
                    out[mid] = int(line.split()[1])
                    todo.pop(0)
            finally:
                os.close(r)
                os.waitpid(pid, 0)
        return out

    def hunt(self, runs, candidates=None):
        """Per live mutant (or `candidates`), the index of the first of `runs` that kills it
        (`runs` in order of preference). Killed mutants leave `live`."""
        pool = self.live if candidates is None else candidates & self.live
        jobs = [(mid, self.relevant(mid, runs)) for mid in sorted(pool) if self.observable(mid)]
        killed = {}
        for mid, ans in self.answers(runs, jobs).items():
            if ans is None:
                self.unruly.add(mid)
                self.live.discard(mid)
            elif ans == -2:
                self.dead_on_import.add(mid)
                self.live.discard(mid)
            elif ans >= 0:
                killed[mid] = ans
                self.live.discard(mid)
        return killed

    def still_kills(self, run, mids):
        """Whether `run` (seq, trace, arcs) kills every one of `mids`."""
        jobs = [(mid, [0]) for mid in sorted(mids) if mid not in self.dead_on_import]
        return all(ans == 0 for ans in self.answers([run], jobs).values())

    def huntable(self):
        """Live mutants worth hunting (observable ones)."""
        return sorted(mid for mid in self.live if self.observable(mid))
