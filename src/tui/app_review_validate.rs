//! Validation from the review queue: `v` (or a saved edit) asks `jobs` to validate a task in
//! the sandbox in the background ([`Effect::ValidateTask`]); the answer says how it went and
//! the store it was recorded in is read again. The newest request per task wins. `V`
//! validates every task of the filtered queue: they wait in `validate_queue` and start as
//! others end, [`AT_ONCE`] at a time (each one is a sandboxed run of the reference, twice).

use super::app::{App, Effect, Level};

/// Background validations running at once when the whole queue is validated.
pub const AT_ONCE: usize = 2;

impl App {
    /// Validate the selected task in the background.
    pub(super) fn validate_selected(&mut self) -> Vec<Effect> {
        let Some(idx) = self.review.selected_task() else {
            self.sh.set_status(Level::Info, "no task selected");
            return Vec::new();
        };
        if self.review.data.is_none() {
            self.sh
                .set_status(Level::Info, "the curation store is still loading");
            return Vec::new();
        }
        let Some(id) = self.sh.data.dataset.tasks.get(idx).map(|t| t.id.clone()) else {
            return Vec::new();
        };
        self.sh.set_status(
            Level::Info,
            format!("validating {id} in the background (the reference, twice)…"),
        );
        vec![self.validate_effect(id)]
    }

    /// Validate every task of the filtered queue in the background, [`AT_ONCE`] at a time.
    pub(super) fn validate_all(&mut self) -> Vec<Effect> {
        if self.review.data.is_none() {
            self.sh
                .set_status(Level::Info, "the curation store is still loading");
            return Vec::new();
        }
        let ids: Vec<String> = self
            .review
            .visible
            .iter()
            .filter_map(|&i| self.sh.data.dataset.tasks.get(i))
            .map(|t| t.id.clone())
            .filter(|id| {
                !self.review.validating.contains_key(id) && !self.review.validate_queue.contains(id)
            })
            .collect();
        self.review.validate_queue.extend(ids);
        let effects = self.start_queued_validations();
        self.say_validation_progress();
        effects
    }

    /// Start queued validations while fewer than [`AT_ONCE`] run.
    fn start_queued_validations(&mut self) -> Vec<Effect> {
        let mut effects = Vec::new();
        while self.review.validating.len() < AT_ONCE {
            let Some(id) = self.review.validate_queue.pop_front() else {
                break;
            };
            effects.push(self.validate_effect(id));
        }
        effects
    }

    fn say_validation_progress(&mut self) {
        let (running, queued) = (
            self.review.validating.len(),
            self.review.validate_queue.len(),
        );
        if running + queued > 0 {
            self.sh.set_status(
                Level::Info,
                format!(
                    "validating in the background: {running} running, {queued} waiting \
                     (recorded in {})",
                    self.review.path(&self.sh.data.dataset).display()
                ),
            );
        }
    }

    /// The effect validating task `id` (the newest request for it wins).
    pub(super) fn validate_effect(&mut self, id: String) -> Effect {
        self.review.validate_req += 1;
        let req = self.review.validate_req;
        self.review.validating.insert(id.clone(), req);
        Effect::ValidateTask {
            req,
            task_id: id,
            path: self.review.path(&self.sh.data.dataset),
        }
    }

    /// A background validation ended: say how, and read the store it was recorded in.
    pub(super) fn validated(
        &mut self,
        req: u64,
        task_id: String,
        result: Result<super::review::validate::Validated, String>,
    ) -> Vec<Effect> {
        if self.review.validating.get(&task_id) != Some(&req) {
            return Vec::new(); // a newer validation of the task is under way
        }
        self.review.validating.remove(&task_id);
        // The store read back right after recording: shown at once (no reload and relint of
        // the whole dataset per task, which a queue being validated would keep superseding).
        let store = result.as_ref().ok().and_then(|v| v.store.clone());
        match result {
            Err(e) => self.sh.set_status(Level::Error, format!("{task_id}: {e}")),
            Ok(v) if !v.recorded => self.sh.set_status(
                Level::Warn,
                format!("{task_id} was edited while it was validated: not recorded (v: again)"),
            ),
            Ok(v) if v.passed => self.sh.set_status(
                Level::Info,
                format!("{task_id}: validation passed (every test twice, runs agree)"),
            ),
            Ok(v) => self.sh.set_status(
                Level::Warn,
                format!(
                    "{task_id}: validation failed: {}",
                    v.summary.unwrap_or_default()
                ),
            ),
        }
        let mut effects = self.start_queued_validations();
        if !effects.is_empty() {
            self.say_validation_progress();
        }
        match (store, self.review.data.as_mut()) {
            (Some(store), Some(data)) => {
                data.store = store.take();
                self.refilter_review();
            }
            _ => {
                self.review.req += 1;
                effects.push(Effect::LoadReview {
                    req: self.review.req,
                    path: self.review.path(&self.sh.data.dataset),
                });
            }
        }
        effects
    }
}
