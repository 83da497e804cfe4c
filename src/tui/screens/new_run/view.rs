//! The new-run dialog: one row per setting (what does not apply to the chosen strategy or
//! provider is hidden), the focused row marked, and what the keys do.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph, Widget, Wrap};

use crate::tui::action::Action as A;
use crate::tui::keymap::Context;
use crate::tui::runs::{Field, NewRunState};
use crate::tui::shared::Shared;
use crate::tui::widgets::{layout, pane, truncate};

/// Width of the labels column.
const LABEL: usize = 13;

pub struct NewRunView<'a> {
    pub sh: &'a Shared,
    pub state: &'a NewRunState,
}

fn key(sh: &Shared, action: &A) -> String {
    crate::tui::widgets::key_label(sh, Context::NewRun, action)
}

/// What a row means, shown under the form for the focused one.
fn help(field: Field) -> &'static str {
    match field {
        Field::Strategy => {
            "holistic: the class at once · incremental: method by method with \
                            the class so far · compositional: each method alone · tdd: \
                            dependency analysis, then test-driven methods with reflective repair"
        }
        Field::Provider => {
            "openai: a model behind an OpenAI-compatible API · reference: the \
                            dataset's solution (a self-check) · replay: a recorded session's \
                            answers"
        }
        Field::Endpoint => {
            "a profile [endpoints.NAME] of the config file (default_endpoint = \"NAME\" \
             picks the first shown); none: the base URL and model typed below"
        }
        Field::Model => "the model asked (prefilled from the profile)",
        Field::BaseUrl => "http(s)://host:port/v1 of an OpenAI-compatible server",
        Field::ApiKeyEnv => "the environment variable holding the API key (its name, not the key)",
        Field::Temperature => "sampling temperature, 0 to 2 (empty: 0)",
        Field::MaxTokens => "the longest answer in tokens (empty: the server's limit)",
        Field::Seed => "a sampling seed, for servers that honour one (empty: none)",
        Field::Replay => "the generation session whose answers are served again",
        Field::Tasks => "every task, the task selected in the list, or the ids typed",
        Field::TaskList => "task ids separated by commas",
        Field::MaxRepairs => "reflective repair rounds per method after the first try",
        Field::Schedule => {
            "the order methods are generated in: the model's, its graph sorted, \
                            the ground truth's, or the skeleton's"
        }
        Field::PublicTests => {
            "public tests when the dataset has none: the docstrings' examples, only the \
             dataset's, or the first K tests of each method's private test class"
        }
        Field::Jobs => "tasks generated at once",
    }
}

impl Widget for &NewRunView<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let sh = self.sh;
        let theme = sh.theme();
        let d = self.state;
        let fields = d.fields();
        let width = 76.min(area.width.saturating_sub(2));
        let inner_w = usize::from(width.saturating_sub(2)).max(1);
        // Borders, dataset, rows, blank, the help wrapped, blank, keys (and the loading note).
        let help_lines = help(d.focus).chars().count().div_ceil(inner_w);
        let mut rows = 2 + 1 + fields.len() + 1 + help_lines + 2 + usize::from(d.loading);
        // Short of room (an openai TDD run on 24 rows), the blank lines go first.
        let spacious = rows <= usize::from(area.height);
        if !spacious {
            rows -= 2;
        }
        let height = u16::try_from(rows).unwrap_or(u16::MAX);
        let rect = layout::centered(area, width, height);
        Clear.render(rect, buf);
        let block = pane(sh, " New generation run ").style(theme.base());
        let inner = block.inner(rect);
        block.render(rect, buf);
        let width = usize::from(inner.width);
        let ds = &sh.data.dataset;
        let mut lines = vec![Line::from(vec![
            Span::styled(format!("  {:<LABEL$}", "dataset"), theme.muted()),
            Span::raw(truncate(
                &format!("{} ({} tasks)", ds.name, ds.tasks.len()),
                width.saturating_sub(LABEL + 2),
            )),
        ])];
        for f in &fields {
            let focused = *f == d.focus;
            let mut value = d.value(*f);
            let text_row = f.is_text();
            if !text_row && focused {
                value = format!("‹ {value} ›");
            }
            let room = width.saturating_sub(LABEL + 3);
            let value = if let Some(hint) = d.placeholder(*f).filter(|_| value.is_empty()) {
                Span::styled(truncate(hint, room), theme.muted())
            } else {
                Span::raw(truncate(&value, room))
            };
            let mut line = Line::from(vec![
                Span::raw(if focused { "› " } else { "  " }),
                Span::styled(format!("{:<LABEL$}", f.label()), theme.muted()),
                value,
            ]);
            if text_row && focused {
                line.spans.push(Span::styled("▏", theme.accent()));
            }
            if focused {
                let fill = width.saturating_sub(line.width());
                line.spans.push(Span::raw(" ".repeat(fill)));
                line = line.style(theme.selection());
            }
            lines.push(line);
        }
        if spacious {
            lines.push(Line::default());
        }
        lines.push(Line::styled(help(d.focus), theme.muted()));
        let keys = format!(
            "{} start · {}/{} field · {}/{} change · {} cancel",
            key(sh, &A::Submit),
            key(sh, &A::Up),
            key(sh, &A::Down),
            key(sh, &A::Left),
            key(sh, &A::Right),
            key(sh, &A::Back),
        );
        let mut tail = vec![Line::styled(keys, theme.accent())];
        if spacious {
            tail.insert(0, Line::default());
        }
        if d.loading {
            tail.insert(
                0,
                Line::styled("reading endpoint profiles and sessions…", theme.muted()),
            );
        }
        lines.extend(tail);
        Paragraph::new(lines)
            .wrap(Wrap { trim: false })
            .render(inner, buf);
    }
}
