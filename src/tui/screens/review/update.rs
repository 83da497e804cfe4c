//! The review queue: tasks with their curation status and lint findings, filtered by status,
//! rule code and severity; decisions go through the pure machine of `curate::review` (via
//! `curate::act`) on the in-memory store, and are persisted by an [`Effect::SaveReview`] that
//! `jobs` carries out under the store's lock.

use std::path::PathBuf;

use super::state::*;
use crate::analysis::lint::{Finding, Severity};
use crate::curate::{self, ReviewAction, Status, ValidationRecord};
use crate::tui::action::Action;
use crate::tui::effect::Effect;
use crate::tui::screen::Nav;
use crate::tui::screen::ScreenId;
use crate::tui::screen::scrolled;
use crate::tui::shared::Level;
use crate::tui::shared::Shared;

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

impl ReviewUi {
    pub fn show_review(&mut self, sh: &mut Shared) -> Vec<Effect> {
        sh.go(Nav::CloseLayers);
        sh.go(Nav::To(ScreenId::Review));
        self.req += 1;
        vec![Effect::LoadReview {
            req: self.req,
            path: self.path(&sh.data.dataset),
        }]
    }

    /// Rows of the queue visible now.
    pub fn review_page(&self, sh: &Shared) -> usize {
        super::view::page(sh.chrome().body)
    }

    /// What validation says about every task as it now stands in the store.
    pub fn refresh_validation(&mut self, sh: &mut Shared) {
        let Some(data) = &self.data else {
            self.validation.clear();
            return;
        };
        self.validation = sh
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

    pub fn refilter_review(&mut self, sh: &mut Shared) {
        self.refresh_validation(sh);
        let keep = self.selected_task();
        let r = &*self;
        let visible: Vec<usize> = sh
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
        self.selected = keep
            .and_then(|k| visible.iter().position(|&i| i == k))
            .unwrap_or(0);
        self.visible = visible;
        self.clamp_review(sh);
        if self.selected_task() != keep {
            self.method = 0;
        }
    }

    /// The selected task's target methods.
    pub fn review_methods<'a>(&'a self, sh: &'a Shared) -> Vec<&'a str> {
        self.selected_task()
            .and_then(|i| sh.data.dataset.tasks.get(i))
            .map(|t| t.method_names())
            .unwrap_or_default()
    }

    /// The selected method's name, if the task has methods.
    pub fn review_method<'a>(&'a self, sh: &'a Shared) -> Option<&'a str> {
        let methods = self.review_methods(sh);
        methods
            .get(self.method.min(methods.len().saturating_sub(1)))
            .copied()
    }

    pub fn step_method(&mut self, sh: &mut Shared, forward: bool) {
        let n = self.review_methods(sh).len();
        if n == 0 {
            sh.set_status(Level::Info, "the task has no target methods");
            return;
        }
        let m = self.method.min(n - 1);
        self.method = if forward {
            (m + 1) % n
        } else {
            (m + n - 1) % n
        };
    }

    pub fn clamp_review(&mut self, sh: &Shared) {
        let len = self.visible.len();
        let page = self.review_page(sh);
        let r = &mut *self;
        r.selected = r.selected.min(len.saturating_sub(1));
        if r.selected < r.offset {
            r.offset = r.selected;
        } else if r.selected >= r.offset + page {
            r.offset = r.selected + 1 - page;
        }
    }

    pub fn update_review(&mut self, sh: &mut Shared, action: Action) -> Vec<Effect> {
        if self.input.is_some() {
            return self.update_review_input(sh, action);
        }
        if self.promote.is_some() {
            return self.update_promote(sh, action);
        }
        if let Some(bulk) = self.confirm {
            self.confirm = None;
            return match action {
                Action::Submit => self.bulk(sh, bulk, None),
                _ => {
                    sh.set_status(Level::Info, "nothing changed");
                    Vec::new()
                }
            };
        }
        match action {
            Action::Back | Action::Close => sh.go(Nav::Back),
            Action::NextTab => self.step_part(sh, true),
            Action::PrevTab => self.step_part(sh, false),
            Action::ReviewDraftPublic => return self.draft_public_tests(sh),
            Action::ReviewDraftKill => return self.draft_killing_test(sh),
            Action::ReviewPromote => self.open_promote(sh),
            Action::NextMethod => self.step_method(sh, true),
            Action::PrevMethod => self.step_method(sh, false),
            Action::CycleStatusFilter => {
                self.status_filter = next_status(self.status_filter);
                self.refilter_review(sh);
            }
            Action::CycleSeverityFilter => {
                self.severity_filter = next_severity(self.severity_filter);
                self.refilter_review(sh);
            }
            Action::StartFilter => self.ask(sh, Ask::Rule, self.rule_filter.clone()),
            Action::ReviewApprove => {
                return self.decide_selected(sh, ReviewAction::Approve { comment: None });
            }
            Action::ReviewNeedsWork => {
                return self.decide_selected(sh, ReviewAction::NeedsWork { reason: None });
            }
            Action::ReviewReject => self.ask(sh, Ask::Reject { bulk: false }, String::new()),
            Action::ReviewNote => self.ask(sh, Ask::Note, String::new()),
            Action::ReviewOverride => self.ask(sh, Ask::Override, String::new()),
            Action::ReviewEdit => return self.edit_selected(sh),
            Action::ReviewValidate => return self.validate_selected(sh),
            Action::ReviewDiff => self.diff = !self.diff,
            Action::ReviewBulk(bulk) => {
                let n = self.visible.len();
                if n == 0 {
                    sh.set_status(Level::Info, "the filtered queue is empty");
                } else if bulk == Bulk::Reject {
                    self.ask(sh, Ask::Reject { bulk: true }, String::new());
                } else {
                    let what = match bulk {
                        Bulk::Approve => "approve",
                        Bulk::Validate => "validate (in the background)",
                        _ => "mark as needing work",
                    };
                    self.confirm = Some(bulk);
                    sh.set_status(
                        Level::Warn,
                        format!("{what} all {n} tasks of the filtered queue? y / n"),
                    );
                }
            }
            other => {
                let page = self.review_page(sh);
                let max = self.visible.len().saturating_sub(1);
                let before = self.selected;
                self.selected = scrolled(self.selected, &other, page, max);
                self.clamp_review(sh);
                if self.selected != before {
                    self.method = 0;
                }
            }
        }
        Vec::new()
    }

    pub fn ask(&mut self, sh: &mut Shared, ask: Ask, text: String) {
        if ask != Ask::Rule && self.selected_task().is_none() {
            sh.set_status(Level::Info, "no task selected");
            return;
        }
        self.input = Some(Input { ask, text });
    }

    pub fn update_review_input(&mut self, sh: &mut Shared, action: Action) -> Vec<Effect> {
        let Some(input) = self.input.as_mut() else {
            return Vec::new();
        };
        match action {
            Action::Input(c) => input.text.push(c),
            Action::Backspace => {
                input.text.pop();
            }
            Action::ClearInput => input.text.clear(),
            Action::Back | Action::Close => self.input = None,
            Action::Submit => {
                let Some(Input { ask, text }) = self.input.take() else {
                    return Vec::new();
                };
                return match ask {
                    Ask::Rule => {
                        self.rule_filter = text.trim().to_uppercase();
                        self.refilter_review(sh);
                        Vec::new()
                    }
                    Ask::Reject { bulk: true } => self.bulk(sh, Bulk::Reject, Some(text)),
                    Ask::Reject { bulk: false } => {
                        self.decide_selected(sh, ReviewAction::Reject { reason: text })
                    }
                    Ask::Note => self.decide_selected(sh, ReviewAction::Note { text }),
                    Ask::Override => self.override_selected(sh, text),
                };
            }
            _ => {}
        }
        Vec::new()
    }

    /// Run `actions` (task index, action) through the machine on the in-memory store; the
    /// accepted ones are persisted together. Refusals are reported.
    pub fn decide(&mut self, sh: &mut Shared, actions: Vec<(usize, ReviewAction)>) -> Vec<Effect> {
        let stamp = curate::stamp_now();
        let Some(data) = self.data.as_mut() else {
            sh.set_status(Level::Info, "the curation store is still loading");
            return Vec::new();
        };
        let mut ops = Vec::new();
        let mut refusals = Vec::new();
        for (idx, action) in actions {
            let Some(task) = sh.data.dataset.tasks.get(idx) else {
                continue;
            };
            // The rigor findings the queue read with the store (no I/O on this thread).
            let rigor = data
                .findings
                .get(idx)
                .map(|f| curate::rigor_gates::only_rigor(f))
                .unwrap_or_default();
            match curate::act(&mut data.store, task, action.clone(), &stamp, &rigor) {
                Ok(effects) => {
                    if effects.contains(&curate::Effect::Revalidate)
                        && !self.revalidate.contains(&task.id)
                    {
                        self.revalidate.push(task.id.clone());
                    }
                    ops.push((task.id.clone(), action));
                }
                Err(why) => refusals.push(format!("{}: {why}", task.id)),
            }
        }
        let done = ops.len();
        if refusals.is_empty() {
            let what = if done == 1 { "task" } else { "tasks" };
            sh.set_status(Level::Info, format!("{done} {what} updated; saving…"));
        } else {
            let mut text = refusals.join(" · ");
            if refusals.len() == 1 && !text.contains("override") && text.contains("cannot approve")
            {
                text.push_str(" (o: override with a reason)");
            }
            if done > 0 {
                text = format!("{done} updated; refused: {text}");
            }
            sh.set_status(Level::Error, text);
        }
        self.refilter_review(sh);
        if ops.is_empty() {
            return Vec::new();
        }
        self.saving = true;
        vec![Effect::SaveReview {
            path: self.path(&sh.data.dataset),
            ops,
            stamp,
        }]
    }

    pub fn decide_selected(&mut self, sh: &mut Shared, action: ReviewAction) -> Vec<Effect> {
        match self.selected_task() {
            Some(idx) => self.decide(sh, vec![(idx, action)]),
            None => Vec::new(),
        }
    }

    pub fn bulk(&mut self, sh: &mut Shared, bulk: Bulk, reason: Option<String>) -> Vec<Effect> {
        let action = match bulk {
            Bulk::Approve => ReviewAction::Approve { comment: None },
            Bulk::Reject => ReviewAction::Reject {
                reason: reason.unwrap_or_default(),
            },
            Bulk::NeedsWork => ReviewAction::NeedsWork { reason: None },
            Bulk::Validate => return self.validate_all(sh),
        };
        let all = self.visible.iter().map(|&i| (i, action.clone()));
        self.decide(sh, all.collect())
    }

    /// Override every gate that blocks the selected task's approval, with `reason`.
    pub fn override_selected(&mut self, sh: &mut Shared, reason: String) -> Vec<Effect> {
        let (Some(idx), Some(data)) = (self.selected_task(), self.data.as_ref()) else {
            return Vec::new();
        };
        let Some(task) = sh.data.dataset.tasks.get(idx) else {
            return Vec::new();
        };
        let rigor = curate::rigor_gates::only_rigor(self.findings(idx));
        let gates = curate::task_gates(&data.store, task, &rigor);
        let blocking = curate::review::blocking(&data.store.review(&task.id), &gates);
        if blocking.is_empty() {
            sh.set_status(Level::Info, "no gate blocks this task's approval");
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
        self.decide(sh, actions)
    }

    /// The gates that block the approval of task `idx` now, one line each; from the queue's
    /// findings and validation states (drawn every frame: nothing is linted or hashed here).
    pub fn review_blocking(&self, sh: &Shared, idx: usize) -> Vec<String> {
        let (Some(data), Some(task)) = (&self.data, sh.data.dataset.tasks.get(idx)) else {
            return Vec::new();
        };
        let validation =
            (self.validation.get(idx).cloned()).unwrap_or(curate::review::Validation::Unknown);
        let findings = self.findings(idx).to_vec();
        let edited = curate::edited_task(&data.store, task);
        let gates = curate::gates::gates_from(&edited, validation, findings);
        curate::review::blocking(&data.store.review(&task.id), &gates)
            .into_iter()
            .map(|f| f.to_string())
            .collect()
    }

    pub fn update_review_background(&mut self, sh: &mut Shared, action: Action) -> Vec<Effect> {
        match action {
            Action::ReviewEdited {
                task_id,
                target,
                result,
            } => match result {
                Ok(text) => return self.edited(sh, &task_id, &target, text),
                Err(e) => sh.set_status(Level::Error, e),
            },
            Action::ReviewLoaded { req, loaded } if req == self.req => {
                let loaded: ReviewData = loaded.take();
                if let Some(e) = &loaded.error {
                    sh.set_status(Level::Error, e.clone());
                }
                self.data = Some(loaded);
                self.refilter_review(sh);
            }
            Action::ReviewValidated {
                req,
                task_id,
                result,
            } => return self.validated(sh, req, task_id, result),
            Action::ReviewSaved { store, error } => {
                self.saving = false;
                let revalidate = std::mem::take(&mut self.revalidate);
                match error {
                    Some(e) => sh.set_status(Level::Error, format!("not saved: {e}")),
                    None => {
                        if let (Some(store), Some(data)) = (store, self.data.as_mut()) {
                            data.store = store.take();
                        }
                        if sh.screen == ScreenId::Review
                            && sh
                                .status
                                .as_ref()
                                .is_some_and(|s| s.text.ends_with("saving…"))
                        {
                            sh.set_status(Level::Info, "saved");
                        }
                        self.refilter_review(sh);
                        if !revalidate.is_empty() {
                            // Lint again (the whole queue is read back) and validate again.
                            if sh.status.as_ref().is_some_and(|s| s.text == "saved") {
                                sh.set_status(
                                    Level::Info,
                                    "saved; linting and validating again in the background…",
                                );
                            }
                            self.req += 1;
                            let mut effects = vec![Effect::LoadReview {
                                req: self.req,
                                path: self.path(&sh.data.dataset),
                            }];
                            for id in revalidate {
                                effects.push(self.validate_effect(sh, id));
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
    pub fn the_default_store_is_resolved_once_and_stays_the_one_opened() {
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
