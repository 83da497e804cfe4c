//! A minimal SVG writer for the HTML report's charts. Written here rather than taken from
//! a plotting crate: the charts are bars, whiskers and cells, a few dozen lines of markup,
//! and a crate (plotters and the like) would bring fonts and backends the report never uses.

use std::fmt::Write as _;

/// Escape text for XML/HTML content and attribute values; control characters and bidi
/// overrides from the input are written as visible escapes (they are not valid XML).
pub fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            c if crate::text::needs_escape(c) => {
                out.push_str(&crate::text::escape_control(c.encode_utf8(&mut [0; 4])))
            }
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// A colour-blind-safe palette (Okabe–Ito), cycled.
pub fn series_color(i: usize) -> &'static str {
    const P: [&str; 8] = [
        "#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000",
    ];
    P[i % P.len()]
}

/// The colour of a failure cause: blues and purples, and grey for the unexplained — none of
/// them a colour of the sessions' series, so a cause is never read as a model.
pub fn cause_color(cause: crate::metrics::causes::Cause) -> &'static str {
    use crate::metrics::causes::Cause;
    match cause {
        Cause::MissingMethod => "#08306b",
        Cause::SignatureMismatch => "#2171b5",
        Cause::UnassignedAttribute => "#6baed6",
        Cause::NotImported => "#54278f",
        Cause::MissingModuleEnv => "#bcbddc",
        Cause::MissingModuleModel => "#807dba",
        Cause::Unexplained => "#969696",
    }
}

/// Black or white, whichever reads on `fill` (`#rrggbb`).
pub fn ink_on(fill: &str) -> &'static str {
    let c = |i: usize| {
        fill.get(i..i + 2)
            .and_then(|h| u8::from_str_radix(h, 16).ok())
            .map_or(255.0, f64::from)
    };
    let luma = 0.299 * c(1) + 0.587 * c(3) + 0.114 * c(5);
    if luma < 110.0 { "#fff" } else { "#000" }
}

/// The colour of a fingerprint bucket: failures warm, successes green, environment grey.
pub fn bucket_color(name: &str) -> &'static str {
    match name {
        "SyntaxErr" => "#7f0000",
        "RuntimeErr" => "#d7301f",
        "LogicErr" => "#fc8d59",
        "Fail" => "#fdbb84",
        "Weak" => "#fee08b",
        "Strong" => "#d9ef8b",
        "NearPerf" => "#91cf60",
        "Perfect" => "#1a9850",
        "Timeout" => "#807dba",
        "EnvErr" => "#bdbdbd",
        _ => "#f0f0f0",
    }
}

pub struct Svg {
    width: f64,
    height: f64,
    body: String,
}

impl Svg {
    pub fn new(width: f64, height: f64) -> Self {
        Svg {
            width,
            height,
            body: String::new(),
        }
    }

    /// A rectangle with a hover title.
    pub fn rect(&mut self, x: f64, y: f64, w: f64, h: f64, fill: &str, title: &str) {
        let _ = write!(
            self.body,
            r#"<rect x="{x:.1}" y="{y:.1}" width="{:.1}" height="{:.1}" fill="{fill}"><title>{}</title></rect>"#,
            w.max(0.0),
            h.max(0.0),
            esc(title)
        );
    }

    pub fn line(&mut self, x1: f64, y1: f64, x2: f64, y2: f64, stroke: &str, width: f64) {
        let _ = write!(
            self.body,
            r#"<line x1="{x1:.1}" y1="{y1:.1}" x2="{x2:.1}" y2="{y2:.1}" stroke="{stroke}" stroke-width="{width}"/>"#
        );
    }

    pub fn circle(&mut self, cx: f64, cy: f64, r: f64, fill: &str, title: &str) {
        let _ = write!(
            self.body,
            r#"<circle cx="{cx:.1}" cy="{cy:.1}" r="{r}" fill="{fill}"><title>{}</title></circle>"#,
            esc(title)
        );
    }

    /// Text; `anchor` is start, middle or end.
    pub fn text(&mut self, x: f64, y: f64, s: &str, anchor: &str, size: f64) {
        let _ = write!(
            self.body,
            r#"<text x="{x:.1}" y="{y:.1}" text-anchor="{anchor}" font-size="{size}">{}</text>"#,
            esc(s)
        );
    }

    /// Text in a colour (white on dark fills).
    pub fn text_in(&mut self, x: f64, y: f64, s: &str, size: f64, fill: &str) {
        let _ = write!(
            self.body,
            r#"<text x="{x:.1}" y="{y:.1}" text-anchor="middle" font-size="{size}" fill="{fill}">{}</text>"#,
            esc(s)
        );
    }

    /// A vertical error bar from `lo` to `hi` (pixel coordinates) at x.
    pub fn whisker(&mut self, x: f64, lo: f64, hi: f64) {
        self.line(x, lo, x, hi, "#222", 1.2);
        self.line(x - 4.0, lo, x + 4.0, lo, "#222", 1.2);
        self.line(x - 4.0, hi, x + 4.0, hi, "#222", 1.2);
    }

    pub fn finish(self) -> String {
        format!(
            r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" font-family="sans-serif">{}</svg>"#,
            self.body,
            w = self.width,
            h = self.height
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_and_closes() {
        let mut s = Svg::new(10.0, 10.0);
        s.text(1.0, 1.0, "a<b & 'c'", "start", 9.0);
        let out = s.finish();
        assert!(out.starts_with("<svg") && out.ends_with("</svg>"));
        assert!(out.contains("a&lt;b &amp; &#39;c&#39;"));
        assert_eq!(ink_on("#7f0000"), "#fff");
        assert_eq!(ink_on("#fee08b"), "#000");
        assert_eq!(ink_on("nonsense"), "#000");
    }
}
