//! A histogram as text: one row per bin, a bar proportional to its count.

use ratatui::style::Style;
use ratatui::text::{Line, Span};

/// Rows `label │bar count` for `counts`, bars scaled to `width` columns at most.
pub fn lines(
    labels: &[String],
    counts: &[usize],
    width: usize,
    bar: Style,
    muted: Style,
) -> Vec<Line<'static>> {
    let most = counts.iter().copied().max().unwrap_or(0).max(1);
    let label_w = labels.iter().map(|l| l.chars().count()).max().unwrap_or(0);
    let room = width.saturating_sub(label_w + 8).max(1);
    labels
        .iter()
        .zip(counts)
        .map(|(label, &n)| {
            let len = (n * room).div_ceil(most).min(room);
            Line::from(vec![
                Span::styled(format!("  {label:>label_w$} │"), muted),
                Span::styled("█".repeat(len), bar),
                Span::raw(format!(" {n}")),
            ])
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bars_scale_to_the_largest_bin() {
        let labels = vec!["a".to_string(), "b".to_string()];
        let l = lines(&labels, &[2, 4], 20, Style::default(), Style::default());
        let text = |i: usize| {
            l[i].spans
                .iter()
                .map(|s| s.content.as_ref())
                .collect::<String>()
        };
        assert_eq!(text(1), "  b │████████████ 4");
        assert_eq!(text(0), "  a │██████ 2");
        let empty = lines(&labels, &[0, 0], 20, Style::default(), Style::default());
        assert_eq!(empty[0].spans[1].content, "");
    }
}
