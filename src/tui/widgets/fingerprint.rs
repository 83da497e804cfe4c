//! The fingerprint panel: the outcome spectrum as a bar chart (the model's verdicts, then
//! `Timeout` and `EnvErr` apart: they are not the model's fault) and the exception histogram of
//! failing tests as horizontal bars (environment failures listed apart).

use ratatui::buffer::Buffer;
use ratatui::layout::{Direction, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Bar, BarChart, BarGroup, Paragraph, Widget};

use super::{layout, pane, truncate};
use crate::metrics::fingerprint::{Bucket, ExcKind, ExceptionHistogram, Spectrum};
use crate::session::reduce::FingerprintView;
use crate::tui::shared::Shared;

/// Four-character bucket names, for narrow charts and tables.
pub fn short_label(b: Bucket) -> &'static str {
    match b {
        Bucket::SyntaxErr => "SynE",
        Bucket::RuntimeErr => "RunE",
        Bucket::LogicErr => "LogE",
        Bucket::Fail => "Fail",
        Bucket::Weak => "Weak",
        Bucket::Strong => "Strg",
        Bucket::NearPerf => "Near",
        Bucket::Perfect => "Perf",
        Bucket::Timeout => "TOut",
        Bucket::EnvErr => "Env",
    }
}

/// Bucket names of at most eight characters.
pub fn medium_label(b: Bucket) -> &'static str {
    match b {
        Bucket::SyntaxErr => "Syntax",
        Bucket::RuntimeErr => "Runtime",
        Bucket::LogicErr => "Logic",
        Bucket::Fail => "Fail",
        Bucket::Weak => "Weak",
        Bucket::Strong => "Strong",
        Bucket::NearPerf => "NearPerf",
        Bucket::Perfect => "Perfect",
        Bucket::Timeout => "Timeout",
        Bucket::EnvErr => "EnvErr",
    }
}

/// An exception kind's name; `short` drops the `Error` suffix (`ZeroDivision`).
pub fn exc_label(kind: ExcKind, short: bool) -> String {
    let name = format!("{kind:?}");
    if short && name != "Error" {
        name.strip_suffix("Error").unwrap_or(&name).to_string()
    } else {
        name
    }
}

/// At most seven characters for an exception kind (compact tables).
pub fn exc_code(kind: ExcKind) -> &'static str {
    match kind {
        ExcKind::AttributeError => "Attr",
        ExcKind::TypeError => "Type",
        ExcKind::AssertionError => "Assert",
        ExcKind::ValueError => "Value",
        ExcKind::NameError => "Name",
        ExcKind::KeyError => "Key",
        ExcKind::IndexError => "Index",
        ExcKind::ZeroDivisionError => "ZeroDiv",
        ExcKind::FileNotFoundError => "NoFile",
        ExcKind::ImportError => "Import",
        ExcKind::RuntimeError => "Runtime",
        ExcKind::SyntaxError => "Syntax",
        ExcKind::RecursionError => "Recurs",
        ExcKind::Timeout => "Timeout",
        ExcKind::Other => "Other",
    }
}

/// The kinds with a count, most frequent first (ties in taxonomy order).
pub fn ranked(h: &ExceptionHistogram) -> Vec<(ExcKind, usize)> {
    let mut out: Vec<(ExcKind, usize)> = ExcKind::ALL
        .iter()
        .map(|k| (*k, h.get(*k)))
        .filter(|(_, n)| *n > 0)
        .collect();
    out.sort_by_key(|k| std::cmp::Reverse(k.1));
    out
}

const BAR_GAP: u16 = 1;
const GROUP_GAP: u16 = 3;

/// The widest bars (2–10 columns) that fit ten bars in `width`.
fn bar_width(width: u16) -> u16 {
    (2..=10u16)
        .rev()
        .find(|w| 10 * w + 9 * BAR_GAP + GROUP_GAP <= width)
        .unwrap_or(1)
}

/// The outcome spectrum of a run.
pub struct SpectrumChart<'a> {
    pub sh: &'a Shared,
    pub spectrum: &'a Spectrum,
}

impl Widget for &SpectrumChart<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let sh = self.sh;
        let theme = sh.theme();
        let total = self.spectrum.total();
        let title = format!(
            " Outcome spectrum · {total} class{} ",
            if total == 1 { "" } else { "es" }
        );
        let block = pane(sh, title);
        let inner = block.inner(area);
        block.render(area, buf);
        if inner.height < 3 || inner.width < 12 {
            return;
        }
        let bw = bar_width(inner.width);
        let label = |b: Bucket| {
            if bw >= 8 {
                medium_label(b)
            } else {
                short_label(b)
            }
        };
        let bar = |b: Bucket| {
            let style = theme.bucket(b);
            Bar::default()
                .value(self.spectrum.get(b) as u64)
                .label(Line::from(label(b)))
                .style(style)
                .value_style(style.add_modifier(Modifier::REVERSED))
        };
        let (model, other): (Vec<Bucket>, Vec<Bucket>) =
            Bucket::ALL.iter().partition(|b| b.is_model_verdict());
        let model_width = model.len() as u16 * (bw + BAR_GAP);
        let other_width = other.len() as u16 * (bw + BAR_GAP);
        let model_label = if model_width >= 22 {
            "the model's verdicts"
        } else {
            "model"
        };
        let other_label = match other_width {
            16.. => "not the model's",
            9.. => "not model",
            _ => "env",
        };
        // A gap follows every bar, the group gap the first group's.
        let used = 10 * bw + 9 * BAR_GAP + GROUP_GAP;
        let chart_area = Rect {
            x: inner.x + inner.width.saturating_sub(used) / 2,
            width: used.min(inner.width),
            ..inner
        };
        let model_bars: Vec<Bar> = model.iter().map(|b| bar(*b)).collect();
        let other_bars: Vec<Bar> = other.iter().map(|b| bar(*b)).collect();
        BarChart::default()
            .data(
                BarGroup::default()
                    .label(Line::styled(model_label, theme.muted()).centered())
                    .bars(&model_bars),
            )
            .data(
                BarGroup::default()
                    .label(Line::styled(other_label, theme.muted()).centered())
                    .bars(&other_bars),
            )
            .bar_width(bw)
            .bar_gap(BAR_GAP)
            .group_gap(GROUP_GAP)
            .label_style(theme.base())
            .render(chart_area, buf);
    }
}

/// Failing tests by exception kind (the model's), with the environment's apart.
pub struct ExceptionsChart<'a> {
    pub sh: &'a Shared,
    pub fingerprint: &'a FingerprintView,
}

impl Widget for &ExceptionsChart<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let sh = self.sh;
        let theme = sh.theme();
        let fp = self.fingerprint;
        let total = fp.exceptions.total();
        let title = if area.width >= 44 {
            format!(" Failing tests by exception · {total} ")
        } else {
            format!(" Exceptions · {total} ")
        };
        let block = pane(sh, title);
        let inner = block.inner(area);
        block.render(area, buf);
        if inner.height == 0 || inner.width < 8 {
            return;
        }
        let env = ranked(&fp.env_exceptions);
        let short = inner.width < 40;
        let env_rows = u16::from(!env.is_empty());
        let room = usize::from(inner.height.saturating_sub(env_rows));
        let mut kinds = ranked(&fp.exceptions);
        if kinds.is_empty() {
            Paragraph::new(Line::styled("no failing tests", theme.muted())).render(inner, buf);
        } else {
            let hidden = kinds.len().saturating_sub(room);
            if hidden > 0 {
                // The last row says what did not fit.
                kinds.truncate(room.saturating_sub(1));
            }
            let style = theme.accent().remove_modifier(Modifier::BOLD);
            let bars: Vec<Bar> = kinds
                .iter()
                .map(|(k, n)| {
                    Bar::default()
                        .value(*n as u64)
                        .label(Line::from(exc_label(*k, short)))
                        .style(style)
                        .value_style(style.add_modifier(Modifier::REVERSED))
                })
                .collect();
            let chart = Rect {
                height: u16::try_from(kinds.len()).unwrap_or(u16::MAX),
                ..inner
            };
            BarChart::default()
                .direction(Direction::Horizontal)
                .data(BarGroup::default().bars(&bars))
                .bar_width(1)
                .bar_gap(0)
                .label_style(theme.base())
                .render(chart.intersection(inner), buf);
            if hidden > 0 {
                let y = inner.y + u16::try_from(kinds.len()).unwrap_or(0);
                if y < inner.bottom() {
                    let text = format!("+{} more kinds", hidden + 1);
                    Paragraph::new(Line::styled(text, theme.muted())).render(
                        Rect {
                            y,
                            height: 1,
                            ..inner
                        },
                        buf,
                    );
                }
            }
        }
        if !env.is_empty() {
            let list: Vec<String> = env
                .iter()
                .map(|(k, n)| format!("{} {n}", exc_label(*k, true)))
                .collect();
            let what = if short {
                "env"
            } else {
                "environment (not the model's)"
            };
            let text = format!("{what}: {}", list.join(", "));
            let y = inner.bottom() - 1;
            Paragraph::new(Line::from(vec![Span::styled(
                truncate(&text, usize::from(inner.width)),
                theme.muted(),
            )]))
            .render(
                Rect {
                    y,
                    height: 1,
                    ..inner
                },
                buf,
            );
        }
    }
}

/// The spectrum and the exception histogram of `fp`, side by side when wide enough.
pub fn render_panel(sh: &Shared, fp: &FingerprintView, area: Rect, buf: &mut Buffer) {
    let (spectrum, exceptions) = layout::fingerprint_split(area);
    SpectrumChart {
        sh,
        spectrum: &fp.spectrum,
    }
    .render(spectrum, buf);
    if let Some(rect) = exceptions {
        ExceptionsChart {
            sh,
            fingerprint: fp,
        }
        .render(rect, buf);
    }
}

/// A bucket name in its colour.
pub fn bucket_span(sh: &Shared, bucket: Option<Bucket>, width: usize) -> Span<'static> {
    match bucket {
        Some(b) => Span::styled(format!("{:<width$}", b.as_str()), sh.theme().bucket(b)),
        None => Span::styled(format!("{:<width$}", "—"), sh.theme().muted()),
    }
}

/// An eighth-block glyph for a share in 0..=1 (empty for 0).
pub fn share_glyph(share: f64) -> &'static str {
    const GLYPHS: [&str; 9] = [" ", "▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"];
    if !share.is_finite() || share <= 0.0 {
        return GLYPHS[0];
    }
    let i = (share.min(1.0) * 8.0).ceil() as usize;
    GLYPHS[i.clamp(1, 8)]
}

/// Style for a count cell: muted when zero.
pub fn count_style(sh: &Shared, n: usize, style: Style) -> Style {
    if n == 0 { sh.theme().muted() } else { style }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bars_fit_and_labels_are_short() {
        assert_eq!(bar_width(52), 4);
        assert_eq!(bar_width(51), 3);
        assert_eq!(bar_width(94), 8);
        assert_eq!(bar_width(10), 1);
        for b in Bucket::ALL {
            assert!(short_label(b).len() <= 4 && medium_label(b).len() <= 8);
        }
        assert_eq!(exc_label(ExcKind::ZeroDivisionError, true), "ZeroDivision");
        assert_eq!(exc_label(ExcKind::Other, true), "Other");
    }

    #[test]
    fn share_glyphs() {
        assert_eq!(share_glyph(0.0), " ");
        assert_eq!(share_glyph(0.001), "▁");
        assert_eq!(share_glyph(0.5), "▄");
        assert_eq!(share_glyph(1.0), "█");
        assert_eq!(share_glyph(f64::NAN), " ");
    }
}
