//! `eval --only-killing-tests`: the session re-scored against only the tests that kill at
//! least one mutant of the task's reference (from `classlab rigor`'s store) — do the
//! model's passes survive when only tests that can tell a wrong class from the right one
//! count? A view: the session on disk is not changed.

use std::collections::{BTreeSet, HashMap};

use serde::Serialize;

use crate::dataset::Dataset;
use crate::metrics::fingerprint::Thresholds;
use crate::model::TaskIndex;
use crate::pipeline::eval::summarize;
use crate::rigor::lookup;
use crate::session::{EvalState, Event, EventBody, Scope, SessionLog};

/// What re-scoring kept.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Kept {
    /// Tasks re-scored.
    pub tasks: usize,
    /// Private tests of those tasks' runs kept, of all.
    pub tests_kept: usize,
    pub tests_total: usize,
    /// Tasks left out: no stored rigor, or no test of theirs kills a mutant.
    pub left_out: Vec<String>,
}

/// The session's events with every private run cut to its killing tests and each task's
/// summary judged again on them; tasks that cannot be re-scored are left out.
pub fn rescore(
    log: &SessionLog,
    ds: &Dataset,
    thresholds: &Thresholds,
    store: Option<&std::path::Path>,
) -> anyhow::Result<(EvalState, Kept)> {
    let store = store.map_or_else(crate::rigor::store::default_path, Into::into);
    let stored = lookup::stored_or_explain(&ds.tasks, &store)?;
    let killing: HashMap<&str, BTreeSet<String>> = stored
        .iter()
        .map(|(id, r)| (id.as_str(), lookup::killing_tests(r)))
        .filter(|(_, k)| !k.is_empty())
        .collect();
    let index = TaskIndex::of(&ds.tasks);
    let mut kept = Kept::default();
    let mut left_out: BTreeSet<String> = BTreeSet::new();
    let mut cut: HashMap<(String, u32), crate::model::SuiteResult> = HashMap::new();
    let mut events: Vec<Event> = Vec::with_capacity(log.events.len());
    for e in &log.events {
        let mut e = e.clone();
        if let Some((task, _)) = e.body.task()
            && !killing.contains_key(task)
        {
            left_out.insert(task.to_string());
            continue;
        }
        match &mut e.body {
            EventBody::RunStarted { tasks, .. } => {
                for t in tasks.iter().filter(|t| !killing.contains_key(t.as_str())) {
                    left_out.insert(t.clone());
                }
                tasks.retain(|t| killing.contains_key(t.as_str()));
            }
            EventBody::TestRun {
                task_id,
                sample,
                scope: Scope::Private,
                result,
                ..
            } => {
                let k = &killing[task_id.as_str()];
                kept.tests_total += result.tests.len();
                result.tests.retain(|t| k.contains(&t.id));
                kept.tests_kept += result.tests.len();
                cut.insert((task_id.clone(), *sample), result.clone());
            }
            EventBody::TaskFinished {
                task_id,
                sample,
                summary,
            } => {
                if let (Some(result), Some(task)) = (
                    cut.get(&(task_id.clone(), *sample)),
                    index.get(&ds.tasks, task_id),
                ) {
                    // Test classes without a killing test are gone, not "none ran".
                    let k = &killing[task_id.as_str()];
                    let mut task = task.clone();
                    task.test_classes
                        .retain(|c| k.iter().any(|id| id.split('.').next() == Some(c.trim())));
                    *summary = summarize(&task, result, thresholds);
                    kept.tasks += 1;
                }
            }
            _ => {}
        }
        events.push(e);
    }
    kept.left_out = left_out.into_iter().collect();
    Ok((EvalState::from_events(&events), kept))
}
