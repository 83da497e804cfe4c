//! The app: the screens' stack and the one entry point for change, `App::update(Action) ->
//! Vec<Effect>`. It handles the few global actions, offers the rest to the top layer, routes
//! background results to their owner, and carries out navigation. Screens do everything else.

pub use super::effect::Effect;
pub use super::screen::{Nav, ScreenId, scrolled};
pub use super::screens::task::{Tab, state::TaskState};
pub use super::shared::{Level, Shared, Status, UiSetup};
pub use super::widgets::code_pane::CodeScroll;

use super::action::Action;
use super::data::Data;
use super::key::{self, INPUT_CAP};
use super::keymap::Context;
use super::screen::Outcome;
use super::screens::{self, Screens};
use super::shared::Pending;

pub struct App {
    /// What every screen reads: the data, the session models, theme, keys, status.
    pub sh: Shared,
    /// Every screen's own state.
    pub screens: Screens,
    /// Bottom first; the task list is always at the bottom. Layers are on top of screens.
    stack: Vec<ScreenId>,
}

impl App {
    pub fn new(data: Data, setup: UiSetup) -> App {
        App {
            sh: Shared::new(data, setup),
            screens: Screens::default(),
            stack: vec![ScreenId::List],
        }
    }

    /// The screen shown (under any layer).
    pub fn screen(&self) -> ScreenId {
        self.sh.screen
    }

    /// The top of the stack: a layer, or the screen shown.
    pub fn top(&self) -> ScreenId {
        self.stack.last().copied().unwrap_or(ScreenId::List)
    }

    /// The top layer, if any (help, palette, a dialog, a question).
    pub fn layer(&self) -> Option<ScreenId> {
        Some(self.top()).filter(|id| id.is_layer())
    }

    /// The layers over the screen, bottom first.
    pub fn layers(&self) -> impl Iterator<Item = ScreenId> + '_ {
        self.stack.iter().copied().filter(|id| id.is_layer())
    }

    /// The keymap contexts active now, most specific first.
    pub fn contexts(&self) -> Vec<Context> {
        self.screens.get(self.top()).contexts(&self.sh)
    }

    /// The contexts of the screen under any layer (what the help lists).
    pub fn view_contexts(&self) -> Vec<Context> {
        self.screens.get(self.screen()).contexts(&self.sh)
    }

    pub fn update(&mut self, action: Action) -> Vec<Effect> {
        let mut effects = self.route(action);
        // Navigation and follow-up actions asked for during the update, in order (a follow-up
        // may ask for more; bounded so that a loop cannot hang the UI).
        for _ in 0..64 {
            let pending = self.sh.take_pending();
            if pending.is_empty() {
                break;
            }
            for p in pending {
                match p {
                    Pending::Nav(nav) => effects.extend(self.navigate(nav)),
                    Pending::Action(action) => effects.extend(self.route(action)),
                }
            }
        }
        effects
    }

    /// Show a screen (for drivers: `replay`, benchmarks).
    pub fn show(&mut self, id: ScreenId) -> Vec<Effect> {
        self.navigate(Nav::To(id))
    }

    /// Start on `id` instead of the task list (a corpus store opens its browser): going back
    /// from it quits, as from the task list.
    pub fn show_root(&mut self, id: ScreenId) -> Vec<Effect> {
        self.stack = vec![id];
        self.sh.screen = id;
        self.screens.get_mut(id).opened(&mut self.sh)
    }

    fn route(&mut self, action: Action) -> Vec<Effect> {
        self.sh.dirty = true;
        if action.is_background() {
            return self.background(action);
        }
        if !matches!(action, Action::Resize(..) | Action::Scroll(_)) {
            self.sh.status = None;
        }
        let top = self.top();
        if self.needs_tasks(&action) && self.sh.data.is_empty() && !self.sh.data.is_loading() {
            // The corpus browser (or an empty dataset) has no task: a summary or a run over
            // none would look like a result.
            let text = if self.stack.contains(&ScreenId::Corpus) {
                "a corpus store holds classes, not tasks: export a selection (`classlab corpus \
                 export STORE FILTER --out DIR --format classlab`) and open it with --dataset \
                 to summarise, evaluate or run it"
            } else {
                "the dataset has no tasks"
            };
            self.sh.set_status(Level::Warn, text);
            return Vec::new();
        }
        match action {
            Action::Quit => return vec![Effect::Quit],
            Action::Resize(w, h) => {
                self.sh.size = (w, h);
                self.clamp();
            }
            Action::CycleTheme => self.sh.cycle_theme(),
            Action::SetTheme(name) => self.sh.set_theme(&name),
            Action::ShowSummary => {
                self.sh.go(Nav::CloseLayers);
                self.sh.go(Nav::To(ScreenId::Summary));
            }
            Action::ShowProblems if top != ScreenId::Problems => {
                self.sh.go(Nav::To(ScreenId::Problems))
            }
            Action::ToggleHelp if top != ScreenId::Help => self.sh.go(Nav::To(ScreenId::Help)),
            Action::OpenPalette => self.sh.go(Nav::To(ScreenId::Palette)),
            Action::ShowSessions => {
                self.sh.go(Nav::CloseLayers);
                return self.sh.show_sessions();
            }
            Action::NewEval => self.sh.go(Nav::To(ScreenId::NewEval)),
            Action::NewRun => self.sh.go(Nav::To(ScreenId::NewRun)),
            Action::CancelRun => self.sh.ask_cancel(),
            Action::ShowReview => return self.screens.review.show_review(&mut self.sh),
            Action::ShowGrid => self.sh.show_grid(),
            Action::InsertText(text) => return self.insert_text(&text),
            action => {
                // Offered from the top down until a layer or screen uses it.
                for id in self.stack.clone().into_iter().rev() {
                    let outcome = self
                        .screens
                        .get_mut(id)
                        .update(&mut self.sh, action.clone());
                    if let Outcome::Consumed(effects) = outcome {
                        return effects;
                    }
                }
            }
        }
        Vec::new()
    }

    /// Actions that work on the dataset's tasks (nothing to do without any).
    fn needs_tasks(&self, action: &Action) -> bool {
        matches!(
            action,
            Action::ShowSummary | Action::NewRun | Action::NewEval | Action::ShowReview
        )
    }

    /// Results of background work, to the model or screen they belong to.
    fn background(&mut self, action: Action) -> Vec<Effect> {
        match action {
            Action::ReviewLoaded { .. }
            | Action::ReviewSaved { .. }
            | Action::ReviewEdited { .. }
            | Action::ReviewValidated { .. } => {
                screens::review::background(&mut self.screens.review, &mut self.sh, action)
            }
            Action::Rigor(news) => {
                self.sh.rigor.apply(&news.0);
                Vec::new()
            }
            Action::TasksFiltered { req, found } => {
                self.sh.tasks_filtered(req, found.take());
                Vec::new()
            }
            Action::PredictionFiles(files) => {
                screens::new_eval::files_found(&mut self.screens.new_eval, files);
                Vec::new()
            }
            Action::RunChoices { endpoints, replays } => {
                screens::new_run::run_choices(&mut self.screens.new_run, endpoints, replays);
                Vec::new()
            }
            action => self.sh.update_background(action),
        }
    }

    fn navigate(&mut self, nav: Nav) -> Vec<Effect> {
        match nav {
            Nav::To(id) if id.is_layer() => {
                if self.top().is_layer() {
                    self.stack.pop();
                }
                if id == ScreenId::Help {
                    self.screens.help.contexts = self.view_contexts();
                }
                self.stack.push(id);
            }
            Nav::To(id) => {
                self.close_layers();
                if self.top() == id {
                    return Vec::new();
                }
                match self.stack.iter().position(|s| *s == id) {
                    Some(at) => self.stack.truncate(at + 1),
                    None => self.stack.push(id),
                }
            }
            Nav::Back => {
                if self.stack.len() > 1 {
                    self.stack.pop();
                } else if self.top() != ScreenId::List {
                    return vec![Effect::Quit];
                }
                self.sh.screen = self.shown();
                return Vec::new();
            }
            Nav::CloseLayers => {
                self.close_layers();
                return Vec::new();
            }
        }
        self.sh.screen = self.shown();
        let id = self.top();
        self.screens.get_mut(id).opened(&mut self.sh)
    }

    fn close_layers(&mut self) {
        while self.top().is_layer() {
            self.stack.pop();
        }
        self.sh.screen = self.shown();
    }

    fn shown(&self) -> ScreenId {
        let screens = self.stack.iter().rev();
        screens
            .copied()
            .find(|id| !id.is_layer())
            .unwrap_or(ScreenId::List)
    }

    /// Keep every position valid after a resize.
    fn clamp(&mut self) {
        let page = self.sh.list_page();
        self.sh.list.scroll_into_view(page);
        self.sh.clamp_eval();
        self.sh.clamp_run();
        for id in self.stack.clone() {
            self.screens.get_mut(id).clamp(&self.sh);
        }
    }

    /// Text that arrived at once, for the input that has focus: the filter and the palette
    /// take its first line, up to [`INPUT_CAP`] characters in all, and filter once; the other
    /// inputs get it character by character (as typed); elsewhere it is ignored (a paste is
    /// never taken for commands).
    fn insert_text(&mut self, text: &str) -> Vec<Effect> {
        let palette = self.top() == ScreenId::Palette;
        let filter = self.top() == ScreenId::List && self.sh.list.filtering;
        if !palette && !filter {
            if !self.contexts().first().is_some_and(|c| c.is_text_input()) {
                return Vec::new();
            }
            let line = key::one_line(text, INPUT_CAP);
            let effects = line
                .text
                .chars()
                .flat_map(|c| self.route(Action::Input(c)))
                .collect();
            if let Some(note) = line.note("input") {
                self.sh.set_status(Level::Warn, note);
            }
            return effects;
        }
        let (input, name) = if palette {
            (&mut self.screens.palette.input, "palette")
        } else {
            (&mut self.sh.list.filter, "filter")
        };
        let line = key::one_line(text, INPUT_CAP.saturating_sub(input.chars().count()));
        input.push_str(&line.text);
        if line.text.is_empty() {
            // Nothing changed: nothing to filter again.
        } else if palette {
            self.screens.palette.selected = 0;
            self.screens.palette.refresh(&self.sh.commands);
        } else {
            self.sh.refilter();
        }
        if let Some(note) = line.note(name) {
            self.sh.set_status(Level::Warn, note);
        }
        Vec::new()
    }

    /// Let the screens in the stack take in their own background results; whether any did.
    pub fn poll_screens(&mut self) -> bool {
        let mut changed = false;
        for id in self.stack.clone() {
            changed |= self.screens.get_mut(id).poll(&mut self.sh);
        }
        changed
    }

    /// A screen in the stack waits for its background work.
    pub fn screens_busy(&self) -> bool {
        self.stack.iter().any(|id| self.screens.get(*id).busy())
    }
}
