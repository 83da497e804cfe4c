//! The terminal UI: browse tasks, their code, methods and dependency graphs, with predictions
//! scored against the ground truth; evaluate model outputs; run generation strategies and step
//! through what they did.
//!
//! Architecture (architecture.md, "TUI conventions"): terminal events become [`Action`]s through
//! the [`keymap`]; `App::update` is the only place state changes and returns [`Effect`]s for the
//! loop to carry out; `widgets::render` draws `&App`. Analyses are computed once at startup;
//! code is highlighted lazily, only as far as it is shown.

pub mod action;
pub mod analysis;
pub mod app;
pub mod data;
mod data_load;
pub mod delivered;
pub mod effect;
pub mod evals;
pub mod highlight;
pub mod jobs;
mod jobs_rigor;
mod jobs_run;
pub mod key;
pub mod keymap;
pub mod list;
mod list_flow;
mod list_worker;
pub mod nav;
pub mod palette;
pub mod review;
pub mod rigor;
pub mod runs;
pub mod runtime;
pub mod screen;
pub mod screens;
pub mod shared;
mod terminal;
pub mod theme;
pub mod views;
pub mod widgets;

use std::time::{Duration, Instant};

use crossterm::event::{self, Event, KeyEventKind, MouseButton, MouseEventKind};

pub use action::Action;
pub use app::{App, Effect, UiSetup};
pub use data::Data;
pub use jobs::EvalSetup;
use jobs::Jobs;
use nav::ScreenId;
use runtime::Runtime;

use crate::config::{self, Config};
use crate::dataset::Dataset;
use crate::dataset::predictions::DepFile;
use crate::depcheck::GroundTruth;
use keymap::{KeyChord, Keymap};
use theme::Theme;

/// Where the tasks come from.
pub enum DatasetSource {
    /// Loaded already (analysed at once).
    Loaded(Dataset),
    /// A file read in the background, in batches (see [`crate::dataset::stream`]).
    Stream(std::path::PathBuf),
}

/// Everything the TUI needs to open.
pub struct TuiOptions {
    pub dataset: DatasetSource,
    pub predictions: Option<DepFile>,
    pub truth: GroundTruth,
    /// Theme name from `--theme`, overriding the config file.
    pub theme: Option<String>,
    /// A session to open at once (`classlab replay`).
    pub open_session: Option<std::path::PathBuf>,
    /// The curation store of the review queue, as the headless commands have it (`None`:
    /// beside the dataset, or for the bundled sample in the default sessions directory).
    pub curation_store: Option<std::path::PathBuf>,
    /// A corpus store to browse (`--dataset` naming one): the corpus browser opens on it.
    pub corpus: Option<screens::corpus::State>,
}

/// The UI setup from the loaded config, the themes and `NO_COLOR`. A bad key binding or theme
/// becomes a status message (that part falls back to the defaults); a config file that does
/// not parse never gets here (see [`config::init`]).
pub fn setup_from_config(config: &Config, theme_flag: Option<String>) -> UiSetup {
    let mut messages = Vec::new();
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
        theme: theme_flag.or_else(|| config.theme.clone()),
        no_color: std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty()),
        keymap,
        messages,
        size: (80, 24),
    }
}

/// The action for a terminal event, if any. A bracketed paste is one action, whatever its
/// length (never keys, so never commands).
pub fn action_for(app: &App, event: &Event) -> Option<Action> {
    match event {
        Event::Paste(text) => Some(Action::InsertText(text.clone())),
        Event::Key(key) if key.kind == KeyEventKind::Press => app
            .sh
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

/// Open the TUI with the default evaluation setup (sessions in `./sessions` or the XDG data
/// directory, the config's interpreter).
pub fn run(opts: TuiOptions) -> anyhow::Result<()> {
    config::init()?;
    run_with(opts, EvalSetup::from_config())
}

/// The app over `source`: a loaded dataset is analysed at once; a file is streamed in and
/// analysed in the background (the first frame waits for neither).
pub fn open_app(
    source: DatasetSource,
    predictions: Option<DepFile>,
    truth: GroundTruth,
    setup: UiSetup,
) -> App {
    // Off the UI thread: the first highlight would otherwise compile the grammar.
    let _ = std::thread::Builder::new()
        .name("classlab-highlight-warm-up".into())
        .spawn(highlight::warm_up);
    let data = match source {
        DatasetSource::Loaded(dataset) => Data::new(dataset, predictions, truth),
        DatasetSource::Stream(path) => {
            let origin = path.display().to_string();
            let name = crate::dataset::name_from_path(&origin);
            let rx = crate::dataset::stream::stream(Some(path));
            Data::streaming(rx, name, origin, predictions, truth)
        }
    };
    App::new(data, setup)
}

/// Open the TUI; evaluations started from it use `eval` (sessions root, interpreter). A
/// config file that cannot be read or parsed is an error here, before the terminal changes.
pub fn run_with(opts: TuiOptions, eval: EvalSetup) -> anyhow::Result<()> {
    let setup = setup_from_config(config::init()?, opts.theme);
    let mut guard = terminal::enter()?;
    let size = guard.terminal.size()?;
    let setup = UiSetup {
        size: (size.width, size.height),
        ..setup
    };
    let mut app = open_app(opts.dataset, opts.predictions, opts.truth, setup);
    app.screens.review.store_path = opts.curation_store;
    if let Some(corpus) = opts.corpus {
        app.screens.corpus = screens::corpus::Slot(Some(corpus));
        app.show_root(ScreenId::Corpus);
    }
    let mut rt = Runtime::new(app, Jobs::new(eval));
    if let Some(dir) = opts.open_session {
        let req = rt.app.sh.ev.next_request();
        rt.app.sh.ev.open_request = req;
        let effect = app::Effect::OpenSession { req, dir };
        rt.app.sh.dirty = true;
        // Through `step`'s rules: held until the dataset is loaded.
        rt.defer_or_execute(effect);
    }
    let debug_panic = std::env::var_os("CLASSLAB_TUI_DEBUG_PANIC").is_some();
    let debug_busy = std::env::var_os("CLASSLAB_TUI_DEBUG_BUSY").is_some();
    let mut last_draw: Option<Instant> = None;
    loop {
        let since = last_draw.map_or(FRAME, |t| t.elapsed());
        if rt.app.sh.dirty && since >= FRAME {
            guard.terminal.draw(|frame| views::render(&rt.app, frame))?;
            rt.app.sh.dirty = false;
            last_draw = Some(Instant::now());
            if debug_panic {
                panic!("CLASSLAB_TUI_DEBUG_PANIC is set: testing terminal restoration");
            }
            if debug_busy {
                // Testing restoration on a signal while the UI thread never comes back.
                loop {
                    std::thread::sleep(Duration::from_secs(60));
                }
            }
        }
        let wait = if rt.app.sh.dirty {
            FRAME.saturating_sub(since)
        } else if rt.busy() {
            Duration::from_millis(10)
        } else if rt.app.sh.ev.running || rt.jobs.running() || rt.jobs.validating() {
            Duration::from_millis(50)
        } else {
            Duration::from_millis(250)
        };
        let mut quit = false;
        if event::poll(wait)? {
            // Handle every event already waiting before drawing again (merges resize bursts);
            // characters typed meanwhile go in as one text (one filter run, not one per key).
            let mut typing = key::Typing::default();
            loop {
                let event = event::read()?;
                let actions = action_for(&rt.app, &event).map_or_else(Vec::new, |a| typing.feed(a));
                for action in actions {
                    if !quit {
                        quit |= step(&mut rt, &mut guard, action);
                    }
                }
                if quit || !event::poll(Duration::ZERO)? {
                    break;
                }
            }
            if let Some(action) = typing.flush().filter(|_| !quit) {
                quit |= step(&mut rt, &mut guard, action);
            }
        }
        if !quit {
            for effect in rt.pump()? {
                quit |= outside(&mut rt, &mut guard, effect);
            }
        }
        if quit {
            if rt.jobs.running() || rt.jobs.validating() {
                let what = if rt.jobs.running() {
                    rt.app.sh.live_kind()
                } else {
                    "validation"
                };
                rt.app.sh.status = Some(app::Status {
                    text: format!("stopping the {what} before quitting…"),
                    level: app::Level::Warn,
                });
                guard.terminal.draw(|frame| views::render(&rt.app, frame))?;
            }
            rt.jobs.shutdown();
            drop(guard);
            return Ok(());
        }
    }
}

/// Shortest time between two frames.
const FRAME: Duration = Duration::from_millis(33);

/// Update the app with one action and carry out its effects; true to quit.
fn step(rt: &mut Runtime, guard: &mut terminal::Guard, action: Action) -> bool {
    let mut quit = false;
    for effect in rt.step(action) {
        quit |= outside(rt, guard, effect);
    }
    quit
}

/// The effects only the terminal loop can carry out; true to quit.
fn outside(rt: &mut Runtime, guard: &mut terminal::Guard, effect: Effect) -> bool {
    match effect {
        Effect::EditPart {
            task_id,
            target,
            text,
        } => {
            // The TUI steps aside while the editor has the terminal.
            terminal::suspend();
            let editor = review::editor::editor_command();
            let name = format!("{task_id}-{}", target.file_stem());
            let result = review::editor::edit_with(&editor, &text, &name);
            if let Err(e) = terminal::resume(guard) {
                rt.app.sh.status = Some(app::Status {
                    text: format!("terminal: {e}"),
                    level: app::Level::Error,
                });
            }
            let edited = Action::ReviewEdited {
                task_id,
                target,
                result,
            };
            step(rt, guard, edited)
        }
        _ => true,
    }
}
