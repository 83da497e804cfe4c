//! Line coverage of the reference by its tests, from coverage.py's per-line data and the
//! method line ranges tree-sitter finds in the reference. Pure.
//!
//! A method's lines are its body (the `def` line and decorators run when the class is
//! defined, whatever the tests do); docstrings are no statements to coverage.py. The class's
//! line and branch coverage are not computed here: `validate` takes them from `classlab
//! rigor`'s measurement (one code path for both commands).

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use super::{SuiteKey, SuiteRuns};
use crate::analysis::parse_module;
use crate::model::Task;

/// Coverage figures of a task, in percent (one decimal); `None` where not measured.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct CoverageOut {
    /// Line coverage of the reference module by the private tests: `classlab rigor`'s figure
    /// (coverage.py, `covered_lines / num_statements`), from the same code path.
    pub class: Option<f64>,
    /// Branch coverage of the reference module by the private tests, as `rigor` reports it
    /// (`None` without branches or when not measured).
    #[serde(default)]
    pub branch: Option<f64>,
    /// Each target method, by its own public tests.
    pub methods: BTreeMap<String, Option<f64>>,
    /// Each target method, by the private tests.
    pub private_methods: BTreeMap<String, Option<f64>>,
}

pub(crate) fn round1(x: f64) -> f64 {
    (x * 10.0).round() / 10.0
}

/// Body line ranges (1-based, inclusive) of the class's methods, by name (a property's getter
/// and setter share a name, so a name may have several ranges).
pub fn method_ranges(solution: &str, class: &str) -> Option<BTreeMap<String, Vec<(usize, usize)>>> {
    let module = parse_module(solution);
    let class = module.class(class)?;
    let mut out: BTreeMap<String, Vec<(usize, usize)>> = BTreeMap::new();
    for m in &class.methods {
        let before = solution.get(..m.body_start_byte.min(solution.len()))?;
        let first = before.matches('\n').count() + 1;
        out.entry(m.name.clone())
            .or_default()
            .push((first, m.end_line.max(first)));
    }
    Some(out)
}

/// Statements and executed lines of a suite's code file, both runs pooled; `None` when
/// neither run measured it.
fn measured(s: &SuiteRuns) -> Option<(BTreeSet<usize>, BTreeSet<usize>)> {
    let mut stmts = BTreeSet::new();
    let mut executed = BTreeSet::new();
    let mut any = false;
    for r in &s.runs {
        if let Some(f) = r.probe.coverage.first() {
            any = true;
            stmts.extend(f.statements.iter().copied());
            executed.extend(f.executed.iter().copied());
        }
    }
    any.then_some((stmts, executed))
}

/// Percent of the statements within `ranges` that ran; `None` when there are none.
pub fn percent(
    stmts: &BTreeSet<usize>,
    executed: &BTreeSet<usize>,
    ranges: &[(usize, usize)],
) -> Option<f64> {
    let inside = |l: &usize| ranges.iter().any(|(a, b)| a <= l && l <= b);
    let total = stmts.iter().filter(|l| inside(l)).count();
    let hit = stmts
        .iter()
        .filter(|l| inside(l) && executed.contains(l))
        .count();
    (total > 0).then(|| round1(100.0 * hit as f64 / total as f64))
}

/// Coverage of the task's methods (the class's is rigor's), and notes on what could not be measured.
pub fn task_coverage(task: &Task, suites: &[SuiteRuns]) -> (CoverageOut, Vec<String>) {
    let mut notes = Vec::new();
    for s in suites {
        for r in &s.runs {
            if let Some(e) = &r.probe.coverage_error {
                let n = format!("coverage not measured: {e}");
                if !notes.contains(&n) {
                    notes.push(n);
                }
            }
        }
    }
    let mut out = CoverageOut::default();
    let names: Vec<&str> = task.method_names();
    for m in &names {
        out.methods.insert(m.to_string(), None);
        out.private_methods.insert(m.to_string(), None);
    }
    let Some(ranges) = method_ranges(&task.solution, &task.class_name) else {
        if suites.iter().any(|s| measured(s).is_some()) {
            notes.push(format!(
                "coverage per method unavailable: class `{}` not found in the reference",
                task.class_name
            ));
        }
        return (out, notes);
    };
    let of = |m: &str| ranges.get(m).map(Vec::as_slice).unwrap_or(&[]);
    for s in suites {
        let Some((stmts, executed)) = measured(s) else {
            continue;
        };
        match &s.key {
            SuiteKey::Private => {
                for m in &names {
                    out.private_methods
                        .insert(m.to_string(), percent(&stmts, &executed, of(m)));
                }
            }
            SuiteKey::Public(m) => {
                out.methods
                    .insert(m.clone(), percent(&stmts, &executed, of(m)));
            }
        }
    }
    (out, notes)
}
