//! A progress bar with rate and ETA on stderr for long commands (`analyze`, `eval`,
//! `validate`, `lint`). Drawn only when stderr is a terminal: tests, pipes and redirected
//! logs see nothing of it (and keep the per-item lines a human run prints when not drawn).

use std::io::IsTerminal as _;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// A bar, or nothing when stderr is not a terminal.
pub(crate) struct Progress(Option<ProgressBar>);

impl Progress {
    /// `what` names the unit (`tasks`, `files`); `total` is how many there are.
    pub fn new(total: usize, what: &str) -> Progress {
        if !std::io::stderr().is_terminal() || total == 0 {
            return Progress(None);
        }
        let bar = ProgressBar::with_draw_target(Some(total as u64), ProgressDrawTarget::stderr());
        let template = format!(
            "{{spinner}} [{{bar:32}}] {{pos}}/{{len}} {what} · {{per_sec}} · ETA {{eta}} {{msg}}"
        );
        if let Ok(style) = ProgressStyle::with_template(&template) {
            bar.set_style(style.progress_chars("=> "));
        }
        bar.enable_steady_tick(Duration::from_millis(200));
        Progress(Some(bar))
    }

    pub fn inc(&self) {
        if let Some(bar) = &self.0 {
            bar.inc(1);
        }
    }

    pub fn set(&self, done: usize, total: usize) {
        if let Some(bar) = &self.0 {
            bar.set_length(total as u64);
            bar.set_position(done as u64);
        }
    }

    /// A line on stderr: above the bar when it is drawn. Its text comes from the input (task
    /// ids, messages): control characters are escaped, so it stays one line and inert.
    pub fn line(&self, text: &str) {
        let text = &*crate::text::escape_control(text);
        match &self.0 {
            Some(bar) => bar.println(text),
            None => eprintln!("{text}"),
        }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        if let Some(bar) = &self.0 {
            bar.finish_and_clear();
        }
    }
}
