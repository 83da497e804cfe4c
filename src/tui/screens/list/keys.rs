//! The task list's hints and title.

use ratatui::text::Span;

use crate::tui::action::Action as A;
use crate::tui::keymap::Context as C;
use crate::tui::shared::Shared;

pub fn hints(sh: &Shared) -> Vec<(C, A, &'static str)> {
    if sh.list.filtering {
        return vec![
            (C::Filter, A::Submit, "open"),
            (C::Filter, A::Back, "cancel"),
            (C::Filter, A::Down, "next"),
            (C::Filter, A::Up, "previous"),
        ];
    }
    vec![
        (C::List, A::Open, "open"),
        (C::List, A::StartFilter, "filter"),
        (C::List, A::SortNext, "sort"),
        (C::List, A::ShowReview, "review"),
        (C::Global, A::NewRun, "run"),
        (C::Global, A::NewEval, "eval"),
        (C::Global, A::ShowSessions, "sessions"),
        (C::Global, A::ToggleHelp, "help"),
        (C::Global, A::ShowSummary, "summary"),
        (C::List, A::Close, "quit"),
        (C::Global, A::OpenPalette, "commands"),
    ]
}

/// The dataset's name and totals (the summary shows the same).
pub fn title(sh: &Shared) -> Vec<Span<'static>> {
    let d = &sh.data;
    vec![
        Span::raw(d.dataset.name.clone()),
        Span::styled(
            format!(
                " · {} tasks · {} methods · {} edges",
                d.len(),
                d.method_total,
                d.edge_total
            ),
            sh.theme().muted(),
        ),
    ]
}
