//! The command palette: a fuzzy list of commands, each one an [`Action`].

use nucleo_matcher::pattern::{CaseMatching, Normalization, Pattern};
use nucleo_matcher::{Config, Matcher, Utf32Str};

use super::action::{Action, SortColumn};

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Command {
    pub label: String,
    pub action: Action,
}

/// Every command, given the theme names available.
pub fn commands(theme_names: &[String]) -> Vec<Command> {
    let mut out: Vec<Command> = theme_names
        .iter()
        .map(|t| Command {
            label: format!("theme {t}"),
            action: Action::SetTheme(t.clone()),
        })
        .collect();
    out.extend(SortColumn::ALL.iter().map(|c| Command {
        label: format!("sort {}", c.name()),
        action: Action::SortBy(*c),
    }));
    let plain = [
        ("sort reverse", Action::SortReverse),
        ("summary", Action::ShowSummary),
        ("filter", Action::StartFilter),
        ("sessions (evaluations)", Action::ShowSessions),
        ("new evaluation", Action::NewEval),
        ("new generation run", Action::NewRun),
        ("review queue (curation)", Action::ShowReview),
        ("stop the evaluation or run", Action::CancelRun),
        (
            "metrics and fingerprint panel (toggle)",
            Action::TogglePanel,
        ),
        ("compare marked sessions", Action::Compare),
        (
            "task × session grid of the compared sessions",
            Action::ShowGrid,
        ),
        ("only imperfect tasks (toggle)", Action::ToggleFailingOnly),
        ("problems", Action::ShowProblems),
        ("help", Action::ToggleHelp),
        ("quit", Action::Quit),
    ];
    out.extend(plain.into_iter().map(|(l, a)| Command {
        label: l.into(),
        action: a,
    }));
    out
}

#[derive(Debug, Clone, Default)]
pub struct PaletteState {
    pub input: String,
    /// (command index, matched character positions), best first.
    pub items: Vec<(usize, Vec<u32>)>,
    pub selected: usize,
}

impl PaletteState {
    pub fn new(commands: &[Command]) -> PaletteState {
        let mut s = PaletteState::default();
        s.refresh(commands);
        s
    }

    pub fn refresh(&mut self, commands: &[Command]) {
        if self.input.trim().is_empty() {
            self.items = (0..commands.len()).map(|i| (i, Vec::new())).collect();
        } else {
            let pattern = Pattern::parse(&self.input, CaseMatching::Ignore, Normalization::Smart);
            let mut matcher = Matcher::new(Config::DEFAULT);
            let mut buf = Vec::new();
            let mut scored: Vec<(u32, usize, Vec<u32>)> = commands
                .iter()
                .enumerate()
                .filter_map(|(i, c)| {
                    let mut idx = Vec::new();
                    let score = pattern.indices(
                        Utf32Str::new(&c.label, &mut buf),
                        &mut matcher,
                        &mut idx,
                    )?;
                    idx.sort_unstable();
                    idx.dedup();
                    Some((score, i, idx))
                })
                .collect();
            scored.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
            self.items = scored.into_iter().map(|(_, i, idx)| (i, idx)).collect();
        }
        self.selected = self.selected.min(self.items.len().saturating_sub(1));
    }

    pub fn chosen<'a>(&self, commands: &'a [Command]) -> Option<&'a Command> {
        self.items
            .get(self.selected)
            .and_then(|(i, _)| commands.get(*i))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fuzzy_finds_commands() {
        let cmds = commands(&["dark".into(), "light".into()]);
        let mut p = PaletteState::new(&cmds);
        assert_eq!(p.items.len(), cmds.len());
        p.input = "thlig".into();
        p.refresh(&cmds);
        assert_eq!(
            p.chosen(&cmds).map(|c| c.action.clone()),
            Some(Action::SetTheme("light".into()))
        );
        p.input = "zzzz".into();
        p.refresh(&cmds);
        assert!(p.chosen(&cmds).is_none());
    }
}
