//! Rigor results as the TUI holds them (the task view's Rigor tab, the summary's histograms):
//! what arrived by task, what is being looked up or computed, what failed. Screens ask with
//! [`RigorUi::want`], which returns the effect to run; the background job (`jobs_rigor.rs`)
//! answers with [`RigorNews`] as each task arrives.

use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;

use super::effect::Effect;
use crate::rigor::TaskRigor;

/// What the background rigor job reports.
#[derive(Debug, Clone)]
pub enum RigorNews {
    /// A task's result (from the store, or just computed and stored).
    Result { task: usize, result: Arc<TaskRigor> },
    /// A task could not be analysed.
    Failed { task: usize, error: String },
    /// One more mutant of a task in flight was decided.
    Mutant { task: usize },
    /// The job ended (every task asked for is in, failed, or the job was replaced).
    Ended { error: Option<String> },
}

#[derive(Debug, Default)]
pub struct RigorUi {
    pub results: HashMap<usize, Arc<TaskRigor>>,
    /// Asked for, not in yet, in the order to compute them.
    pub pending: Vec<usize>,
    pub failed: HashMap<usize, String>,
    /// Mutants decided so far for tasks in flight.
    pub progress: HashMap<usize, usize>,
    /// A job is running.
    pub running: bool,
    /// Why the last job could not run at all (no sandbox, no store).
    pub error: Option<String>,
    /// The dataset's histograms, kept up to date as results arrive (drawn in O(1)).
    pub hist: Histograms,
}

/// Tasks per tenth of branch coverage and of mutation score (the last bin holds 100 %).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Histograms {
    pub branch: [usize; 10],
    pub score: [usize; 10],
    /// Tasks measured without a branch (branch coverage `null`).
    pub no_branches: usize,
    pub branch_sum: f64,
    pub score_sum: f64,
    pub scored: usize,
    pub measured: usize,
}

fn bin(fraction: f64) -> usize {
    ((fraction * 10.0).floor().max(0.0) as usize).min(9)
}

impl Histograms {
    fn add(&mut self, r: &TaskRigor, sign: isize) {
        let step = |n: &mut usize| *n = n.saturating_add_signed(sign);
        step(&mut self.measured);
        let s = sign as f64;
        match r.branch() {
            Some(b) => {
                step(&mut self.branch[bin(b / 100.0)]);
                self.branch_sum += s * b;
            }
            None if r.coverage.is_some() => step(&mut self.no_branches),
            None => {}
        }
        if let Some(x) = r.score() {
            step(&mut self.score[bin(x)]);
            step(&mut self.scored);
            self.score_sum += s * x;
        }
    }

    /// Tasks with a branch coverage figure.
    pub fn with_branches(&self) -> usize {
        self.branch.iter().sum()
    }
}

impl RigorUi {
    /// Ask for `tasks` (first in line): the effect that (re)starts the job with them before
    /// the ones still pending, or `None` when every one is in, failed, or already first.
    pub fn want(&mut self, tasks: &[usize]) -> Option<Effect> {
        let new: Vec<usize> = tasks
            .iter()
            .copied()
            .filter(|t| !self.results.contains_key(t) && !self.failed.contains_key(t))
            .collect();
        if new.is_empty() || (self.running && self.pending.starts_with(&new)) {
            return None;
        }
        let fresh: BTreeSet<usize> = new.iter().copied().collect();
        let mut order = new;
        order.extend(self.pending.iter().copied().filter(|t| !fresh.contains(t)));
        self.pending = order.clone();
        self.running = true;
        Some(Effect::Rigor { tasks: order })
    }

    /// Ask again for a task that failed (or to recompute nothing: stored results stay).
    pub fn retry(&mut self, task: usize) -> Option<Effect> {
        self.failed.remove(&task);
        self.want(&[task])
    }

    pub fn apply(&mut self, news: &RigorNews) {
        match news {
            RigorNews::Result { task, result } => {
                if let Some(old) = self.results.insert(*task, Arc::clone(result)) {
                    self.hist.add(&old, -1);
                }
                self.hist.add(result, 1);
                self.pending.retain(|t| t != task);
                self.progress.remove(task);
            }
            RigorNews::Failed { task, error } => {
                self.failed.insert(*task, error.clone());
                self.pending.retain(|t| t != task);
                self.progress.remove(task);
            }
            RigorNews::Mutant { task } => *self.progress.entry(*task).or_insert(0) += 1,
            RigorNews::Ended { error } => {
                self.running = false;
                self.error.clone_from(error);
                self.progress.clear();
            }
        }
    }

    /// Values of `f` over the tasks that have a result.
    pub fn values(&self, f: impl Fn(&TaskRigor) -> Option<f64>) -> Vec<f64> {
        self.results.values().filter_map(|r| f(r)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn result(id: &str) -> Arc<TaskRigor> {
        Arc::new(TaskRigor::new(id, "", Vec::new(), Default::default()))
    }

    #[test]
    fn wanted_tasks_go_first_and_arrivals_leave_the_queue() {
        let mut ui = RigorUi::default();
        assert_eq!(
            ui.want(&[1, 2, 3]),
            Some(Effect::Rigor {
                tasks: vec![1, 2, 3]
            })
        );
        assert_eq!(ui.want(&[1]), None, "already first");
        assert_eq!(
            ui.want(&[3]),
            Some(Effect::Rigor {
                tasks: vec![3, 1, 2]
            })
        );
        ui.apply(&RigorNews::Mutant { task: 3 });
        assert_eq!(ui.progress[&3], 1);
        ui.apply(&RigorNews::Result {
            task: 3,
            result: result("c"),
        });
        ui.apply(&RigorNews::Failed {
            task: 1,
            error: "boom".into(),
        });
        assert_eq!(ui.pending, [2]);
        assert_eq!(ui.want(&[3, 1]), None, "in, or failed");
        assert_eq!(ui.retry(1), Some(Effect::Rigor { tasks: vec![1, 2] }));
        ui.apply(&RigorNews::Ended { error: None });
        assert!(!ui.running && ui.progress.is_empty());
    }
}
