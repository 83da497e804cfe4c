//! Keys → actions, per view ("context"). The help overlay is generated from this table, so it
//! always lists what the keys really do. User overrides come from the config's `[keys]`.

use std::collections::BTreeMap;
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

/// Where a binding applies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Context {
    Global,
    List,
    /// Typing a filter in the task list.
    Filter,
    /// Any tab of the task view.
    Task,
    /// Skeleton, Solution and Tests tabs.
    Code,
    Methods,
    Deps,
    Summary,
    Help,
    Palette,
    Problems,
}

impl Context {
    pub fn title(self) -> &'static str {
        match self {
            Context::Global => "Everywhere",
            Context::List => "Task list",
            Context::Filter => "While typing a filter",
            Context::Task => "Task view",
            Context::Code => "Code tabs (Skeleton, Solution, Tests)",
            Context::Methods => "Methods tab",
            Context::Deps => "Dependencies tab",
            Context::Summary => "Dependency summary",
            Context::Help => "Help",
            Context::Palette => "Command palette",
            Context::Problems => "Problems",
        }
    }

    /// Contexts where typed characters are text, not commands.
    pub fn is_text_input(self) -> bool {
        matches!(self, Context::Filter | Context::Palette)
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Binding {
    pub context: Context,
    pub key: KeyChord,
    pub action: Action,
    /// What it does here, when that says more than the action's general description.
    pub note: Option<&'static str>,
}

#[derive(Debug, Clone)]
pub struct Keymap {
    pub bindings: Vec<Binding>,
}

use KeyCode as K;

fn defaults() -> Vec<Binding> {
    use Action as A;
    use Context as C;
    let mut out = Vec::new();
    let mut add =
        |context: Context, keys: &[KeyChord], action: Action, note: Option<&'static str>| {
            for &key in keys {
                out.push(Binding {
                    context,
                    key,
                    action: action.clone(),
                    note,
                });
            }
        };
    let down = [KeyChord::ch('j'), KeyChord::plain(K::Down)];
    let up = [KeyChord::ch('k'), KeyChord::plain(K::Up)];
    let pgdn = [
        KeyChord::plain(K::PageDown),
        KeyChord::ctrl('f'),
        KeyChord::ch(' '),
    ];
    let pgup = [KeyChord::plain(K::PageUp), KeyChord::ctrl('b')];
    let top = [KeyChord::ch('g'), KeyChord::plain(K::Home)];
    let bottom = [KeyChord::ch('G'), KeyChord::plain(K::End)];
    let esc = [KeyChord::plain(K::Esc)];
    let q = [KeyChord::ch('q')];
    let nav = |add: &mut dyn FnMut(Context, &[KeyChord], Action, Option<&'static str>),
               c: Context,
               scroll: bool| {
        add(c, &down, A::Down, scroll.then_some("scroll down"));
        add(c, &up, A::Up, scroll.then_some("scroll up"));
        add(c, &pgdn, A::PageDown, None);
        add(c, &pgup, A::PageUp, None);
        add(c, &top, A::Top, None);
        add(c, &bottom, A::Bottom, None);
    };

    add(C::Global, &[KeyChord::ctrl('c')], A::Quit, None);
    add(
        C::Global,
        &[KeyChord::ch('?'), KeyChord::plain(K::F(1))],
        A::ToggleHelp,
        None,
    );
    add(C::Global, &[KeyChord::ch(':')], A::OpenPalette, None);
    add(C::Global, &[KeyChord::ch('T')], A::CycleTheme, None);
    add(C::Global, &[KeyChord::ch('D')], A::ShowSummary, None);
    add(C::Global, &[KeyChord::ch('!')], A::ShowProblems, None);

    nav(&mut add, C::List, false);
    add(
        C::List,
        &[KeyChord::plain(K::Enter)],
        A::Open,
        Some("open the task"),
    );
    add(C::List, &[KeyChord::ch('/')], A::StartFilter, None);
    add(C::List, &[KeyChord::ch('s')], A::SortNext, None);
    add(C::List, &[KeyChord::ch('S')], A::SortReverse, None);
    add(C::List, &esc, A::Back, Some("clear the filter"));
    add(C::List, &q, A::Close, Some("quit"));

    add(
        C::Filter,
        &[KeyChord::plain(K::Enter)],
        A::Submit,
        Some("open the selected task"),
    );
    add(C::Filter, &esc, A::Back, Some("cancel the filter"));
    add(
        C::Filter,
        &[KeyChord::plain(K::Down), KeyChord::ctrl('n')],
        A::Down,
        None,
    );
    add(
        C::Filter,
        &[KeyChord::plain(K::Up), KeyChord::ctrl('p')],
        A::Up,
        None,
    );
    add(
        C::Filter,
        &[KeyChord::plain(K::Backspace)],
        A::Backspace,
        None,
    );
    add(C::Filter, &[KeyChord::ctrl('u')], A::ClearInput, None);

    add(C::Task, &[KeyChord::plain(K::Tab)], A::NextTab, None);
    add(C::Task, &[KeyChord::plain(K::BackTab)], A::PrevTab, None);
    for n in 1..=5u8 {
        add(
            C::Task,
            &[KeyChord::ch(char::from(b'0' + n))],
            A::GoTab(n),
            None,
        );
    }
    add(C::Task, &[KeyChord::ch(']')], A::NextTask, None);
    add(C::Task, &[KeyChord::ch('[')], A::PrevTask, None);
    add(C::Task, &esc, A::Back, Some("back to the task list"));
    add(C::Task, &q, A::Close, Some("back to the task list"));

    nav(&mut add, C::Code, true);
    add(
        C::Code,
        &[KeyChord::ch('h'), KeyChord::plain(K::Left)],
        A::Left,
        None,
    );
    add(
        C::Code,
        &[KeyChord::ch('l'), KeyChord::plain(K::Right)],
        A::Right,
        None,
    );
    add(C::Code, &[KeyChord::ch('0')], A::LineStart, None);

    nav(&mut add, C::Methods, false);
    add(
        C::Methods,
        &[KeyChord::plain(K::Enter)],
        A::Open,
        Some("show the method in Solution"),
    );

    nav(&mut add, C::Deps, true);

    nav(&mut add, C::Summary, true);
    add(C::Summary, &esc, A::Back, Some("back"));
    add(C::Summary, &q, A::Close, Some("back"));

    add(
        C::Help,
        &[
            KeyChord::plain(K::Esc),
            KeyChord::ch('?'),
            KeyChord::ch('q'),
        ],
        A::Back,
        Some("close the help"),
    );
    add(C::Help, &down, A::Down, Some("scroll down"));
    add(C::Help, &up, A::Up, Some("scroll up"));

    add(
        C::Palette,
        &[KeyChord::plain(K::Enter)],
        A::Submit,
        Some("run the command"),
    );
    add(C::Palette, &esc, A::Back, Some("close the palette"));
    add(
        C::Palette,
        &[KeyChord::plain(K::Down), KeyChord::ctrl('n')],
        A::Down,
        None,
    );
    add(
        C::Palette,
        &[KeyChord::plain(K::Up), KeyChord::ctrl('p')],
        A::Up,
        None,
    );
    add(
        C::Palette,
        &[KeyChord::plain(K::Backspace)],
        A::Backspace,
        None,
    );
    add(C::Palette, &[KeyChord::ctrl('u')], A::ClearInput, None);

    add(
        C::Problems,
        &[
            KeyChord::plain(K::Esc),
            KeyChord::ch('!'),
            KeyChord::ch('q'),
        ],
        A::Back,
        Some("close"),
    );
    add(C::Problems, &down, A::Down, Some("scroll down"));
    add(C::Problems, &up, A::Up, Some("scroll up"));
    out
}

impl Default for Keymap {
    fn default() -> Self {
        Keymap {
            bindings: defaults(),
        }
    }
}

impl Keymap {
    /// The defaults with the config's `[keys]` applied. A key bound to an action goes to every
    /// view where that action is bound by default (Everywhere if none); `"none"` unbinds a key.
    /// Entries that cannot be used are skipped and reported.
    pub fn with_overrides(overrides: &BTreeMap<String, String>) -> (Keymap, Vec<String>) {
        let mut map = Keymap::default();
        let mut errors = Vec::new();
        for (key_text, action_name) in overrides {
            let key = match KeyChord::parse(key_text) {
                Ok(k) => k,
                Err(e) => {
                    errors.push(format!("[keys] {e}"));
                    continue;
                }
            };
            if action_name == "none" {
                map.bindings.retain(|b| b.key != key);
                continue;
            }
            let Some(action) = Action::from_name(action_name) else {
                errors.push(format!(
                    "[keys] \"{key_text}\": unknown action `{action_name}`"
                ));
                continue;
            };
            let mut contexts: Vec<Context> = map
                .bindings
                .iter()
                .filter(|b| b.action == action)
                .map(|b| b.context)
                .collect();
            contexts.sort();
            contexts.dedup();
            if contexts.is_empty() {
                contexts.push(Context::Global);
            }
            for context in contexts {
                map.bindings
                    .retain(|b| !(b.context == context && b.key == key));
                map.bindings.push(Binding {
                    context,
                    key,
                    action: action.clone(),
                    note: None,
                });
            }
        }
        (map, errors)
    }

    /// The action for a key, trying `contexts` in order (most specific first). In a text input
    /// context an unbound plain character is typed text, and only Ctrl-C reaches Everywhere.
    pub fn lookup(&self, contexts: &[Context], key: KeyChord) -> Option<Action> {
        for &context in contexts {
            if let Some(b) = self
                .bindings
                .iter()
                .find(|b| b.context == context && b.key == key)
            {
                return Some(b.action.clone());
            }
            if context.is_text_input() {
                if let KeyCode::Char(c) = key.code
                    && !key
                        .mods
                        .intersects(KeyModifiers::CONTROL | KeyModifiers::ALT)
                {
                    return Some(Action::Input(c));
                }
                return (key == KeyChord::ctrl('c')).then_some(Action::Quit);
            }
        }
        None
    }

    /// The bindings of one context grouped by action: (keys, description), in table order.
    pub fn describe(&self, context: Context) -> Vec<(Vec<String>, String)> {
        let mut out: Vec<(Action, Vec<String>, String)> = Vec::new();
        for b in self.bindings.iter().filter(|b| b.context == context) {
            let desc = b
                .note
                .map(str::to_string)
                .unwrap_or_else(|| b.action.describe());
            match out
                .iter_mut()
                .find(|(a, _, d)| *a == b.action && *d == desc)
            {
                Some((_, keys, _)) => keys.push(b.key.to_string()),
                None => out.push((b.action.clone(), vec![b.key.to_string()], desc)),
            }
        }
        out.into_iter().map(|(_, k, d)| (k, d)).collect()
    }

    /// The first key bound to `action` in `context`, for hints in the status line.
    pub fn key_for(&self, context: Context, action: &Action) -> Option<KeyChord> {
        self.bindings
            .iter()
            .find(|b| b.context == context && b.action == *action)
            .map(|b| b.key)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
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
    fn lookup_prefers_specific_contexts_and_types_text() {
        let map = Keymap::default();
        let list = [Context::List, Context::Global];
        assert_eq!(map.lookup(&list, KeyChord::ch('j')), Some(Action::Down));
        assert_eq!(
            map.lookup(&list, KeyChord::ch('?')),
            Some(Action::ToggleHelp)
        );
        let filter = [Context::Filter, Context::Global];
        assert_eq!(
            map.lookup(&filter, KeyChord::ch('j')),
            Some(Action::Input('j'))
        );
        assert_eq!(
            map.lookup(&filter, KeyChord::ch('?')),
            Some(Action::Input('?'))
        );
        assert_eq!(map.lookup(&filter, KeyChord::ctrl('c')), Some(Action::Quit));
        assert_eq!(map.lookup(&filter, KeyChord::ctrl('x')), None);
    }

    #[test]
    fn overrides_apply_where_the_action_lives() {
        let mut o = BTreeMap::new();
        o.insert("ctrl-j".to_string(), "down".to_string());
        o.insert("q".to_string(), "none".to_string());
        o.insert("x".to_string(), "explode".to_string());
        o.insert("hyper-z".to_string(), "up".to_string());
        o.insert("F".to_string(), "sort-deps".to_string());
        let (map, errors) = Keymap::with_overrides(&o);
        assert_eq!(errors.len(), 2, "{errors:?}");
        assert_eq!(
            map.lookup(&[Context::Code], KeyChord::ctrl('j')),
            Some(Action::Down)
        );
        assert_eq!(
            map.lookup(&[Context::Filter], KeyChord::ctrl('j')),
            Some(Action::Down)
        );
        assert_eq!(
            map.lookup(&[Context::Help], KeyChord::ctrl('j')),
            Some(Action::Down)
        );
        assert_eq!(
            map.lookup(&[Context::List, Context::Global], KeyChord::ch('q')),
            None
        );
        assert_eq!(
            map.lookup(&[Context::List, Context::Global], KeyChord::ch('F')),
            Some(Action::SortBy(super::super::action::SortColumn::Deps))
        );
    }

    #[test]
    fn describe_groups_keys() {
        let map = Keymap::default();
        let list = map.describe(Context::List);
        assert_eq!(
            list[0],
            (
                vec!["j".to_string(), "↓".to_string()],
                "move down".to_string()
            )
        );
    }
}
