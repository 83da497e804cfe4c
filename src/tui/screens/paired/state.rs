//! The paired view's state: one task in two of the compared sessions, everything it shows
//! computed once when opened (and again only when the sessions change): the diff of the two
//! generated classes both ways (side by side and unified), the tests failing on either side,
//! and, for generation runs, each method's repair rounds on each side.

use std::collections::BTreeMap;

use similar::{Algorithm, DiffTag, capture_diff_slices};

use crate::metrics::fingerprint::Bucket;
use crate::model::{Outcome, SuiteFailure};
use crate::tui::evals::{EvalSession, is_failing, test_causes, tests_of};
use crate::tui::runs::{MethodState, method_rows, round_tests};

/// The panes, in `Tab` order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Pane {
    #[default]
    Diff,
    Tests,
    /// Only when a side is a generation run with methods.
    Rounds,
}

impl Pane {
    pub const ALL: [Pane; 3] = [Pane::Diff, Pane::Tests, Pane::Rounds];

    pub fn index(self) -> usize {
        match self {
            Pane::Diff => 0,
            Pane::Tests => 1,
            Pane::Rounds => 2,
        }
    }
}

/// How the diff is laid out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DiffMode {
    SideBySide,
    Unified,
}

/// What one side is: the session and its verdict on the task.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Side {
    pub label: String,
    /// Column letter in the grid (`A`, `B`, …).
    pub letter: String,
    pub bucket: Option<Bucket>,
    pub passed: usize,
    pub judged: usize,
    /// Failing tests of the final suite.
    pub failing: usize,
    pub has_code: bool,
    /// The session has no run of this task.
    pub missing: bool,
    /// Why the whole suite failed, when it did.
    pub suite_failure: Option<String>,
}

/// One line of the side-by-side diff: the old (left) and new (right) line, numbered from 1.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DiffRow {
    pub tag: DiffTag,
    pub old: Option<(usize, String)>,
    pub new: Option<(usize, String)>,
}

/// One line of the unified diff.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UniRow {
    /// ' ', '-' or '+'.
    pub sign: char,
    pub old: Option<usize>,
    pub new: Option<usize>,
    pub text: String,
}

/// A test's result on one side.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TestCell {
    pub outcome: Outcome,
    /// The exception type, else the outcome's name (`NotRun`, `Tampered`).
    pub what: String,
    /// The message's first line.
    pub message: String,
    /// Why it failed, when the failure-cause classifier can tell (`attribute read but never
    /// assigned: total`).
    pub cause: Option<String>,
}

/// A test failing on at least one side.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TestRow {
    pub id: String,
    pub sides: [Option<TestCell>; 2],
}

/// One method's generation on one side.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MethodSide {
    /// `passed`, `repaired 2`, `exhausted`, … (empty: the side did not generate it).
    pub state: String,
    /// Each round: its number and its public tests (passed, total) when they ran.
    pub rounds: Vec<(u32, Option<(usize, usize)>)>,
    /// The method as it stands in the judged class, by lines.
    pub code: Vec<String>,
    /// Its bucket on its own private test class.
    pub outcome: Option<Bucket>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RoundRow {
    pub method: String,
    pub sides: [MethodSide; 2],
}

#[derive(Debug, Clone, Default)]
pub struct State {
    pub task_id: String,
    /// The two sessions, indices into the compared sessions.
    pub a: usize,
    pub b: usize,
    pub sides: [Side; 2],
    pub diff: Vec<DiffRow>,
    pub unified: Vec<UniRow>,
    /// Where each block of changes starts, in `diff` and in `unified`.
    pub changes: Vec<(usize, usize)>,
    /// Lines added and removed from A to B.
    pub added: usize,
    pub removed: usize,
    pub tests: Vec<TestRow>,
    pub rounds: Vec<RoundRow>,
    /// The method selected in the rounds pane (its code is shown below the table).
    pub method: usize,
    pub pane: Pane,
    /// Scroll of each pane (`Pane::index`).
    pub scroll: [usize; 3],
    /// Horizontal scroll of the code.
    pub left: usize,
    /// The diff's layout chosen with the toggle (else by the width).
    pub mode: Option<DiffMode>,
    /// What it was built from: the sessions' ids and events applied.
    pub built: Vec<(String, usize)>,
}

/// The same name the grid gives a session's column.
pub fn label(s: &EvalSession) -> String {
    match &s.info.strategy {
        Some(strategy) if !strategy.is_empty() => format!("{} {strategy}", s.info.label()),
        _ => s.info.label().to_string(),
    }
}

fn letter(i: usize) -> String {
    match u8::try_from(i) {
        Ok(n) if n < 26 => char::from(b'A' + n).to_string(),
        _ => (i + 1).to_string(),
    }
}

fn first_line(s: &str) -> String {
    s.lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("")
        .trim()
        .to_string()
}

fn suite_failure(f: &SuiteFailure) -> String {
    match f {
        SuiteFailure::Import {
            exc_type,
            message,
            line,
            ..
        } => match line {
            Some(l) => format!("{exc_type} at line {l}: {}", first_line(message)),
            None => format!("{exc_type}: {}", first_line(message)),
        },
        SuiteFailure::Timeout { limit_s } => format!("timed out after {limit_s} s"),
        SuiteFailure::Memory => "killed at the memory limit".into(),
        SuiteFailure::Crashed { detail, .. } => format!("crashed: {}", first_line(detail)),
        SuiteFailure::Protocol { detail } => format!("harness protocol: {}", first_line(detail)),
        SuiteFailure::Tampered { detail } => format!("tampered: {}", first_line(detail)),
    }
}

fn side(sessions: &[EvalSession], i: usize, task_id: &str) -> Side {
    let Some(s) = sessions.get(i) else {
        return Side {
            label: "—".into(),
            letter: letter(i),
            missing: true,
            ..Side::default()
        };
    };
    let run = s.state.run(task_id, 0);
    let summary = run.and_then(|r| r.summary.as_ref());
    Side {
        label: label(s),
        letter: letter(i),
        bucket: summary.and_then(|x| x.outcome),
        passed: summary.map_or(0, |x| x.passed),
        judged: summary.map_or(0, |x| x.judged),
        failing: run.map_or(0, |r| {
            tests_of(r).iter().filter(|t| is_failing(t.outcome)).count()
        }),
        has_code: run.is_some_and(|r| r.code.is_some()),
        missing: run.is_none(),
        suite_failure: run
            .and_then(|r| r.private.as_ref())
            .and_then(|p| p.failure.as_ref())
            .map(suite_failure),
    }
}

/// The diff of `old` and `new` by lines, both ways.
pub fn diff(old: &str, new: &str) -> (Vec<DiffRow>, Vec<UniRow>, Vec<(usize, usize)>) {
    let a: Vec<&str> = old.lines().collect();
    let b: Vec<&str> = new.lines().collect();
    let ops = capture_diff_slices(Algorithm::Myers, &a, &b);
    let (mut rows, mut uni, mut changes) = (Vec::new(), Vec::new(), Vec::new());
    let line = |v: &[&str], i: usize| (i + 1, v[i].to_string());
    for op in ops {
        let (tag, o, n) = op.as_tag_tuple();
        if tag != DiffTag::Equal {
            changes.push((rows.len(), uni.len()));
        }
        match tag {
            DiffTag::Equal => {
                for (i, j) in o.zip(n) {
                    rows.push(DiffRow {
                        tag,
                        old: Some(line(&a, i)),
                        new: Some(line(&b, j)),
                    });
                    uni.push(UniRow {
                        sign: ' ',
                        old: Some(i + 1),
                        new: Some(j + 1),
                        text: a[i].to_string(),
                    });
                }
            }
            _ => {
                let (o, n): (Vec<usize>, Vec<usize>) = (o.collect(), n.collect());
                for k in 0..o.len().max(n.len()) {
                    rows.push(DiffRow {
                        tag,
                        old: o.get(k).map(|&i| line(&a, i)),
                        new: n.get(k).map(|&j| line(&b, j)),
                    });
                }
                uni.extend(o.iter().map(|&i| UniRow {
                    sign: '-',
                    old: Some(i + 1),
                    new: None,
                    text: a[i].to_string(),
                }));
                uni.extend(n.iter().map(|&j| UniRow {
                    sign: '+',
                    old: None,
                    new: Some(j + 1),
                    text: b[j].to_string(),
                }));
            }
        }
    }
    (rows, uni, changes)
}

/// Tests failing on either side, in the order A ran them, then B's others.
fn failing_tests(sessions: &[EvalSession], task_id: &str, ab: [usize; 2]) -> Vec<TestRow> {
    let runs = ab.map(|i| sessions.get(i).and_then(|s| s.state.run(task_id, 0)));
    // Each side's failure causes by test id.
    let causes: [BTreeMap<&str, String>; 2] = runs.map(|run| {
        let Some(run) = run else {
            return BTreeMap::new();
        };
        tests_of(run)
            .iter()
            .zip(test_causes(run))
            .filter_map(|(t, c)| {
                let (cause, name) = c?;
                let text = match name {
                    Some(n) => format!("{}: {n}", cause.as_str()),
                    None => cause.as_str().to_string(),
                };
                Some((t.id.as_str(), text))
            })
            .collect()
    });
    let cell = |k: usize, id: &str| -> Option<TestCell> {
        let t = runs[k]?.test(id)?;
        Some(TestCell {
            outcome: t.outcome,
            what: t
                .exc_type
                .clone()
                .filter(|_| is_failing(t.outcome))
                .unwrap_or_else(|| format!("{:?}", t.outcome)),
            message: t.message.as_deref().map(first_line).unwrap_or_default(),
            cause: causes[k].get(id).cloned(),
        })
    };
    let mut out: Vec<TestRow> = Vec::new();
    let mut seen = std::collections::BTreeSet::new();
    for run in runs.iter().flatten() {
        for t in tests_of(run) {
            if !seen.insert(t.id.as_str()) {
                continue;
            }
            let sides = [cell(0, &t.id), cell(1, &t.id)];
            if sides.iter().flatten().any(|c| is_failing(c.outcome)) {
                out.push(TestRow {
                    id: t.id.clone(),
                    sides,
                });
            }
        }
    }
    out
}

/// Each method's rounds on both sides, for generation runs that wrote methods one by one
/// (empty otherwise).
fn rounds(sessions: &[EvalSession], task_id: &str, ab: [usize; 2]) -> Vec<RoundRow> {
    let traces = ab.map(|i| {
        let s = sessions.get(i)?;
        Some((s.state.trace.task(task_id, 0)?, s.live))
    });
    // Methods written one by one (a holistic class has no rounds of its own).
    let mut names: Vec<&str> = Vec::new();
    for (t, _) in traces.iter().flatten().filter(|(t, _)| !t.whole_class) {
        for row in method_rows(t) {
            if !names.contains(&row.name) {
                names.push(row.name);
            }
        }
    }
    names
        .into_iter()
        .map(|name| RoundRow {
            method: name.to_string(),
            sides: traces.map(|tr| {
                let Some((t, live)) = tr else {
                    return MethodSide::default();
                };
                let judged = t.in_class(name);
                let code: Vec<String> = judged
                    .and_then(|m| m.code.as_deref())
                    .map_or(Vec::new(), |c| c.lines().map(str::to_string).collect());
                let outcome = judged.and_then(|m| m.outcome);
                if t.whole_class {
                    return MethodSide {
                        state: "whole class".into(),
                        rounds: Vec::new(),
                        code,
                        outcome,
                    };
                }
                let m = t.method(name);
                MethodSide {
                    code,
                    outcome,
                    state: if m.is_some() || t.prediction.is_some() || t.schedule.is_some() {
                        MethodState::of(m, live).label()
                    } else {
                        String::new()
                    },
                    rounds: m.map_or(Vec::new(), |m| {
                        m.rounds.iter().map(|r| (r.round, round_tests(r))).collect()
                    }),
                }
            }),
        })
        .collect()
}

impl State {
    /// `task_id` in sessions `a` and `b` of `sessions` (indices out of range show as
    /// missing sides, never panic).
    pub fn new(sessions: &[EvalSession], task_id: impl Into<String>, a: usize, b: usize) -> State {
        let mut st = State {
            task_id: task_id.into(),
            a,
            b,
            ..State::default()
        };
        st.rebuild(sessions);
        st
    }

    /// Compute everything again from `sessions` (the scroll is kept, clamped when drawn).
    pub fn rebuild(&mut self, sessions: &[EvalSession]) {
        let task = self.task_id.as_str();
        let code = |i: usize| {
            sessions
                .get(i)
                .and_then(|s| s.state.run(task, 0))
                .and_then(|r| r.code.as_deref())
                .unwrap_or("")
        };
        let (diff, unified, changes) = diff(code(self.a), code(self.b));
        self.added = unified.iter().filter(|r| r.sign == '+').count();
        self.removed = unified.iter().filter(|r| r.sign == '-').count();
        self.diff = diff;
        self.unified = unified;
        self.changes = changes;
        self.sides = [side(sessions, self.a, task), side(sessions, self.b, task)];
        self.tests = failing_tests(sessions, task, [self.a, self.b]);
        self.rounds = rounds(sessions, task, [self.a, self.b]);
        self.method = self.method.min(self.rounds.len().saturating_sub(1));
        if self.rounds.is_empty() && self.pane == Pane::Rounds {
            self.pane = Pane::Diff;
        }
        self.built = sessions
            .iter()
            .map(|s| (s.info.id.clone(), s.applied))
            .collect();
    }

    /// The panes there is something for.
    pub fn panes(&self) -> Vec<Pane> {
        Pane::ALL
            .into_iter()
            .filter(|p| *p != Pane::Rounds || !self.rounds.is_empty())
            .collect()
    }

    /// The diff's layout in a body `width` columns wide.
    pub fn mode(&self, width: u16) -> DiffMode {
        self.mode.unwrap_or(if width >= 120 {
            DiffMode::SideBySide
        } else {
            DiffMode::Unified
        })
    }
}
