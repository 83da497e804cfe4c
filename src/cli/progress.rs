//! A progress bar with rate and ETA on stderr for long commands (`analyze`, `eval`,
//! `validate`, `lint`). Drawn only when stderr is a terminal: tests, pipes and redirected
//! logs see nothing of it (and keep the per-item lines a human run prints when not drawn).
//! The bar takes the width the terminal has left (it never wraps at 80 columns), the rate
//! has one decimal, and a command stopped by Ctrl-C leaves one line saying so.

use std::io::IsTerminal as _;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressState, ProgressStyle};

/// A bar, or nothing when stderr is not a terminal.
pub(crate) struct Progress {
    bar: Option<ProgressBar>,
    what: String,
    /// Left on screen as `interrupted` (Drop must not clear it).
    stopped: AtomicBool,
}

/// `618.5/s`, `0.3/s`: one decimal, whatever the rate.
fn rate(state: &ProgressState, w: &mut dyn std::fmt::Write) {
    let _ = w.write_str(&rate_text(state.per_sec()));
}

fn rate_text(per_sec: f64) -> String {
    format!("{per_sec:.1}/s")
}

/// The bar's template: the counts first, the bar in whatever width is left.
pub(crate) fn template(what: &str) -> String {
    format!("{{spinner}} {{pos}}/{{len}} {what} · {{rate}} · ETA {{eta}} [{{wide_bar}}]")
}

impl Progress {
    /// `what` names the unit (`tasks`, `files`); `total` is how many there are.
    pub fn new(total: usize, what: &str) -> Progress {
        let with = |bar: Option<ProgressBar>| Progress {
            bar,
            what: what.to_string(),
            stopped: AtomicBool::new(false),
        };
        if !std::io::stderr().is_terminal() || total == 0 {
            return with(None);
        }
        let bar = ProgressBar::with_draw_target(Some(total as u64), ProgressDrawTarget::stderr());
        if let Ok(style) = ProgressStyle::with_template(&template(what)) {
            bar.set_style(style.with_key("rate", rate).progress_chars("=> "));
        }
        bar.enable_steady_tick(Duration::from_millis(200));
        with(Some(bar))
    }

    pub fn inc(&self) {
        if let Some(bar) = &self.bar {
            bar.inc(1);
        }
    }

    pub fn set(&self, done: usize, total: usize) {
        if let Some(bar) = &self.bar {
            bar.set_length(total as u64);
            bar.set_position(done as u64);
        }
    }

    /// A line on stderr: above the bar when it is drawn. Its text comes from the input (task
    /// ids, messages): control characters are escaped, so it stays one line and inert.
    pub fn line(&self, text: &str) {
        let text = &*crate::text::escape_control(text);
        match &self.bar {
            Some(bar) => bar.println(text),
            None => eprintln!("{text}"),
        }
    }

    /// The command was stopped (Ctrl-C): the bar gives way to one line that says so.
    pub fn interrupted(&self) {
        if let Some(bar) = &self.bar {
            let (pos, len) = (bar.position(), bar.length().unwrap_or(0));
            bar.finish_and_clear();
            eprintln!("{pos}/{len} {} · interrupted", self.what);
            self.stopped.store(true, Ordering::Relaxed);
        }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        if let Some(bar) = &self.bar
            && !self.stopped.load(Ordering::Relaxed)
        {
            bar.finish_and_clear();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 21 item 19: the rate has one decimal (`618.5/s`, not `618.5224/s`) and the
    /// line fits 80 columns (the bar takes what is left).
    #[test]
    fn the_rate_has_one_decimal_and_the_line_fits_80_columns() {
        for (per_sec, shown) in [(618.5224, "618.5/s"), (0.31, "0.3/s"), (12.0, "12.0/s")] {
            assert_eq!(rate_text(per_sec), shown);
        }
        assert!(ProgressStyle::with_template(&template("tasks")).is_ok());
        // The fixed part of the line, widest counts: the bar fills the rest of the terminal.
        let fixed = "⠁ 12345/12345 tasks · 99999.9/s · ETA 59m [".len() + 1;
        assert!(fixed < 60, "{fixed}");
        assert!(template("tasks").contains("{wide_bar}"));
    }
}
