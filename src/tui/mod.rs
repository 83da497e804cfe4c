//! The terminal UI: browse tasks, their code, methods and dependency graphs, with predictions
//! scored against the ground truth.
//!
//! Architecture (architecture.md, "TUI conventions"): terminal events become [`Action`]s through
//! the [`keymap`]; `App::update` is the only place state changes and returns [`Effect`]s for the
//! loop to carry out; `views::render` draws `&App`. Analyses are computed once at startup;
//! code is highlighted lazily, only as far as it is shown.

pub mod action;
pub mod app;
mod app_list;
mod app_task;
pub mod data;
pub mod highlight;
pub mod key;
pub mod keymap;
pub mod list;
pub mod palette;
mod terminal;
pub mod theme;
pub mod views;

use std::time::Duration;

use crossterm::event::{self, Event, KeyEventKind, MouseButton, MouseEventKind};

pub use action::Action;
pub use app::{App, Effect, UiSetup};
pub use data::Data;

use crate::config::{self, Config};
use crate::dataset::Dataset;
use crate::dataset::predictions::DepFile;
use crate::depcheck::GroundTruth;
use keymap::{KeyChord, Keymap};
use theme::Theme;

/// Everything the TUI needs to open.
pub struct TuiOptions {
    pub dataset: Dataset,
    pub predictions: Option<DepFile>,
    pub truth: GroundTruth,
    /// Theme name from `--theme`, overriding the config file.
    pub theme: Option<String>,
}

/// Read the config file, themes and `NO_COLOR`; every problem becomes a status message and
/// the defaults are used instead.
pub fn setup_from_config(theme_flag: Option<String>) -> UiSetup {
    let mut messages = Vec::new();
    let config = config::load().unwrap_or_else(|e| {
        messages.push(format!("{e} (using defaults)"));
        Config::default()
    });
    let shown =
        config::config_path().map_or_else(|| "config".to_string(), |p| p.display().to_string());
    let (keymap, errors) = Keymap::with_overrides(&config.keys);
    messages.extend(errors.into_iter().map(|e| format!("{shown}: {e}")));
    let themes_dir = config::config_dir().map(|d| d.join("themes"));
    let (themes, errors) = Theme::load_all(themes_dir.as_deref());
    messages.extend(errors.into_iter().map(|e| format!("theme {e}")));
    for t in &themes {
        if !highlight::has_syntax_theme(&t.syntax) {
            messages.push(format!(
                "theme {}: unknown syntax theme `{}` (code shown plain)",
                t.name, t.syntax
            ));
        }
    }
    UiSetup {
        themes,
        theme: theme_flag.or(config.theme),
        no_color: std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty()),
        keymap,
        messages,
        size: (80, 24),
    }
}

/// The action for a terminal event, if any.
pub fn action_for(app: &App, event: &Event) -> Option<Action> {
    match event {
        Event::Key(key) if key.kind == KeyEventKind::Press => app
            .keymap
            .lookup(&app.contexts(), KeyChord::from_event(key)),
        Event::Mouse(mouse) => match mouse.kind {
            MouseEventKind::ScrollDown => Some(Action::Scroll(3)),
            MouseEventKind::ScrollUp => Some(Action::Scroll(-3)),
            MouseEventKind::Down(MouseButton::Left) => Some(Action::Click {
                column: mouse.column,
                row: mouse.row,
            }),
            _ => None,
        },
        Event::Resize(w, h) => Some(Action::Resize(*w, *h)),
        _ => None,
    }
}

pub fn run(opts: TuiOptions) -> anyhow::Result<()> {
    let setup = setup_from_config(opts.theme);
    let data = Data::new(opts.dataset, opts.predictions, opts.truth);
    let mut guard = terminal::enter()?;
    let size = guard.terminal.size()?;
    let mut app = App::new(
        data,
        UiSetup {
            size: (size.width, size.height),
            ..setup
        },
    );
    let debug_panic = std::env::var_os("CLASSLAB_TUI_DEBUG_PANIC").is_some();
    loop {
        if app.dirty {
            guard.terminal.draw(|frame| views::render(&app, frame))?;
            app.dirty = false;
            if debug_panic {
                panic!("CLASSLAB_TUI_DEBUG_PANIC is set: testing terminal restoration");
            }
        }
        if !event::poll(Duration::from_millis(250))? {
            continue;
        }
        // Handle every event already waiting before drawing again (merges resize bursts).
        loop {
            let event = event::read()?;
            if let Some(action) = action_for(&app, &event)
                && app.update(action).contains(&Effect::Quit)
            {
                drop(guard);
                return Ok(());
            }
            if !event::poll(Duration::ZERO)? {
                break;
            }
        }
    }
}
