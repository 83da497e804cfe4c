//! Keys as the keymap sees them: a key code plus Ctrl/Alt (Shift folded into characters),
//! parsed from config strings (`"ctrl-n"`, `"G"`, `"pgdown"`) and shown in the help; and text
//! that arrives at once (a bracketed paste, a burst of typed keys), cut to what a one-line input
//! takes.

use std::fmt;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::action::Action;

/// A key with the modifiers that matter (Shift is folded into the character).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct KeyChord {
    pub code: KeyCode,
    pub mods: KeyModifiers,
}

impl KeyChord {
    pub const fn new(code: KeyCode, mods: KeyModifiers) -> Self {
        KeyChord { code, mods }
    }

    pub const fn plain(code: KeyCode) -> Self {
        KeyChord::new(code, KeyModifiers::NONE)
    }

    pub const fn ch(c: char) -> Self {
        KeyChord::plain(KeyCode::Char(c))
    }

    pub const fn ctrl(c: char) -> Self {
        KeyChord::new(KeyCode::Char(c), KeyModifiers::CONTROL)
    }

    /// Normalise a terminal key event: Shift on a character or Tab is already in the code.
    pub fn from_event(event: &KeyEvent) -> Self {
        let mut mods =
            event.modifiers & (KeyModifiers::CONTROL | KeyModifiers::ALT | KeyModifiers::SHIFT);
        let code = match event.code {
            KeyCode::Char(c) if mods.contains(KeyModifiers::CONTROL) => {
                KeyCode::Char(c.to_ascii_lowercase())
            }
            other => other,
        };
        if matches!(code, KeyCode::Char(_) | KeyCode::BackTab) {
            mods.remove(KeyModifiers::SHIFT);
        }
        KeyChord { code, mods }
    }

    /// Parse `"ctrl-n"`, `"G"`, `"shift-tab"`, `"pgdown"`, `"f5"`, `"alt-x"`.
    pub fn parse(text: &str) -> Result<KeyChord, String> {
        let mut mods = KeyModifiers::NONE;
        let mut rest = text;
        loop {
            let lower = rest.to_ascii_lowercase();
            let stripped = ["ctrl-", "control-", "c-"]
                .iter()
                .map(|p| (p, KeyModifiers::CONTROL))
                .chain(
                    ["alt-", "meta-", "a-", "m-"]
                        .iter()
                        .map(|p| (p, KeyModifiers::ALT)),
                )
                .chain(["shift-", "s-"].iter().map(|p| (p, KeyModifiers::SHIFT)))
                .find(|(p, _)| lower.starts_with(**p) && rest.len() > p.len());
            match stripped {
                Some((p, m)) => {
                    mods |= m;
                    rest = &rest[p.len()..];
                }
                None => break,
            }
        }
        let lower = rest.to_ascii_lowercase();
        let code = match lower.as_str() {
            "enter" | "return" | "ret" => KeyCode::Enter,
            "esc" | "escape" => KeyCode::Esc,
            "tab" if mods.contains(KeyModifiers::SHIFT) => {
                mods.remove(KeyModifiers::SHIFT);
                KeyCode::BackTab
            }
            "tab" => KeyCode::Tab,
            "backtab" => KeyCode::BackTab,
            "space" => KeyCode::Char(' '),
            "backspace" | "bksp" => KeyCode::Backspace,
            "up" => KeyCode::Up,
            "down" => KeyCode::Down,
            "left" => KeyCode::Left,
            "right" => KeyCode::Right,
            "pgup" | "pageup" => KeyCode::PageUp,
            "pgdown" | "pgdn" | "pagedown" => KeyCode::PageDown,
            "home" => KeyCode::Home,
            "end" => KeyCode::End,
            "delete" | "del" => KeyCode::Delete,
            "insert" | "ins" => KeyCode::Insert,
            "minus" => KeyCode::Char('-'),
            f if f.len() > 1
                && f.starts_with('f')
                && f[1..].parse::<u8>().is_ok_and(|n| (1..=12).contains(&n)) =>
            {
                KeyCode::F(f[1..].parse().unwrap_or(1))
            }
            _ => {
                let mut chars = rest.chars();
                match (chars.next(), chars.next()) {
                    (Some(c), None) => {
                        let c = if mods.contains(KeyModifiers::SHIFT) {
                            c.to_ascii_uppercase()
                        } else {
                            c
                        };
                        let c = if mods.contains(KeyModifiers::CONTROL) {
                            c.to_ascii_lowercase()
                        } else {
                            c
                        };
                        mods.remove(KeyModifiers::SHIFT);
                        KeyCode::Char(c)
                    }
                    _ => return Err(format!("unknown key `{text}`")),
                }
            }
        };
        Ok(KeyChord { code, mods })
    }
}

impl fmt::Display for KeyChord {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.mods.contains(KeyModifiers::CONTROL) {
            f.write_str("ctrl-")?;
        }
        if self.mods.contains(KeyModifiers::ALT) {
            f.write_str("alt-")?;
        }
        if self.mods.contains(KeyModifiers::SHIFT) {
            f.write_str("shift-")?;
        }
        match self.code {
            KeyCode::Char(' ') => f.write_str("Space"),
            KeyCode::Char(c) => write!(f, "{c}"),
            KeyCode::Enter => f.write_str("Enter"),
            KeyCode::Esc => f.write_str("Esc"),
            KeyCode::Tab => f.write_str("Tab"),
            KeyCode::BackTab => f.write_str("Shift-Tab"),
            KeyCode::Backspace => f.write_str("Bksp"),
            KeyCode::Up => f.write_str("↑"),
            KeyCode::Down => f.write_str("↓"),
            KeyCode::Left => f.write_str("←"),
            KeyCode::Right => f.write_str("→"),
            KeyCode::PageUp => f.write_str("PgUp"),
            KeyCode::PageDown => f.write_str("PgDn"),
            KeyCode::Home => f.write_str("Home"),
            KeyCode::End => f.write_str("End"),
            KeyCode::Delete => f.write_str("Del"),
            KeyCode::Insert => f.write_str("Ins"),
            KeyCode::F(n) => write!(f, "F{n}"),
            other => write!(f, "{other:?}"),
        }
    }
}

/// The most characters a one-line text input (the filter, the palette) holds.
pub const INPUT_CAP: usize = 4096;

/// Text for a one-line input, from text that arrived at once.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LineText {
    /// What the input takes: the first line, tabs as spaces, no other control characters, at
    /// most the room left.
    pub text: String,
    /// Characters left out (other lines, or beyond the room).
    pub dropped: usize,
    /// There was more than one line.
    pub multiline: bool,
}

impl LineText {
    /// Why text was left out, for the status line; `None` when nothing was.
    pub fn note(&self, input: &str) -> Option<String> {
        if self.dropped == 0 {
            return None;
        }
        let kept = self.text.chars().count();
        let why = if self.multiline {
            "it takes one line"
        } else {
            "it is full"
        };
        Some(format!(
            "{input}: kept {kept} of {} characters ({why}, at most {INPUT_CAP})",
            kept + self.dropped
        ))
    }
}

/// Cut `text` to what a one-line input with `room` characters left takes. Linear in `text`,
/// and only the kept part is copied.
pub fn one_line(text: &str, room: usize) -> LineText {
    let end = text.find(['\n', '\r']).unwrap_or(text.len());
    let (first, rest) = text.split_at(end);
    let multiline = !rest.trim().is_empty();
    let mut kept = String::new();
    let mut taken = 0;
    let mut dropped = if multiline { rest.chars().count() } else { 0 };
    for c in first.chars() {
        let c = if c == '\t' { ' ' } else { c };
        if c.is_control() {
            continue;
        }
        if taken < room {
            kept.push(c);
            taken += 1;
        } else {
            dropped += 1;
        }
    }
    LineText {
        text: kept,
        dropped,
        multiline,
    }
}

/// Typed characters held back while the terminal events already waiting are read, then
/// handed over as one [`Action::InsertText`]: a burst of keys (or a paste the terminal sends as
/// keys) updates an input, and re-filters, once instead of once per key.
#[derive(Debug, Default)]
pub struct Typing {
    held: String,
}

impl Typing {
    /// The actions to carry out now for `action`: none for a typed character (held back);
    /// otherwise the held characters first, then `action`.
    pub fn feed(&mut self, action: Action) -> Vec<Action> {
        match action {
            Action::Input(c) => {
                self.held.push(c);
                Vec::new()
            }
            other => self.flush().into_iter().chain([other]).collect(),
        }
    }

    /// The held characters as one action (a single one stays `Input`).
    pub fn flush(&mut self) -> Option<Action> {
        let held = std::mem::take(&mut self.held);
        let mut chars = held.chars();
        match (chars.next(), chars.next()) {
            (None, _) => None,
            (Some(c), None) => Some(Action::Input(c)),
            _ => Some(Action::InsertText(held)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use KeyCode as K;
    use crossterm::event::KeyEventKind;

    #[test]
    fn parses_key_strings() {
        let cases = [
            ("j", KeyChord::ch('j')),
            ("G", KeyChord::ch('G')),
            ("shift-g", KeyChord::ch('G')),
            ("ctrl-n", KeyChord::ctrl('n')),
            ("C-N", KeyChord::ctrl('n')),
            ("shift-tab", KeyChord::plain(K::BackTab)),
            ("pgdown", KeyChord::plain(K::PageDown)),
            ("f5", KeyChord::plain(K::F(5))),
            ("space", KeyChord::ch(' ')),
            ("-", KeyChord::ch('-')),
            ("alt-x", KeyChord::new(K::Char('x'), KeyModifiers::ALT)),
        ];
        for (text, want) in cases {
            assert_eq!(KeyChord::parse(text), Ok(want), "{text}");
        }
        assert!(KeyChord::parse("hyper-x").is_err());
        assert!(KeyChord::parse("f13").is_err());
        assert!(KeyChord::parse("").is_err());
    }

    #[test]
    fn events_fold_shift_into_characters() {
        let ev = KeyEvent::new_with_kind(K::Char('G'), KeyModifiers::SHIFT, KeyEventKind::Press);
        assert_eq!(KeyChord::from_event(&ev), KeyChord::ch('G'));
        let ev = KeyEvent::new(K::BackTab, KeyModifiers::SHIFT);
        assert_eq!(KeyChord::from_event(&ev), KeyChord::plain(K::BackTab));
    }

    #[test]
    fn one_line_keeps_the_first_line_within_the_room() {
        let t = one_line("abc", 10);
        assert_eq!((t.text.as_str(), t.dropped, t.multiline), ("abc", 0, false));
        assert_eq!(t.note("filter"), None);
        // A trailing newline is not another line.
        assert_eq!(one_line("abc\r\n", 10).dropped, 0);
        let t = one_line("ab\tc\u{7}d\nsecond line", 10);
        assert_eq!((t.text.as_str(), t.multiline), ("ab cd", true));
        assert_eq!(t.dropped, "\nsecond line".chars().count());
        assert!(t.note("filter").unwrap().contains("one line"));
        let t = one_line("é".repeat(10).as_str(), 4);
        assert_eq!((t.text.as_str(), t.dropped), ("éééé", 6));
        assert_eq!(
            t.note("filter").as_deref(),
            Some("filter: kept 4 of 10 characters (it is full, at most 4096)")
        );
        assert_eq!(one_line("abc", 0).text, "");
    }

    #[test]
    fn typing_holds_characters_until_another_action() {
        let mut t = Typing::default();
        assert!(t.feed(Action::Input('a')).is_empty());
        assert_eq!(t.feed(Action::Down), [Action::Input('a'), Action::Down]);
        for c in "rate".chars() {
            assert!(t.feed(Action::Input(c)).is_empty());
        }
        assert_eq!(
            t.feed(Action::Submit),
            [Action::InsertText("rate".into()), Action::Submit]
        );
        assert_eq!(t.flush(), None);
        t.feed(Action::Input('x'));
        t.feed(Action::Input('y'));
        assert_eq!(t.flush(), Some(Action::InsertText("xy".into())));
    }
}
