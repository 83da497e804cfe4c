//! The new-run dialog: endpoint, model, strategy, tasks — a generation run as a new session.

pub mod keys;
pub mod view;

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::widgets::Widget;

use crate::tui::action::Action;
use crate::tui::effect::Effect;
use crate::tui::keymap::Context;
use crate::tui::runs::{NewRunState, TaskPick};
use crate::tui::screen::{Nav, Outcome, Screen, ScreenId};
use crate::tui::shared::{Level, Shared};

pub type State = NewRunState;

impl Screen for NewRunState {
    fn contexts(&self, _sh: &Shared) -> Vec<Context> {
        vec![Context::NewRun, Context::Global]
    }

    fn update(&mut self, sh: &mut Shared, action: Action) -> Outcome {
        let d = self;
        match action {
            Action::Back | Action::Close => sh.go(Nav::Back),
            Action::Up | Action::PrevTab => d.move_focus(-1),
            Action::Down | Action::NextTab => d.move_focus(1),
            Action::Left => d.change(-1),
            Action::Right => d.change(1),
            Action::Input(c) => d.input(c),
            Action::Backspace => d.backspace(),
            Action::ClearInput => d.clear(),
            Action::Submit => match d.setup() {
                Ok(setup) => {
                    sh.go(Nav::Back);
                    return sh.start_run(setup).into();
                }
                Err(e) => sh.set_status(Level::Warn, e),
            },
            _ => {}
        }
        ().into()
    }

    fn render(&self, sh: &Shared, area: Rect, buf: &mut Buffer) {
        view::NewRunView { sh, state: self }.render(area, buf);
    }

    fn hints(&self, _sh: &Shared) -> Vec<(Context, Action, &'static str)> {
        vec![
            (Context::NewRun, Action::Submit, "start"),
            (Context::NewRun, Action::Right, "change"),
            (Context::NewRun, Action::Down, "next field"),
            (Context::NewRun, Action::Back, "cancel"),
        ]
    }

    fn opened(&mut self, sh: &mut Shared) -> Vec<Effect> {
        // From the task list or a task, the selected task is offered (and chosen).
        let from_tasks = matches!(sh.screen, ScreenId::List | ScreenId::Task);
        let selected = match sh.screen {
            ScreenId::Task => sh.data.dataset.tasks.get(sh.open_task),
            _ => sh
                .list
                .selected_task()
                .and_then(|i| sh.data.dataset.tasks.get(i)),
        }
        .map(|t| t.id.clone());
        let tasks = if from_tasks && selected.is_some() {
            TaskPick::Selected
        } else {
            TaskPick::All
        };
        *self = NewRunState {
            selected_task: selected,
            tasks,
            loading: true,
            ..NewRunState::default()
        };
        vec![Effect::LoadRunChoices]
    }
}

/// The endpoint profiles and replayable sessions for the dialog arrived.
pub fn run_choices(
    d: &mut NewRunState,
    endpoints: Vec<String>,
    replays: Vec<(String, std::path::PathBuf)>,
) {
    {
        // The profiles' contents from the config loaded at startup (as the run will read
        // them); the default one chosen and its values filled in.
        let config = crate::config::current();
        let profiles = endpoints
            .into_iter()
            .map(|name| {
                let profile = config.endpoints.get(&name).cloned().unwrap_or_default();
                (name, profile)
            })
            .collect();
        d.set_profiles(profiles, config.default_profile());
        d.replays = replays;
        d.replay = d.replay.min(d.replays.len().saturating_sub(1));
        d.loading = false;
    }
}
