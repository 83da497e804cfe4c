//! Validation from the review queue: `v` (or a saved edit) asks `jobs` to validate a task in
//! the sandbox in the background ([`Effect::ValidateTask`]); the answer says how it went and
//! the store it was recorded in is read again. The newest request per task wins. `V`
//! validates every task of the filtered queue: they wait in `validate_queue` and start as
//! others end, [`AT_ONCE`] at a time (each one is a sandboxed run of the reference, twice).

/// Background validations running at once when the whole queue is validated.
pub const AT_ONCE: usize = 2;

use super::state::*;
use crate::tui::effect::Effect;
use crate::tui::shared::Level;
use crate::tui::shared::Shared;

impl ReviewUi {
    /// Validate the selected task in the background.
    pub fn validate_selected(&mut self, sh: &mut Shared) -> Vec<Effect> {
        let Some(idx) = self.selected_task() else {
            sh.set_status(Level::Info, "no task selected");
            return Vec::new();
        };
        if self.data.is_none() {
            sh.set_status(Level::Info, "the curation store is still loading");
            return Vec::new();
        }
        let Some(id) = sh.data.dataset.tasks.get(idx).map(|t| t.id.clone()) else {
            return Vec::new();
        };
        sh.set_status(
            Level::Info,
            format!("validating {id} in the background (the reference, twice)…"),
        );
        vec![self.validate_effect(sh, id)]
    }

    /// Validate every task of the filtered queue in the background, [`AT_ONCE`] at a time.
    pub fn validate_all(&mut self, sh: &mut Shared) -> Vec<Effect> {
        if self.data.is_none() {
            sh.set_status(Level::Info, "the curation store is still loading");
            return Vec::new();
        }
        let ids: Vec<String> = self
            .visible
            .iter()
            .filter_map(|&i| sh.data.dataset.tasks.get(i))
            .map(|t| t.id.clone())
            .filter(|id| !self.validating.contains_key(id) && !self.validate_queue.contains(id))
            .collect();
        self.validate_queue.extend(ids);
        let effects = self.start_queued_validations(sh);
        self.say_validation_progress(sh);
        effects
    }

    /// Start queued validations while fewer than [`AT_ONCE`] run.
    fn start_queued_validations(&mut self, sh: &mut Shared) -> Vec<Effect> {
        let mut effects = Vec::new();
        while self.validating.len() < AT_ONCE {
            let Some(id) = self.validate_queue.pop_front() else {
                break;
            };
            effects.push(self.validate_effect(sh, id));
        }
        effects
    }

    fn say_validation_progress(&mut self, sh: &mut Shared) {
        let (running, queued) = (self.validating.len(), self.validate_queue.len());
        if running + queued > 0 {
            sh.set_status(
                Level::Info,
                format!(
                    "validating in the background: {running} running, {queued} waiting \
                     (recorded in {})",
                    self.path(&sh.data.dataset).display()
                ),
            );
        }
    }

    /// The effect validating task `id` (the newest request for it wins).
    pub fn validate_effect(&mut self, sh: &mut Shared, id: String) -> Effect {
        self.validate_req += 1;
        let req = self.validate_req;
        self.validating.insert(id.clone(), req);
        Effect::ValidateTask {
            req,
            task_id: id,
            path: self.path(&sh.data.dataset),
        }
    }

    /// A background validation ended: say how, and read the store it was recorded in.
    pub fn validated(
        &mut self,
        sh: &mut Shared,
        req: u64,
        task_id: String,
        result: Result<crate::tui::review::validate::Validated, String>,
    ) -> Vec<Effect> {
        if self.validating.get(&task_id) != Some(&req) {
            return Vec::new(); // a newer validation of the task is under way
        }
        self.validating.remove(&task_id);
        // The store read back right after recording: shown at once (no reload and relint of
        // the whole dataset per task, which a queue being validated would keep superseding).
        let store = result.as_ref().ok().and_then(|v| v.store.clone());
        match result {
            Err(e) => sh.set_status(Level::Error, format!("{task_id}: {e}")),
            Ok(v) if !v.recorded => sh.set_status(
                Level::Warn,
                format!("{task_id} was edited while it was validated: not recorded (v: again)"),
            ),
            Ok(v) if v.passed => sh.set_status(
                Level::Info,
                format!("{task_id}: validation passed (every test twice, runs agree)"),
            ),
            Ok(v) => sh.set_status(
                Level::Warn,
                format!(
                    "{task_id}: validation failed: {}",
                    v.summary.unwrap_or_default()
                ),
            ),
        }
        let mut effects = self.start_queued_validations(sh);
        if !effects.is_empty() {
            self.say_validation_progress(sh);
        }
        match (store, self.data.as_mut()) {
            (Some(store), Some(data)) => {
                data.store = store.take();
                self.refilter_review(sh);
            }
            _ => {
                self.req += 1;
                effects.push(Effect::LoadReview {
                    req: self.req,
                    path: self.path(&sh.data.dataset),
                });
            }
        }
        effects
    }
}
