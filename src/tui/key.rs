//! Keys as the keymap sees them: a key code plus Ctrl/Alt (Shift folded into characters),
//! parsed from config strings (`"ctrl-n"`, `"G"`, `"pgdown"`) and shown in the help.

use std::fmt;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

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
}
