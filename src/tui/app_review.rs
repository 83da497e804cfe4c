//! The review queue: tasks with their curation status and lint findings, filtered by status,
//! rule code and severity; decisions go through the pure machine of `curate::review` (via
//! `curate::act`) on the in-memory store, and are persisted by an [`Effect::SaveReview`] that
//! `jobs` carries out under the store's lock.

use std::collections::BTreeMap;
use std::path::PathBuf;

use super::action::Action;
use super::app::{App, Effect, Level, Screen, scrolled};
use crate::analysis::lint::{Finding, Part, Severity};
use crate::curate::review::Validation;
use crate::curate::{self, CurationStore, ReviewAction, Status, ValidationRecord};

/// What the load job reads: the store and every dataset task's findings (same order).
#[derive(Debug, Clone, Default)]
pub struct ReviewData {
    pub store: CurationStore,
    pub findings: Vec<Vec<Finding>>,
    /// Why the store could not be read (the queue then starts from an empty store).
    pub error: Option<String>,
}

/// A decision taken on every task of the filtered queue.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bulk {
    Approve,
    Reject,
    NeedsWork,
    /// Validate every task of the filtered queue in the background, a few at a time.
    Validate,
}

/// What the small text input is asking for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ask {
    /// The reject reason (for the selected task, or for all filtered when bulk).
    Reject {
        bulk: bool,
    },
    Note,
    /// Why the failing gates may be let pass.
    Override,
    /// A rule code to filter by (empty: any).
    Rule,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Input {
    pub ask: Ask,
    pub text: String,
}

#[derive(Debug, Clone, Default)]
pub struct ReviewUi {
    /// Where the decisions live (`classlab tui` passes the store the headless commands use;
    /// `None`: see [`Self::path`]).
    pub store_path: Option<PathBuf>,
    /// The default store's path once resolved: it hashes the whole dataset, which must not
    /// happen again on every decision written (and the store stays the one opened).
    resolved_path: std::cell::OnceCell<PathBuf>,
    pub data: Option<ReviewData>,
    pub req: u64,
    pub status_filter: Option<Status>,
    pub severity_filter: Option<Severity>,
    pub rule_filter: String,
    /// Dataset indices shown, in order.
    pub visible: Vec<usize>,
    pub selected: usize,
    pub offset: usize,
    /// What the code pane shows (Tab): 0 skeleton, 1 solution, 2 tests, then of the selected
    /// method 3 its docstring, 4 its test class, 5 its public tests.
    pub part: usize,
    pub input: Option<Input>,
    /// A bulk decision waiting for a yes.
    pub confirm: Option<Bulk>,
    /// A save is under way.
    pub saving: bool,
    /// Tasks whose edit the next save writes: lint and validate them again once it is.
    pub revalidate: Vec<String>,
    /// Show the edited part as a diff against the dataset's text.
    pub diff: bool,
    /// The selected target method (index into the task's methods): its coverage is shown.
    pub method: usize,
    /// Tasks being validated in the background: id → the newest request's number.
    pub validating: BTreeMap<String, u64>,
    /// The last validation request's number.
    pub validate_req: u64,
    /// Tasks waiting for their background validation (`V`): started as others end, at most
    /// [`super::app_review_validate::AT_ONCE`] at a time.
    pub validate_queue: std::collections::VecDeque<String>,
    /// The checklist of private tests to promote to public tests.
    pub promote: Option<super::app_review_edit::Promote>,
    /// What validation says about each dataset task as it now stands (refreshed with the
    /// queue).
    pub validation: Vec<Validation>,
}

/// The lint part of each task-level part (findings are marked in these).
pub const PARTS: [Part; 3] = [Part::Skeleton, Part::Solution, Part::Tests];
/// Parts Tab cycles through: three task-level, three of the selected method.
pub const KINDS: usize = 6;

impl ReviewUi {
    /// The store of `dataset`: `store_path` (what `classlab` passes: the store `classlab
    /// curate` uses), else where `classlab curate` would look ([`curate::store::default_path`]).
    pub fn path(&self, dataset: &crate::dataset::Dataset) -> PathBuf {
        if let Some(path) = &self.store_path {
            return path.clone();
        }
        self.resolved_path
            .get_or_init(|| {
                let origin = &dataset.origin;
                let file =
                    (origin != crate::dataset::SAMPLE_NAME).then(|| std::path::Path::new(origin));
                let digest = file
                    .map(|_| crate::dataset::digest(dataset))
                    .unwrap_or_default();
                curate::store::default_path(None, file, &digest, None)
            })
            .clone()
    }

    /// The dataset index of the selected task.
    pub fn selected_task(&self) -> Option<usize> {
        self.visible.get(self.selected).copied()
    }

    pub fn findings(&self, idx: usize) -> &[Finding] {
        self.data
            .as_ref()
            .and_then(|d| d.findings.get(idx))
            .map_or(&[], Vec::as_slice)
    }

    /// The last validation recorded for a task (it may be stale: see [`Self::validation`]).
    pub fn validation_record(&self, task_id: &str) -> Option<&ValidationRecord> {
        self.data
            .as_ref()
            .and_then(|d| d.store.tasks.get(task_id))
            .and_then(|r| r.validation.as_ref())
    }

    pub fn status_of(&self, task_id: &str) -> Status {
        self.data
            .as_ref()
            .and_then(|d| d.store.tasks.get(task_id))
            .map_or(Status::Unreviewed, |r| r.review.status)
    }

    /// The filters as one line, for the pane title.
    pub fn filter_label(&self) -> String {
        let mut parts = Vec::new();
        if let Some(s) = self.status_filter {
            parts.push(format!("status {s}"));
        }
        if let Some(s) = self.severity_filter {
            parts.push(format!("severity {}", s.as_str()));
        }
        if !self.rule_filter.is_empty() {
            parts.push(format!("rule {}", self.rule_filter));
        }
        parts.join(" · ")
    }
}

/// Counts of a task's findings: errors, warnings, infos.
pub fn counts(findings: &[Finding]) -> [usize; 3] {
    let mut out = [0; 3];
    for f in findings {
        out[match f.severity {
            Severity::Error => 0,
            Severity::Warning => 1,
            Severity::Info => 2,
        }] += 1;
    }
    out
}

fn next_status(s: Option<Status>) -> Option<Status> {
    match s {
        None => Some(Status::ALL[0]),
        Some(s) => {
            let i = Status::ALL.iter().position(|x| *x == s).unwrap_or(0);
            Status::ALL.get(i + 1).copied()
        }
    }
}

fn next_severity(s: Option<Severity>) -> Option<Severity> {
    match s {
        None => Some(Severity::Error),
        Some(Severity::Error) => Some(Severity::Warning),
        Some(Severity::Warning) => Some(Severity::Info),
        Some(Severity::Info) => None,
    }
}

impl App {
    pub(super) fn show_review(&mut self) -> Vec<Effect> {
        self.overlay = None;
        self.screen = Screen::Review;
        self.review.req += 1;
        vec![Effect::LoadReview {
            req: self.review.req,
            path: self.review.path(&self.sh.data.dataset),
        }]
    }

    /// Rows of the queue visible now.
    pub fn review_page(&self) -> usize {
        super::views::review_view::page(self.sh.chrome().body)
    }

    /// What validation says about every task as it now stands in the store.
    fn refresh_validation(&mut self) {
        let Some(data) = &self.review.data else {
            self.review.validation.clear();
            return;
        };
        self.review.validation = self
            .sh
            .data
            .dataset
            .tasks
            .iter()
            .map(|t| {
                let record = data.store.tasks.get(&t.id);
                curate::gates::validation(&curate::edited_task(&data.store, t), record)
            })
            .collect();
    }

    pub(super) fn refilter_review(&mut self) {
        self.refresh_validation();
        let keep = self.review.selected_task();
        let r = &self.review;
        let visible: Vec<usize> = self
            .sh
            .data
            .dataset
            .tasks
            .iter()
            .enumerate()
            .filter(|(i, t)| {
                let findings = r.findings(*i);
                r.status_filter.is_none_or(|s| r.status_of(&t.id) == s)
                    && r.severity_filter
                        .is_none_or(|s| findings.iter().any(|f| f.severity == s))
                    && (r.rule_filter.is_empty()
                        || findings
                            .iter()
                            .any(|f| f.code.eq_ignore_ascii_case(r.rule_filter.trim())))
            })
            .map(|(i, _)| i)
            .collect();
        self.review.selected = keep
            .and_then(|k| visible.iter().position(|&i| i == k))
            .unwrap_or(0);
        self.review.visible = visible;
        self.clamp_review();
        if self.review.selected_task() != keep {
            self.review.method = 0;
        }
    }

    /// The selected task's target methods.
    pub fn review_methods(&self) -> Vec<&str> {
        self.review
            .selected_task()
            .and_then(|i| self.sh.data.dataset.tasks.get(i))
            .map(|t| t.method_names())
            .unwrap_or_default()
    }

    /// The selected method's name, if the task has methods.
    pub fn review_method(&self) -> Option<&str> {
        let methods = self.review_methods();
        methods
            .get(self.review.method.min(methods.len().saturating_sub(1)))
            .copied()
    }

    fn step_method(&mut self, forward: bool) {
        let n = self.review_methods().len();
        if n == 0 {
            self.sh
                .set_status(Level::Info, "the task has no target methods");
            return;
        }
        let m = self.review.method.min(n - 1);
        self.review.method = if forward {
            (m + 1) % n
        } else {
            (m + n - 1) % n
        };
    }

    pub(super) fn clamp_review(&mut self) {
        let len = self.review.visible.len();
        let page = self.review_page();
        let r = &mut self.review;
        r.selected = r.selected.min(len.saturating_sub(1));
        if r.selected < r.offset {
            r.offset = r.selected;
        } else if r.selected >= r.offset + page {
            r.offset = r.selected + 1 - page;
        }
    }

    pub(super) fn update_review(&mut self, action: Action) -> Vec<Effect> {
        if self.review.input.is_some() {
            return self.update_review_input(action);
        }
        if self.review.promote.is_some() {
            return self.update_promote(action);
        }
        if let Some(bulk) = self.review.confirm {
            self.review.confirm = None;
            return match action {
                Action::Submit => self.bulk(bulk, None),
                _ => {
                    self.sh.set_status(Level::Info, "nothing changed");
                    Vec::new()
                }
            };
        }
        match action {
            Action::Back | Action::Close => self.screen = Screen::List,
            Action::NextTab => self.step_part(true),
            Action::PrevTab => self.step_part(false),
            Action::ReviewDraftPublic => return self.draft_public_tests(),
            Action::ReviewPromote => self.open_promote(),
            Action::NextMethod => self.step_method(true),
            Action::PrevMethod => self.step_method(false),
            Action::CycleStatusFilter => {
                self.review.status_filter = next_status(self.review.status_filter);
                self.refilter_review();
            }
            Action::CycleSeverityFilter => {
                self.review.severity_filter = next_severity(self.review.severity_filter);
                self.refilter_review();
            }
            Action::StartFilter => self.ask(Ask::Rule, self.review.rule_filter.clone()),
            Action::ReviewApprove => {
                return self.decide_selected(ReviewAction::Approve { comment: None });
            }
            Action::ReviewNeedsWork => {
                return self.decide_selected(ReviewAction::NeedsWork { reason: None });
            }
            Action::ReviewReject => self.ask(Ask::Reject { bulk: false }, String::new()),
            Action::ReviewNote => self.ask(Ask::Note, String::new()),
            Action::ReviewOverride => self.ask(Ask::Override, String::new()),
            Action::ReviewEdit => return self.edit_selected(),
            Action::ReviewValidate => return self.validate_selected(),
            Action::ReviewDiff => self.review.diff = !self.review.diff,
            Action::ReviewBulk(bulk) => {
                let n = self.review.visible.len();
                if n == 0 {
                    self.sh
                        .set_status(Level::Info, "the filtered queue is empty");
                } else if bulk == Bulk::Reject {
                    self.ask(Ask::Reject { bulk: true }, String::new());
                } else {
                    let what = match bulk {
                        Bulk::Approve => "approve",
                        Bulk::Validate => "validate (in the background)",
                        _ => "mark as needing work",
                    };
                    self.review.confirm = Some(bulk);
                    self.sh.set_status(
                        Level::Warn,
                        format!("{what} all {n} tasks of the filtered queue? y / n"),
                    );
                }
            }
            other => {
                let page = self.review_page();
                let max = self.review.visible.len().saturating_sub(1);
                let before = self.review.selected;
                self.review.selected = scrolled(self.review.selected, &other, page, max);
                self.clamp_review();
                if self.review.selected != before {
                    self.review.method = 0;
                }
            }
        }
        Vec::new()
    }

    fn ask(&mut self, ask: Ask, text: String) {
        if ask != Ask::Rule && self.review.selected_task().is_none() {
            self.sh.set_status(Level::Info, "no task selected");
            return;
        }
        self.review.input = Some(Input { ask, text });
    }

    fn update_review_input(&mut self, action: Action) -> Vec<Effect> {
        let Some(input) = self.review.input.as_mut() else {
            return Vec::new();
        };
        match action {
            Action::Input(c) => input.text.push(c),
            Action::Backspace => {
                input.text.pop();
            }
            Action::ClearInput => input.text.clear(),
            Action::Back | Action::Close => self.review.input = None,
            Action::Submit => {
                let Some(Input { ask, text }) = self.review.input.take() else {
                    return Vec::new();
                };
                return match ask {
                    Ask::Rule => {
                        self.review.rule_filter = text.trim().to_uppercase();
                        self.refilter_review();
                        Vec::new()
                    }
                    Ask::Reject { bulk: true } => self.bulk(Bulk::Reject, Some(text)),
                    Ask::Reject { bulk: false } => {
                        self.decide_selected(ReviewAction::Reject { reason: text })
                    }
                    Ask::Note => self.decide_selected(ReviewAction::Note { text }),
                    Ask::Override => self.override_selected(text),
                };
            }
            _ => {}
        }
        Vec::new()
    }

    /// Run `actions` (task index, action) through the machine on the in-memory store; the
    /// accepted ones are persisted together. Refusals are reported.
    pub(super) fn decide(&mut self, actions: Vec<(usize, ReviewAction)>) -> Vec<Effect> {
        let stamp = curate::stamp_now();
        let Some(data) = self.review.data.as_mut() else {
            self.sh
                .set_status(Level::Info, "the curation store is still loading");
            return Vec::new();
        };
        let mut ops = Vec::new();
        let mut refusals = Vec::new();
        for (idx, action) in actions {
            let Some(task) = self.sh.data.dataset.tasks.get(idx) else {
                continue;
            };
            match curate::act(&mut data.store, task, action.clone(), &stamp) {
                Ok(effects) => {
                    if effects.contains(&curate::Effect::Revalidate)
                        && !self.review.revalidate.contains(&task.id)
                    {
                        self.review.revalidate.push(task.id.clone());
                    }
                    ops.push((task.id.clone(), action));
                }
                Err(why) => refusals.push(format!("{}: {why}", task.id)),
            }
        }
        let done = ops.len();
        if refusals.is_empty() {
            let what = if done == 1 { "task" } else { "tasks" };
            self.sh
                .set_status(Level::Info, format!("{done} {what} updated; saving…"));
        } else {
            let mut text = refusals.join(" · ");
            if refusals.len() == 1 && !text.contains("override") && text.contains("cannot approve")
            {
                text.push_str(" (o: override with a reason)");
            }
            if done > 0 {
                text = format!("{done} updated; refused: {text}");
            }
            self.sh.set_status(Level::Error, text);
        }
        self.refilter_review();
        if ops.is_empty() {
            return Vec::new();
        }
        self.review.saving = true;
        vec![Effect::SaveReview {
            path: self.review.path(&self.sh.data.dataset),
            ops,
            stamp,
        }]
    }

    fn decide_selected(&mut self, action: ReviewAction) -> Vec<Effect> {
        match self.review.selected_task() {
            Some(idx) => self.decide(vec![(idx, action)]),
            None => Vec::new(),
        }
    }

    fn bulk(&mut self, bulk: Bulk, reason: Option<String>) -> Vec<Effect> {
        let action = match bulk {
            Bulk::Approve => ReviewAction::Approve { comment: None },
            Bulk::Reject => ReviewAction::Reject {
                reason: reason.unwrap_or_default(),
            },
            Bulk::NeedsWork => ReviewAction::NeedsWork { reason: None },
            Bulk::Validate => return self.validate_all(),
        };
        let all = self.review.visible.iter().map(|&i| (i, action.clone()));
        self.decide(all.collect())
    }

    /// Override every gate that blocks the selected task's approval, with `reason`.
    fn override_selected(&mut self, reason: String) -> Vec<Effect> {
        let (Some(idx), Some(data)) = (self.review.selected_task(), self.review.data.as_ref())
        else {
            return Vec::new();
        };
        let Some(task) = self.sh.data.dataset.tasks.get(idx) else {
            return Vec::new();
        };
        let gates = curate::task_gates(&data.store, task);
        let blocking = curate::review::blocking(&data.store.review(&task.id), &gates);
        if blocking.is_empty() {
            self.sh
                .set_status(Level::Info, "no gate blocks this task's approval");
            return Vec::new();
        }
        let actions = blocking
            .into_iter()
            .map(|f| {
                (
                    idx,
                    ReviewAction::Override {
                        gate: f.gate,
                        reason: reason.clone(),
                    },
                )
            })
            .collect();
        self.decide(actions)
    }

    /// The gates that block the approval of task `idx` now, one line each; from the queue's
    /// findings and validation states (drawn every frame: nothing is linted or hashed here).
    pub fn review_blocking(&self, idx: usize) -> Vec<String> {
        let (Some(data), Some(task)) = (&self.review.data, self.sh.data.dataset.tasks.get(idx))
        else {
            return Vec::new();
        };
        let validation = (self.review.validation.get(idx).cloned())
            .unwrap_or(curate::review::Validation::Unknown);
        let findings = self.review.findings(idx).to_vec();
        let edited = curate::edited_task(&data.store, task);
        let gates = curate::gates::gates_from(&edited, validation, findings);
        curate::review::blocking(&data.store.review(&task.id), &gates)
            .into_iter()
            .map(|f| f.to_string())
            .collect()
    }

    pub(super) fn update_review_background(&mut self, action: Action) -> Vec<Effect> {
        match action {
            Action::ReviewEdited {
                task_id,
                target,
                result,
            } => match result {
                Ok(text) => return self.edited(&task_id, &target, text),
                Err(e) => self.sh.set_status(Level::Error, e),
            },
            Action::ReviewLoaded { req, loaded } if req == self.review.req => {
                let loaded: ReviewData = loaded.take();
                if let Some(e) = &loaded.error {
                    self.sh.set_status(Level::Error, e.clone());
                }
                self.review.data = Some(loaded);
                self.refilter_review();
            }
            Action::ReviewValidated {
                req,
                task_id,
                result,
            } => return self.validated(req, task_id, result),
            Action::ReviewSaved { store, error } => {
                self.review.saving = false;
                let revalidate = std::mem::take(&mut self.review.revalidate);
                match error {
                    Some(e) => self.sh.set_status(Level::Error, format!("not saved: {e}")),
                    None => {
                        if let (Some(store), Some(data)) = (store, self.review.data.as_mut()) {
                            data.store = store.take();
                        }
                        if self.screen == Screen::Review
                            && self
                                .sh
                                .status
                                .as_ref()
                                .is_some_and(|s| s.text.ends_with("saving…"))
                        {
                            self.sh.set_status(Level::Info, "saved");
                        }
                        self.refilter_review();
                        if !revalidate.is_empty() {
                            // Lint again (the whole queue is read back) and validate again.
                            if self.sh.status.as_ref().is_some_and(|s| s.text == "saved") {
                                self.sh.set_status(
                                    Level::Info,
                                    "saved; linting and validating again in the background…",
                                );
                            }
                            self.review.req += 1;
                            let mut effects = vec![Effect::LoadReview {
                                req: self.review.req,
                                path: self.review.path(&self.sh.data.dataset),
                            }];
                            for id in revalidate {
                                effects.push(self.validate_effect(id));
                            }
                            return effects;
                        }
                    }
                }
            }
            _ => {}
        }
        Vec::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_store_is_resolved_once_and_stays_the_one_opened() {
        let mut dataset = crate::dataset::sample();
        dataset.origin = "/data/tasks.json".into();
        let review = ReviewUi::default();
        let first = review.path(&dataset);
        assert!(first.to_string_lossy().contains("tasks"), "{first:?}");
        // An edit that changes the dataset's digest does not move the decisions elsewhere.
        dataset.tasks.pop();
        assert_eq!(review.path(&dataset), first);
        // A fresh review of the changed dataset would resolve another store.
        assert_ne!(ReviewUi::default().path(&dataset), first);
    }
}
