//! The step-through's documents for one round: the model's side (prompt, response,
//! reflection) and the code's side (public tests, the patch as a diff, the code), each a list
//! of lines with its sections marked, wrapped to the pane's width. Shared by the view and by
//! `App::update` (scrolling needs their lengths).

use std::hash::{Hash, Hasher};

use ratatui::text::{Line, Span};

use super::code_pane::window;
use super::eval_view::failure_brief;
use super::layout::StepAreas;
use super::step_text::{diff_counts, diff_lines, wrap_into};
use super::test_detail::{outcome_label, outcome_style};
use super::truncate;
use crate::model::{Outcome, SuiteResult};
use crate::session::trace::{CallTrace, ClassMethod, PublicCheck, ReflectionTrace, RoundTrace};
use crate::tui::runs::step_ctx::StepCtx;
use crate::tui::runs::{count, round_code, round_tests};
use crate::tui::shared::Shared;
use crate::tui::theme::Theme;

/// A pane's lines and where its sections start.
#[derive(Debug, Default)]
pub struct Doc {
    pub title: &'static str,
    pub lines: Vec<Line<'static>>,
    pub sections: Vec<usize>,
}

impl Doc {
    fn section(&mut self, heading: Line<'static>) {
        if !self.lines.is_empty() {
            self.lines.push(Line::default());
        }
        self.sections.push(self.lines.len());
        self.lines.push(heading);
    }

    fn append(&mut self, other: Doc) {
        let offset = self.lines.len() + usize::from(!self.lines.is_empty());
        if !self.lines.is_empty() {
            self.lines.push(Line::default());
        }
        self.sections
            .extend(other.sections.iter().map(|s| s + offset));
        self.lines.extend(other.lines);
    }
}

fn heading(theme: &Theme, text: String, detail: String) -> Line<'static> {
    Line::from(vec![
        Span::styled(text, theme.header()),
        Span::styled(detail, theme.muted()),
    ])
}

/// The panes' documents: the model's and the code's side apart when wide, else one.
pub fn documents(sh: &Shared, ctx: &StepCtx, areas: &StepAreas) -> Vec<Doc> {
    let inner = |r: ratatui::layout::Rect| usize::from(r.width.saturating_sub(2)).max(1);
    let round = ctx
        .method
        .zip(ctx.round)
        .and_then(|(m, i)| m.rounds.get(i).map(|r| (m, i, r)));
    let in_class = ctx
        .task
        .zip(ctx.method)
        .and_then(|(t, m)| t.in_class(&m.name));
    let Some((method, index, round)) = round else {
        if let Some(c) = in_class {
            // Written with the whole class (holistic): the method is where it stands in it.
            let mut doc = Doc {
                title: " Method ",
                ..Doc::default()
            };
            class_section(&mut doc, sh, c, inner(areas.left));
            return vec![doc];
        }
        let mut doc = Doc {
            title: " Rounds ",
            ..Doc::default()
        };
        let text = match ctx.method {
            None => "Not generated yet.",
            Some(_) if ctx.live => "Starting: waiting for the first request…",
            Some(_) => "No round was recorded for this method.",
        };
        doc.lines.push(Line::styled(text, sh.theme().muted()));
        return vec![doc];
    };
    let call = round
        .call
        .and_then(|c| ctx.task.and_then(|t| t.calls.get(c)));
    let previous = index
        .checked_sub(1)
        .and_then(|i| method.rounds.get(i))
        .and_then(round_code);
    match areas.right {
        Some(right) => {
            let mut code = code_doc(
                sh,
                ctx.live,
                round,
                method.public_check.as_ref(),
                previous,
                inner(right),
            );
            if let Some(c) = in_class {
                class_section(&mut code, sh, c, inner(right));
            }
            vec![model_doc(sh, ctx, round, call, inner(areas.left)), code]
        }
        None => {
            let width = inner(areas.left);
            let mut doc = model_doc(sh, ctx, round, call, width);
            doc.append(code_doc(
                sh,
                ctx.live,
                round,
                method.public_check.as_ref(),
                previous,
                width,
            ));
            if let Some(c) = in_class {
                class_section(&mut doc, sh, c, width);
            }
            doc.title = " Round ";
            vec![doc]
        }
    }
}

/// Prompt, response and reflection.
fn model_doc(
    sh: &Shared,
    ctx: &StepCtx,
    round: &RoundTrace,
    call: Option<&CallTrace>,
    width: usize,
) -> Doc {
    let theme = sh.theme();
    let mut doc = Doc {
        title: " Model ",
        ..Doc::default()
    };
    let Some(call) = call else {
        doc.section(heading(theme, "Prompt".into(), String::new()));
        doc.lines.push(Line::styled(
            "No request recorded for this round.",
            theme.muted(),
        ));
        if let Some(r) = &round.reflection {
            reflection(&mut doc, theme, round.round, r, width);
        }
        return doc;
    };
    prompt(&mut doc, sh, ctx, call, width);
    response(&mut doc, theme, ctx.live, call, width);
    if let Some(r) = &round.reflection {
        reflection(&mut doc, theme, round.round, r, width);
    }
    doc
}

fn prompt(doc: &mut Doc, sh: &Shared, ctx: &StepCtx, call: &CallTrace, width: usize) {
    let theme = sh.theme();
    let chars: usize = call
        .messages
        .iter()
        .map(|m| m.content.chars().count())
        .sum();
    let n = call.messages.len();
    let key = sh
        .keymap
        .key_for(
            crate::tui::keymap::Context::Step,
            &crate::tui::action::Action::ToggleFold,
        )
        .map_or_else(|| "?".into(), |k| k.to_string());
    let open = ctx.step.prompt_open;
    let (mark, verb) = if open {
        ("▾", "folds")
    } else {
        ("▸", "unfolds")
    };
    doc.section(heading(
        theme,
        format!("{mark} Prompt"),
        format!(
            " · {n} message{} · {} chars · {key} {verb}",
            if n == 1 { "" } else { "s" },
            count(chars as u64)
        ),
    ));
    if !open {
        // The instruction is at the end of the last message: its last line says what is asked.
        let summary = call
            .messages
            .last()
            .map(|m| {
                let line = m.content.lines().rev().find(|l| !l.trim().is_empty());
                format!("{}: {}", m.role, line.unwrap_or("").trim())
            })
            .unwrap_or_default();
        doc.lines
            .push(Line::styled(truncate(&summary, width), theme.muted()));
        return;
    }
    for m in &call.messages {
        doc.lines
            .push(Line::styled(format!("── {} ──", m.role), theme.accent()));
        wrap_into(&mut doc.lines, &m.content, width, theme.base());
    }
}

fn response(doc: &mut Doc, theme: &Theme, live: bool, call: &CallTrace, width: usize) {
    let Some(r) = &call.response else {
        let state = if !live {
            " · no response recorded"
        } else if call.streamed.is_empty() {
            " · waiting for the model…"
        } else {
            " · streaming…"
        };
        doc.section(heading(
            theme,
            "Response".into(),
            format!(" · {}{state}", call.model),
        ));
        wrap_into(&mut doc.lines, &call.streamed, width, theme.base());
        if live {
            doc.lines.push(Line::styled("▌", theme.accent()));
        }
        return;
    };
    let mut detail = format!(" · {} · {:.1} s", call.model, r.latency_s);
    if let Some(u) = r.usage {
        detail.push_str(&format!(
            " · {}→{} tokens",
            count(u.prompt_tokens),
            count(u.completion_tokens)
        ));
    }
    if r.retries > 0 {
        detail.push_str(&format!(
            " · {} retr{}",
            r.retries,
            if r.retries == 1 { "y" } else { "ies" }
        ));
    }
    doc.section(heading(theme, "Response".into(), detail));
    if let Some(f) = &r.failure {
        wrap_into(
            &mut doc.lines,
            &format!("✗ no answer ({:?}): {}", f.kind, f.message),
            width,
            theme.error(),
        );
    }
    if r.prompt_changed {
        doc.lines.push(Line::styled(
            "⚠ the prompt differs from the recorded one (replay)",
            theme.warn(),
        ));
    }
    for note in &r.retry_log {
        wrap_into(&mut doc.lines, &format!("↻ {note}"), width, theme.muted());
    }
    wrap_into(&mut doc.lines, &r.text, width, theme.base());
}

fn reflection(doc: &mut Doc, theme: &Theme, round: u32, r: &ReflectionTrace, width: usize) {
    doc.section(heading(
        theme,
        "Reflection".into(),
        format!(" · repair {round}"),
    ));
    for (name, text) in [
        ("Failure analysis", &r.analysis),
        ("Code region", &r.region),
        ("Repair plan", &r.plan),
    ] {
        doc.lines.push(Line::styled(name, theme.accent()));
        if text.trim().is_empty() {
            doc.lines.push(Line::styled("(not given)", theme.muted()));
        } else {
            wrap_into(&mut doc.lines, text.trim(), width, theme.base());
        }
    }
    for p in &r.problems {
        wrap_into(&mut doc.lines, &format!("⚠ {p}"), width, theme.warn());
    }
}

/// Public tests, the patch as a diff against the previous round, and the code.
fn code_doc(
    sh: &Shared,
    live: bool,
    round: &RoundTrace,
    check: Option<&PublicCheck>,
    previous: Option<&str>,
    width: usize,
) -> Doc {
    let theme = sh.theme();
    let mut doc = Doc {
        title: " Code ",
        ..Doc::default()
    };
    tests(&mut doc, theme, live, round, width);
    if let Some(check) = check.filter(|c| !c.left_out.is_empty()) {
        doc.section(heading(
            theme,
            "Left out".into(),
            format!(
                " · {} public test(s) the reference does not pass",
                check.left_out.len()
            ),
        ));
        for l in &check.left_out {
            wrap_into(
                &mut doc.lines,
                &format!("• {}: {}", l.test, l.reason),
                width,
                theme.warn(),
            );
        }
    }
    let code = round_code(round).filter(|c| !c.trim().is_empty());
    if round.round > 0 {
        patch(
            &mut doc,
            theme,
            live,
            round,
            previous.unwrap_or(""),
            code,
            width,
        );
    }
    doc.section(heading(
        theme,
        "Code".into(),
        format!(" · round {} as extracted", round.round),
    ));
    match code {
        Some(code) => code_lines(&mut doc, sh, code, width),
        None if live => doc.lines.push(Line::styled("(not yet)", theme.muted())),
        None => doc
            .lines
            .push(Line::styled("(no code in this round)", theme.muted())),
    }
    for note in &round.notes {
        wrap_into(&mut doc.lines, &format!("• {note}"), width, theme.muted());
    }
    doc
}

/// The round's code against the previous round's, as a unified diff.
fn patch(
    doc: &mut Doc,
    theme: &Theme,
    live: bool,
    round: &RoundTrace,
    old: &str,
    new: Option<&str>,
    width: usize,
) {
    let title = format!(" · round {} → {}", round.round - 1, round.round);
    let Some(new) = new else {
        doc.section(heading(theme, "Patch".into(), title));
        let text = if live {
            "(not yet)"
        } else {
            "(the reply held no usable code)"
        };
        doc.lines.push(Line::styled(text, theme.muted()));
        return;
    };
    let (plus, minus) = diff_counts(old, new);
    doc.section(heading(
        theme,
        "Patch".into(),
        format!("{title} · +{plus} −{minus}"),
    ));
    let diff = diff_lines(theme, old, new, width);
    if diff.is_empty() {
        doc.lines
            .push(Line::styled("no change to the code", theme.muted()));
    }
    doc.lines.extend(diff);
}

fn tests(doc: &mut Doc, theme: &Theme, live: bool, round: &RoundTrace, width: usize) {
    let Some(suite) = &round.public else {
        let what = if live {
            " · not run yet"
        } else {
            " · not run"
        };
        doc.section(heading(theme, "Public tests".into(), what.into()));
        return;
    };
    let (passed, total) = round_tests(round).unwrap_or((0, 0));
    doc.section(heading(
        theme,
        "Public tests".into(),
        format!(" · {passed}/{total} passed"),
    ));
    suite_lines(doc, theme, suite, width);
}

fn suite_lines(doc: &mut Doc, theme: &Theme, suite: &SuiteResult, width: usize) {
    if let Some(f) = &suite.failure {
        doc.lines.push(Line::styled(
            truncate(&format!("✗ {}", failure_brief(f)), width),
            theme.error(),
        ));
    }
    for t in &suite.tests {
        let (glyph, name) = outcome_label(t.outcome);
        let style = outcome_style(theme, t.outcome);
        let id = super::test_detail::fit_id(&t.id, width.saturating_sub(10));
        doc.lines.push(Line::from(vec![
            Span::styled(format!("{glyph} {name:<7} "), style),
            Span::raw(id),
        ]));
        if t.outcome != Outcome::Pass {
            let what = match (&t.exc_type, &t.message) {
                (Some(e), Some(m)) => format!("{e}: {}", m.lines().next().unwrap_or("")),
                (Some(e), None) => e.clone(),
                (None, Some(m)) => m.lines().next().unwrap_or("").to_string(),
                (None, None) => continue,
            };
            doc.lines.push(Line::styled(
                truncate(&format!("    {what}"), width),
                theme.muted(),
            ));
        }
    }
}

/// The method as it stands in the judged class: its outcome, its tests (the private suite's,
/// of its test class) and its code region.
fn class_section(doc: &mut Doc, sh: &Shared, c: &ClassMethod, width: usize) {
    let theme = sh.theme();
    let outcome = c.outcome.map_or("not judged", |b| b.as_str());
    doc.section(Line::from(vec![
        Span::styled("Outcome", theme.header()),
        Span::styled(" · ", theme.muted()),
        match c.outcome {
            Some(b) => Span::styled(outcome.to_string(), theme.bucket(b)),
            None => Span::styled(outcome.to_string(), theme.muted()),
        },
        Span::styled(" · on its own test class", theme.muted()),
    ]));
    let passed = c
        .tests
        .tests
        .iter()
        .filter(|t| t.outcome == Outcome::Pass)
        .count();
    let total = c.tests.tests.len();
    doc.section(heading(
        theme,
        "Tests".into(),
        match &c.test_class {
            Some(class) => format!(" · {class} · {passed}/{total} passed"),
            None => " · no test class found for it".into(),
        },
    ));
    if total > 0 || c.tests.failure.is_some() {
        suite_lines(doc, theme, &c.tests, width);
    }
    match (&c.code, c.lines) {
        (Some(code), Some((from, to))) => {
            doc.section(heading(
                theme,
                "In the class".into(),
                format!(" · lines {from}–{to}"),
            ));
            code_lines_from(doc, sh, code, from, to, width);
        }
        _ => {
            doc.section(heading(theme, "In the class".into(), String::new()));
            doc.lines.push(Line::styled(
                "(not defined in the generated class)",
                theme.muted(),
            ));
        }
    }
}

/// A cache key for highlighting a round's code (pane 10: generated code).
fn code_key(code: &str) -> (usize, u8) {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    code.hash(&mut h);
    (h.finish() as usize, 10)
}

fn code_lines(doc: &mut Doc, sh: &Shared, code: &str, width: usize) {
    let total = code.lines().count();
    code_lines_from(doc, sh, code, 1, total, width);
}

/// `code` numbered from line `first` on (`last`: the highest number shown, for the gutter).
fn code_lines_from(
    doc: &mut Doc,
    sh: &Shared,
    code: &str,
    first: usize,
    last: usize,
    width: usize,
) {
    let theme = sh.theme();
    let total = code.lines().count();
    let digits = last.max(1).to_string().len();
    let syntax = theme.has_color().then_some(theme.syntax.as_str());
    let styled = sh
        .highlight
        .borrow_mut()
        .lines(code_key(code), code, syntax, 0, total);
    let room = width.saturating_sub(digits + 1);
    for (i, line) in styled.into_iter().enumerate() {
        let mut spans = vec![Span::styled(
            format!("{:>digits$} ", i + first),
            theme.line_number(),
        )];
        spans.extend(window(line, 0, room));
        doc.lines.push(Line::from(spans));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sections_keep_their_place_when_appended() {
        let mut a = Doc::default();
        a.section(Line::raw("A"));
        a.lines.push(Line::raw("a"));
        let mut b = Doc::default();
        b.section(Line::raw("B"));
        a.append(b);
        assert_eq!(a.sections, [0, 3]);
        assert_eq!(a.lines.len(), 4);
        assert_eq!(a.lines[3], Line::raw("B"));
    }
}
