//! Themes: named colour slots for the UI plus a syntect theme name for code panes.
//!
//! The three built-in themes (`themes/*.toml`) are embedded in the binary; a file
//! `<config dir>/themes/<name>.toml` adds a theme or overrides a built-in one of the same name.
//! With `NO_COLOR` set the UI uses [`Theme::mono`]: no colour at all, only bold, reverse,
//! underline and dim, and code panes are plain text.

use std::path::Path;
use std::str::FromStr;

use ratatui::style::{Color, Modifier, Style};
use serde::Deserialize;

use crate::metrics::fingerprint::Bucket;

const BUILTIN: [(&str, &str); 3] = [
    ("dark", include_str!("../../themes/dark.toml")),
    ("light", include_str!("../../themes/light.toml")),
    (
        "high-contrast",
        include_str!("../../themes/high-contrast.toml"),
    ),
];

/// The colour of every slot.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Palette {
    pub bg: Color,
    pub fg: Color,
    pub accent: Color,
    pub selection: Color,
    pub selection_fg: Color,
    pub border: Color,
    pub muted: Color,
    pub ok: Color,
    pub warn: Color,
    pub error: Color,
    pub edge_correct: Color,
    pub edge_missing: Color,
    pub edge_extra: Color,
    pub matched: Color,
    pub line_number: Color,
    /// One colour per outcome bucket, in `Bucket::ALL` order.
    pub buckets: [Color; 10],
}

/// Outcome colours: a red → green ramp for the model's verdicts, then blue (Timeout) and grey
/// (EnvErr), which are not the model's. 256-colour indices read on dark and light backgrounds.
const BUCKET_COLORS: [Color; 10] = [
    Color::Indexed(160),
    Color::Indexed(202),
    Color::Indexed(208),
    Color::Indexed(214),
    Color::Indexed(178),
    Color::Indexed(148),
    Color::Indexed(70),
    Color::Indexed(34),
    Color::Indexed(33),
    Color::Indexed(245),
];

impl Default for Palette {
    fn default() -> Self {
        Palette {
            bg: Color::Reset,
            fg: Color::Reset,
            accent: Color::Cyan,
            selection: Color::DarkGray,
            selection_fg: Color::White,
            border: Color::Gray,
            muted: Color::DarkGray,
            ok: Color::Green,
            warn: Color::Yellow,
            error: Color::Red,
            edge_correct: Color::Green,
            edge_missing: Color::Red,
            edge_extra: Color::Magenta,
            matched: Color::Yellow,
            line_number: Color::DarkGray,
            buckets: BUCKET_COLORS,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Theme {
    pub name: String,
    /// syntect theme for code panes (see `highlight`).
    pub syntax: String,
    /// `None`: no colours (NO_COLOR); styles use modifiers only.
    pub palette: Option<Palette>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ThemeFile {
    name: Option<String>,
    syntax: Option<String>,
    #[serde(default)]
    colors: std::collections::BTreeMap<String, String>,
}

/// The index of a `bucket_<name>` colour slot (`bucket_syntaxerr`, `bucket_envErr` …).
fn bucket_slot(slot: &str) -> Option<usize> {
    let name = slot.strip_prefix("bucket_")?;
    Bucket::ALL
        .iter()
        .position(|b| b.as_str().eq_ignore_ascii_case(name))
}

/// How an edge of a dependency graph compares with a prediction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EdgeKind {
    Plain,
    Correct,
    Missing,
    Extra,
}

impl Theme {
    /// The colourless theme used when `NO_COLOR` is set.
    pub fn mono() -> Theme {
        Theme {
            name: "no-color".into(),
            syntax: String::new(),
            palette: None,
        }
    }

    /// Parse a theme file; `fallback_name` names it when the file has no `name`.
    pub fn parse(fallback_name: &str, text: &str) -> Result<Theme, String> {
        let file: ThemeFile = toml::from_str(text).map_err(|e| {
            let line = e
                .span()
                .map(|s| text.get(..s.start).unwrap_or(text).matches('\n').count() + 1);
            match line {
                Some(l) => format!("line {l}: {}", e.message().trim()),
                None => e.message().trim().to_string(),
            }
        })?;
        let mut palette = Palette::default();
        for (slot, value) in &file.colors {
            let color = Color::from_str(value).map_err(|_| {
                format!("colour `{slot}`: cannot read `{value}` (use #rrggbb, a name or 0-255)")
            })?;
            let target = match slot.as_str() {
                "bg" => &mut palette.bg,
                "fg" => &mut palette.fg,
                "accent" => &mut palette.accent,
                "selection" => &mut palette.selection,
                "selection_fg" => &mut palette.selection_fg,
                "border" => &mut palette.border,
                "muted" => &mut palette.muted,
                "ok" => &mut palette.ok,
                "warn" => &mut palette.warn,
                "error" => &mut palette.error,
                "edge_correct" => &mut palette.edge_correct,
                "edge_missing" => &mut palette.edge_missing,
                "edge_extra" => &mut palette.edge_extra,
                "matched" => &mut palette.matched,
                "line_number" => &mut palette.line_number,
                other => match bucket_slot(other) {
                    Some(i) => &mut palette.buckets[i],
                    None => return Err(format!("unknown colour slot `{other}`")),
                },
            };
            *target = color;
        }
        Ok(Theme {
            name: file.name.unwrap_or_else(|| fallback_name.to_string()),
            syntax: file.syntax.unwrap_or_else(|| "base16-ocean.dark".into()),
            palette: Some(palette),
        })
    }

    /// The built-in themes, in cycling order.
    pub fn builtin() -> Vec<Theme> {
        BUILTIN
            .iter()
            .filter_map(|(name, text)| Theme::parse(name, text).ok())
            .collect()
    }

    /// Built-in themes plus `dir/*.toml` (a user theme with a built-in's name replaces it).
    /// Returns the themes and one message per file that could not be used.
    pub fn load_all(dir: Option<&Path>) -> (Vec<Theme>, Vec<String>) {
        let mut themes = Theme::builtin();
        let mut errors = Vec::new();
        let Some(dir) = dir else {
            return (themes, errors);
        };
        let Ok(entries) = std::fs::read_dir(dir) else {
            return (themes, errors);
        };
        let mut paths: Vec<_> = entries
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|e| e == "toml"))
            .collect();
        paths.sort();
        for path in paths {
            let stem = path
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default();
            let parsed = std::fs::read_to_string(&path)
                .map_err(|e| e.to_string())
                .and_then(|text| Theme::parse(&stem, &text));
            match parsed {
                Ok(theme) => match themes.iter_mut().find(|t| t.name == theme.name) {
                    Some(slot) => *slot = theme,
                    None => themes.push(theme),
                },
                Err(e) => errors.push(format!("{}: {e}", path.display())),
            }
        }
        (themes, errors)
    }

    fn with_fg(&self, pick: impl Fn(&Palette) -> Color, mono: Style) -> Style {
        match &self.palette {
            Some(p) => Style::new().fg(pick(p)),
            None => mono,
        }
    }

    /// Default text on the background.
    pub fn base(&self) -> Style {
        match &self.palette {
            Some(p) => Style::new().fg(p.fg).bg(p.bg),
            None => Style::new(),
        }
    }
    pub fn accent(&self) -> Style {
        self.with_fg(|p| p.accent, Style::new())
            .add_modifier(Modifier::BOLD)
    }
    pub fn title(&self) -> Style {
        self.accent()
    }
    pub fn header(&self) -> Style {
        self.with_fg(|p| p.fg, Style::new())
            .add_modifier(Modifier::BOLD | Modifier::UNDERLINED)
    }
    pub fn muted(&self) -> Style {
        self.with_fg(|p| p.muted, Style::new().add_modifier(Modifier::DIM))
    }
    pub fn border(&self) -> Style {
        self.with_fg(|p| p.border, Style::new())
    }
    pub fn selection(&self) -> Style {
        match &self.palette {
            Some(p) => Style::new().bg(p.selection).fg(p.selection_fg),
            None => Style::new().add_modifier(Modifier::REVERSED),
        }
    }
    pub fn ok(&self) -> Style {
        self.with_fg(|p| p.ok, Style::new())
    }
    pub fn warn(&self) -> Style {
        self.with_fg(|p| p.warn, Style::new().add_modifier(Modifier::BOLD))
    }
    pub fn error(&self) -> Style {
        self.with_fg(
            |p| p.error,
            Style::new().add_modifier(Modifier::BOLD | Modifier::UNDERLINED),
        )
    }
    /// A run the harness found tampered with: the error colour, bold (reversed without
    /// colours) — a failure that must not pass unnoticed.
    pub fn tampered(&self) -> Style {
        self.with_fg(
            |p| p.error,
            Style::new().add_modifier(Modifier::REVERSED | Modifier::UNDERLINED),
        )
        .add_modifier(Modifier::BOLD)
    }
    pub fn matched(&self) -> Style {
        self.with_fg(
            |p| p.matched,
            Style::new().add_modifier(Modifier::UNDERLINED),
        )
        .add_modifier(Modifier::BOLD)
    }
    pub fn line_number(&self) -> Style {
        self.with_fg(|p| p.line_number, Style::new().add_modifier(Modifier::DIM))
    }
    pub fn edge(&self, kind: EdgeKind) -> Style {
        match kind {
            EdgeKind::Plain => Style::new(),
            EdgeKind::Correct => self.with_fg(|p| p.edge_correct, Style::new()),
            EdgeKind::Missing => self.with_fg(
                |p| p.edge_missing,
                Style::new().add_modifier(Modifier::BOLD),
            ),
            EdgeKind::Extra => self.with_fg(
                |p| p.edge_extra,
                Style::new().add_modifier(Modifier::ITALIC),
            ),
        }
    }
    /// An outcome bucket's colour. Without colours, `Timeout` and `EnvErr` (not the model's
    /// verdicts) are in italics.
    pub fn bucket(&self, bucket: Bucket) -> Style {
        let i = Bucket::ALL.iter().position(|b| *b == bucket).unwrap_or(0);
        let mono = if bucket.is_model_verdict() {
            Style::new()
        } else {
            Style::new().add_modifier(Modifier::ITALIC)
        };
        self.with_fg(|p| p.buckets[i], mono)
    }

    /// Whether code panes should be highlighted.
    pub fn has_color(&self) -> bool {
        self.palette.is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn all_builtin_themes_parse() {
        for (name, text) in BUILTIN {
            let theme = Theme::parse(name, text).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(theme.name, name);
            let p = theme.palette.expect("colours");
            assert_ne!(p.edge_correct, p.edge_missing, "{name}");
            assert_ne!(p.edge_missing, p.edge_extra, "{name}");
            assert_ne!(p.edge_correct, p.edge_extra, "{name}");
            for (i, a) in p.buckets.iter().enumerate() {
                assert!(
                    !p.buckets[i + 1..].contains(a),
                    "{name}: bucket colours repeat"
                );
            }
        }
        assert_eq!(Theme::builtin().len(), 3);
    }

    #[test]
    fn bad_themes_are_reported() {
        assert!(
            Theme::parse("x", "[colors]\nfg = \"nope\"\n")
                .unwrap_err()
                .contains("fg")
        );
        assert!(
            Theme::parse("x", "[colors]\nshiny = \"red\"\n")
                .unwrap_err()
                .contains("shiny")
        );
        assert!(
            Theme::parse("x", "name = \n")
                .unwrap_err()
                .starts_with("line 1")
        );
        let t = Theme::parse("mine", "[colors]\nfg = \"red\"\nbucket_envErr = \"blue\"\n").unwrap();
        assert_eq!(t.name, "mine");
        assert_eq!(t.bucket(Bucket::EnvErr), Style::new().fg(Color::Blue));
    }

    #[test]
    fn user_dir_overrides_and_adds() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("dark.toml"),
            "name = \"dark\"\n[colors]\nfg = \"red\"\n",
        )
        .unwrap();
        std::fs::write(
            dir.path().join("solar.toml"),
            "syntax = \"Solarized (dark)\"\n",
        )
        .unwrap();
        std::fs::write(dir.path().join("broken.toml"), "[colors\n").unwrap();
        let (themes, errors) = Theme::load_all(Some(dir.path()));
        let names: Vec<_> = themes.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, ["dark", "light", "high-contrast", "solar"]);
        assert_eq!(themes[0].palette.as_ref().unwrap().fg, Color::Red);
        assert_eq!(errors.len(), 1, "{errors:?}");
        assert!(errors[0].contains("broken.toml"));
    }

    #[test]
    fn tampering_is_red_and_bold() {
        for theme in Theme::builtin() {
            let error = theme.palette.as_ref().unwrap().error;
            assert_eq!(
                theme.tampered(),
                Style::new().fg(error).add_modifier(Modifier::BOLD),
                "{}",
                theme.name
            );
        }
        assert_eq!(Palette::default().error, Color::Red);
        assert!(
            Theme::mono()
                .tampered()
                .add_modifier
                .contains(Modifier::REVERSED | Modifier::BOLD)
        );
    }

    #[test]
    fn mono_uses_modifiers_only() {
        let t = Theme::mono();
        assert_eq!(t.selection(), Style::new().add_modifier(Modifier::REVERSED));
        assert_eq!(t.base(), Style::new());
        assert!(!t.has_color());
    }
}
