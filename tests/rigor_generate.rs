//! Mutant generation on real references: every mutant of every ClassEval reference (and of
//! the RealClassEval slices) parses, lies inside the class, and changes the text; the counts
//! per operator are printed for docs/rigor.md.

mod common;

use std::collections::BTreeMap;

use classlab::corpus::ruff::RuffModule;
use classlab::dataset;
use classlab::rigor::{Operator, mutants};

fn check_dataset(path: &std::path::Path) -> (usize, usize, BTreeMap<Operator, usize>) {
    let ds = dataset::load_path(path).expect("dataset loads");
    let mut per_op = BTreeMap::new();
    let mut total = 0;
    for t in &ds.tasks {
        let ms = mutants(&t.solution, &t.class_name).unwrap_or_else(|e| panic!("{}: {e}", t.id));
        assert!(!ms.is_empty(), "{}: no mutants", t.id);
        for m in &ms {
            let text = m.apply(&t.solution).expect("span on char boundaries");
            assert_ne!(text, t.solution, "{}: {m:?} changes nothing", t.id);
            assert!(
                RuffModule::parse(&text).is_some(),
                "{}: mutant does not parse: {m:?}\n{}",
                t.id,
                m.diff(&t.solution).after
            );
            let d = m.diff(&t.solution);
            let line = t.solution.lines().nth(d.line - 1).unwrap_or("");
            assert_eq!(line.matches(&d.before).count(), 1, "{}: {m:?} {d:?}", t.id);
            assert!(m.lines.0 <= d.line && d.line <= m.lines.1.max(d.line));
            *per_op.entry(m.op).or_insert(0) += 1;
        }
        total += ms.len();
    }
    (ds.tasks.len(), total, per_op)
}

#[test]
fn every_classeval_mutant_parses_and_diffs_on_its_line() {
    let (tasks, total, per_op) = check_dataset(&common::classeval_json());
    eprintln!("ClassEval: {tasks} tasks, {total} mutants");
    for (op, n) in &per_op {
        eprintln!("  {op:<20} {n}");
    }
    assert_eq!(tasks, 100);
    assert!(
        per_op.len() == Operator::ALL.len(),
        "every operator applies somewhere: {per_op:?}"
    );
    assert!((4000..6000).contains(&total), "{total}");
}

#[test]
fn every_realclasseval_mutant_parses() {
    for slice in ["realclasseval/post_cut-off", "realclasseval/csn"] {
        let (tasks, total, _) = check_dataset(&common::shared_data(slice));
        eprintln!("{slice}: {tasks} tasks, {total} mutants");
        assert!(tasks >= 10);
    }
}
