//! Editing in the review queue: what the code pane shows (a task-level part, or the selected
//! method's docstring, test class or public tests: a `curate::targets::Target`), `$EDITOR` on
//! it through [`Effect::EditPart`], and the edited text back into the store as an edit through
//! the review machine. Public-test helpers: a draft from the method's doctests, or a checklist
//! of its private tests to promote; either opens the editor on the result.

use super::state::KINDS;
use crate::curate::targets::{self, Target};
use crate::curate::{self, ReviewAction};
use crate::tui::action::Action;

/// Which part (`ReviewUi::part`) shows `target`.
fn kind_of(target: &Target) -> usize {
    match target {
        Target::Skeleton => 0,
        Target::Solution => 1,
        Target::Tests => 2,
        Target::Docstring(_) => 3,
        Target::TestClass(_) => 4,
        Target::PublicTests(_) => 5,
    }
}

use super::state::*;
use crate::tui::effect::Effect;
use crate::tui::screen::scrolled;
use crate::tui::shared::Level;
use crate::tui::shared::Shared;

impl ReviewUi {
    /// What the code pane shows now: the part, for the selected method when it is one of
    /// its parts (`None` when no task is selected).
    pub fn review_target(&self, sh: &Shared) -> Option<Target> {
        self.selected_task()?;
        let method = self.review_method(sh).map(str::to_string);
        Some(match (self.part, method) {
            (1, _) => Target::Solution,
            (2, _) => Target::Tests,
            (3, Some(m)) => Target::Docstring(m),
            (4, Some(m)) => Target::TestClass(m),
            (5, Some(m)) => Target::PublicTests(m),
            _ => Target::Skeleton,
        })
    }

    /// The next or previous part; a task without methods has only the task-level ones.
    pub fn step_part(&mut self, sh: &mut Shared, forward: bool) {
        let n = if self.review_methods(sh).is_empty() {
            3
        } else {
            KINDS
        };
        let p = self.part.min(n - 1);
        self.part = if forward {
            (p + 1) % n
        } else {
            (p + n - 1) % n
        };
    }

    /// `target`'s text in task `idx` as the reviewer has made it, whether that differs from
    /// the dataset's, and the dataset's. A blank skeleton shows the generated one.
    pub fn review_texts(&self, sh: &Shared, idx: usize, target: &Target) -> (String, bool, String) {
        let Some(task) = sh.data.dataset.tasks.get(idx) else {
            return Default::default();
        };
        let edited_task = match &self.data {
            Some(d) => curate::edited_task(&d.store, task),
            None => task.clone(),
        };
        let mut original = targets::text(task, target);
        let mut edited = targets::text(&edited_task, target);
        if *target == Target::Skeleton && original.trim().is_empty() {
            original = sh
                .code_source(idx, crate::tui::shared::CodePart::Skeleton)
                .to_string();
            if edited.trim().is_empty() {
                edited = original.clone();
            }
        }
        let changed = edited != original;
        (edited, changed, original)
    }

    /// `target`'s text in task `idx` as the reviewer has made it, and whether it was edited.
    pub fn review_source(&self, sh: &Shared, idx: usize, target: &Target) -> (String, bool) {
        let (text, edited, _) = self.review_texts(sh, idx, target);
        (text, edited)
    }

    /// The selected task's index and id once the store is loaded (else says why not).
    fn editable_task(&mut self, sh: &mut Shared) -> Option<(usize, String)> {
        let idx = self.selected_task()?;
        if self.data.is_none() {
            sh.set_status(Level::Info, "the curation store is still loading");
            return None;
        }
        let id = sh.data.dataset.tasks.get(idx)?.id.clone();
        Some((idx, id))
    }

    pub fn edit_selected(&mut self, sh: &mut Shared) -> Vec<Effect> {
        let (Some((idx, task_id)), Some(target)) = (self.editable_task(sh), self.review_target(sh))
        else {
            return Vec::new();
        };
        let (text, _) = self.review_source(sh, idx, &target);
        vec![Effect::EditPart {
            task_id,
            target,
            text,
        }]
    }

    /// `p`: public tests drafted from the selected method's doctests, in the editor.
    pub fn draft_public_tests(&mut self, sh: &mut Shared) -> Vec<Effect> {
        let Some((idx, task_id)) = self.editable_task(sh) else {
            return Vec::new();
        };
        let Some(method) = self.review_method(sh).map(str::to_string) else {
            sh.set_status(Level::Info, "the task has no target methods");
            return Vec::new();
        };
        let Some(task) = self.edited_review_task(sh, idx) else {
            return Vec::new();
        };
        match targets::draft_from_doctests(&task, &method) {
            Some(text) => {
                let target = Target::PublicTests(method);
                self.part = kind_of(&target);
                vec![Effect::EditPart {
                    task_id,
                    target,
                    text,
                }]
            }
            None => {
                sh.set_status(
                    Level::Info,
                    format!("the docstring of {method} has no doctest to draft public tests from"),
                );
                Vec::new()
            }
        }
    }

    /// `m`: the test module with a drafted test for a surviving mutant of the task (in the
    /// selected method when it has one), in `$EDITOR`. The task's rigor is asked for first
    /// when it has not arrived.
    pub fn draft_killing_test(&mut self, sh: &mut Shared) -> Vec<Effect> {
        let Some((idx, task_id)) = self.editable_task(sh) else {
            return Vec::new();
        };
        let Some(task) = self.edited_review_task(sh, idx) else {
            return Vec::new();
        };
        let Some(r) = sh.rigor.results.get(&idx).cloned() else {
            let wanted = sh.rigor.want(&[idx]);
            sh.set_status(
                Level::Info,
                format!("measuring the rigor of {task_id} in the background: press m again when it is in"),
            );
            return wanted.into_iter().collect();
        };
        let method = self.review_method(sh).map(str::to_string);
        let lines = method.as_deref().and_then(|m| {
            let module = crate::analysis::parse_module(&task.solution);
            let def = module.class(&task.class_name)?.method(m)?;
            Some((def.start_line, def.end_line))
        });
        let Some(m) = curate::rigor_gates::survivor_in(&r, lines) else {
            sh.set_status(Level::Info, format!("no mutant of {task_id} survives its tests"));
            return Vec::new();
        };
        let text = curate::rigor_gates::draft_killing_test(&task, m, method.as_deref());
        let target = Target::Tests;
        self.part = kind_of(&target);
        vec![Effect::EditPart {
            task_id,
            target,
            text,
        }]
    }

    /// The task as the store has it now.
    fn edited_review_task(&self, sh: &Shared, idx: usize) -> Option<crate::model::Task> {
        let task = sh.data.dataset.tasks.get(idx)?;
        Some(curate::edited_task(&self.data.as_ref()?.store, task))
    }

    /// `P`: the checklist of the selected method's private tests.
    pub fn open_promote(&mut self, sh: &mut Shared) {
        let Some((idx, _)) = self.editable_task(sh) else {
            return;
        };
        let Some(method) = self.review_method(sh).map(str::to_string) else {
            sh.set_status(Level::Info, "the task has no target methods");
            return;
        };
        let Some(task) = self.edited_review_task(sh, idx) else {
            return;
        };
        let tests = targets::private_tests(&task, &method);
        if tests.is_empty() {
            sh.set_status(
                Level::Info,
                format!("{method} has no private tests to promote"),
            );
            return;
        }
        self.promote = Some(Promote {
            method,
            chosen: vec![false; tests.len()],
            tests,
            cursor: 0,
        });
    }

    /// Keys while the promote checklist is open: move, toggle, promote (Enter), cancel (Esc).
    pub fn update_promote(&mut self, sh: &mut Shared, action: Action) -> Vec<Effect> {
        let Some(p) = self.promote.as_mut() else {
            return Vec::new();
        };
        match action {
            Action::Back | Action::Close => {
                self.promote = None;
                sh.set_status(Level::Info, "nothing promoted");
            }
            Action::ToggleMark => {
                if let Some(c) = p.chosen.get_mut(p.cursor) {
                    *c = !*c;
                }
            }
            Action::Submit => return self.promote_chosen(sh),
            other => {
                let max = p.tests.len().saturating_sub(1);
                p.cursor = scrolled(p.cursor, &other, 5, max);
            }
        }
        Vec::new()
    }

    fn promote_chosen(&mut self, sh: &mut Shared) -> Vec<Effect> {
        let Some(p) = self.promote.clone() else {
            return Vec::new();
        };
        let chosen: Vec<String> = p
            .tests
            .iter()
            .zip(&p.chosen)
            .filter(|(_, c)| **c)
            .map(|(t, _)| t.clone())
            .collect();
        if chosen.is_empty() {
            sh.set_status(Level::Info, "choose tests with space first (Esc: cancel)");
            return Vec::new();
        }
        let Some((idx, task_id)) = self.editable_task(sh) else {
            return Vec::new();
        };
        let Some(task) = self.edited_review_task(sh, idx) else {
            return Vec::new();
        };
        self.promote = None;
        match targets::promote(&task, &p.method, &chosen) {
            Ok(text) => {
                let target = Target::PublicTests(p.method);
                self.part = kind_of(&target);
                vec![Effect::EditPart {
                    task_id,
                    target,
                    text,
                }]
            }
            Err(e) => {
                sh.set_status(Level::Error, e);
                Vec::new()
            }
        }
    }

    /// The editor came back with `text` for `target` of task `task_id`: the new edit delta
    /// goes through the review machine (then saved, linted and validated again).
    pub fn edited(
        &mut self,
        sh: &mut Shared,
        task_id: &str,
        target: &Target,
        text: String,
    ) -> Vec<Effect> {
        let Some(idx) = sh.data.dataset.tasks.iter().position(|t| t.id == task_id) else {
            return Vec::new();
        };
        let (Some(data), Some(task)) = (&self.data, sh.data.dataset.tasks.get(idx)) else {
            return Vec::new();
        };
        let current = data.store.review(task_id).edits;
        let edits = match targets::set(task, &current, target, text) {
            Ok(edits) => edits,
            Err(e) => {
                sh.set_status(Level::Error, format!("{}: {e}", target.label()));
                return Vec::new();
            }
        };
        if edits == current.clone().pruned(task) {
            sh.set_status(Level::Info, "the editor changed nothing");
            return Vec::new();
        }
        if self.selected_task() == Some(idx) {
            self.part = kind_of(target);
            if let Some(m) = target.method()
                && let Some(i) = self.review_methods(sh).iter().position(|n| *n == m)
            {
                self.method = i;
            }
        }
        let effects = self.decide(sh, vec![(idx, ReviewAction::Edit { edits })]);
        // What the edit changed, first: the diff against the dataset (`d` toggles back).
        self.diff |= !effects.is_empty();
        effects
    }
}
