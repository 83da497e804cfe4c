//! Stored rigor results of a dataset's tasks, for what reads them without computing: `report
//! --by branch_coverage|mutation_score`, `eval --only-killing-tests`, the curation gates. A
//! task's newest result for its current reference and tests is used, whatever interpreter or
//! options made it.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::Path;

use super::plan::subject_digest;
use super::result::TaskRigor;
use super::run::{Status, Subject};
use super::store::{Store, StoreError};
use crate::model::Task;

/// Task properties rigor provides (`report --by`).
pub const PROPERTIES: [&str; 3] = ["branch_coverage", "line_coverage", "mutation_score"];

/// A rigor property of a task's result: coverage in percent, the score as a fraction.
pub fn property(r: &TaskRigor, name: &str) -> Option<f64> {
    match name {
        "branch_coverage" => r.branch(),
        "line_coverage" => r.coverage.as_ref().and_then(|c| c.line),
        "mutation_score" => r.score(),
        _ => None,
    }
}

/// The tests that kill at least one mutant (by failing or timing out on it).
pub fn killing_tests(r: &TaskRigor) -> BTreeSet<String> {
    r.mutants
        .iter()
        .filter(|m| matches!(m.outcome.status, Status::Killed | Status::Timeout))
        .filter_map(|m| m.outcome.by.clone())
        .collect()
}

/// The newest stored result of each task (by id) that has one.
pub fn stored(store: &Store, tasks: &[Task]) -> Result<HashMap<String, TaskRigor>, StoreError> {
    let mut out = HashMap::new();
    for t in tasks {
        let digest = subject_digest(&Subject::of_task(t));
        if let Some(r) = store.latest(&t.id, &digest)? {
            out.insert(t.id.clone(), r);
        }
    }
    Ok(out)
}

/// Why stored rigor could not be read.
#[derive(Debug, thiserror::Error)]
pub enum LookupError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(
        "no rigor results for the tasks of this dataset in {store}: run `classlab rigor` on it \
         first (same --dataset{hint})"
    )]
    Nothing { store: String, hint: String },
}

/// `name`'s value for every task with a stored result; `None` when `name` is not a rigor
/// property. An error when the store holds nothing for these tasks.
pub fn property_values(
    tasks: &[Task],
    name: &str,
    store_path: &Path,
) -> Result<Option<BTreeMap<String, f64>>, LookupError> {
    if !PROPERTIES.contains(&name) {
        return Ok(None);
    }
    let all = stored_or_explain(tasks, store_path)?;
    Ok(Some(
        all.iter()
            .filter_map(|(id, r)| Some((id.clone(), property(r, name)?)))
            .collect(),
    ))
}

/// Every stored result for `tasks`; an error naming the store when there is none.
pub fn stored_or_explain(
    tasks: &[Task],
    store_path: &Path,
) -> Result<HashMap<String, TaskRigor>, LookupError> {
    let nothing = || LookupError::Nothing {
        store: store_path.display().to_string(),
        hint: if store_path == super::store::default_path() {
            String::new()
        } else {
            format!(", --store {}", store_path.display())
        },
    };
    if !store_path.exists() {
        return Err(nothing());
    }
    let store = Store::open(store_path)?;
    let all = stored(&store, tasks)?;
    if all.is_empty() {
        return Err(nothing());
    }
    Ok(all)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rigor::run::{Analysis, Outcome};
    use crate::rigor::{Mutant, Operator};

    #[test]
    fn killing_tests_and_properties() {
        let m = Mutant {
            op: Operator::Constant,
            start: 4,
            end: 5,
            replacement: "2".into(),
            context: (4, 5),
            lines: (1, 1),
            scope: None,
        };
        let o = |status, by: Option<&str>| Outcome {
            status,
            by: by.map(String::from),
            how: None,
            tests_run: 1,
            seconds: 0.0,
        };
        let a = Analysis {
            outcomes: vec![
                o(Status::Killed, Some("T.test_a")),
                o(Status::Timeout, Some("T.test_b")),
                o(Status::Killed, None),
                o(Status::Survived, None),
            ],
            ..Analysis::default()
        };
        let r = TaskRigor::new("t", "x = 1\n", vec![m; 4], a);
        assert_eq!(
            killing_tests(&r).into_iter().collect::<Vec<_>>(),
            ["T.test_a", "T.test_b"]
        );
        assert_eq!(property(&r, "mutation_score"), Some(0.75));
        assert_eq!(property(&r, "branch_coverage"), None);
        assert_eq!(property(&r, "loc"), None);
    }
}
