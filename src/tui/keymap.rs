//! Keys → actions, per view ("context"). The help overlay is generated from this table, so it
//! always lists what the keys really do. User overrides come from the config's `[keys]`.

use std::collections::BTreeMap;

use crossterm::event::{KeyCode, KeyModifiers};

use super::action::Action;
pub use super::key::KeyChord;

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
    /// The evaluation sessions list.
    Sessions,
    /// One evaluation (live or replayed).
    Eval,
    TestDetail,
    Compare,
    CompareTask,
    /// Typing a path in the new-evaluation dialog.
    NewEval,
    Confirm,
    /// A generation run (live or replayed).
    Run,
    /// A generation run going on now in this classlab (its run or step-through screen).
    RunLive,
    /// One method's rounds.
    Step,
    /// The new-run dialog.
    NewRun,
    /// The review queue.
    Review,
    /// Typing a reason, a note or a rule code in the review queue.
    ReviewInput,
    /// A bulk decision waiting for a yes.
    ReviewConfirm,
    /// Choosing private tests to promote to public tests.
    ReviewPromote,
    /// The task × session grid.
    Grid,
    /// Two sessions on one task.
    Paired,
    /// The corpus browser's list.
    Corpus,
    /// Typing the corpus filter expression or search.
    CorpusInput,
    /// A corpus class opened.
    CorpusClass,
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
            Context::Sessions => "Sessions",
            Context::Eval => "Evaluation",
            Context::TestDetail => "Task tests",
            Context::Compare => "Comparison",
            Context::CompareTask => "Task across sessions",
            Context::NewEval => "New evaluation",
            Context::Confirm => "Question",
            Context::Run => "Generation run",
            Context::RunLive => "While the run goes on",
            Context::Step => "Method rounds (step-through)",
            Context::NewRun => "New generation run",
            Context::Review => "Review queue",
            Context::ReviewInput => "Review queue: typing",
            Context::ReviewConfirm => "Review queue: confirm",
            Context::ReviewPromote => "Review queue: tests to promote",
            Context::Grid => "Task × session grid",
            Context::Paired => "Two sessions on one task",
            Context::Corpus => "Corpus browser",
            Context::CorpusInput => "Corpus browser: typing",
            Context::CorpusClass => "Corpus class",
        }
    }

    /// Contexts where typed characters are text, not commands.
    pub fn is_text_input(self) -> bool {
        matches!(
            self,
            Context::Filter
                | Context::Palette
                | Context::NewEval
                | Context::NewRun
                | Context::ReviewInput
                | Context::CorpusInput
        )
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

/// Adds bindings: (view, keys, action, what it does there).
pub type Add<'a> = dyn FnMut(Context, &[KeyChord], Action, Option<&'static str>) + 'a;

/// Keys of the list-like views: (keys, action).
pub fn nav_keys() -> [(Vec<KeyChord>, Action); 6] {
    [
        (
            vec![KeyChord::ch('j'), KeyChord::plain(K::Down)],
            Action::Down,
        ),
        (vec![KeyChord::ch('k'), KeyChord::plain(K::Up)], Action::Up),
        (
            vec![
                KeyChord::plain(K::PageDown),
                KeyChord::ctrl('f'),
                KeyChord::ch(' '),
            ],
            Action::PageDown,
        ),
        (
            vec![KeyChord::plain(K::PageUp), KeyChord::ctrl('b')],
            Action::PageUp,
        ),
        (
            vec![KeyChord::ch('g'), KeyChord::plain(K::Home)],
            Action::Top,
        ),
        (
            vec![KeyChord::ch('G'), KeyChord::plain(K::End)],
            Action::Bottom,
        ),
    ]
}

/// The bindings of the global keys and the screens kept here (the newer screens add theirs
/// from their own `keys.rs`; `Keymap::default` in `screens` gathers them all).
pub fn defaults() -> Vec<Binding> {
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
    let nav_keys: [(&[KeyChord], Action); 6] = [
        (&down, A::Down),
        (&up, A::Up),
        (&pgdn, A::PageDown),
        (&pgup, A::PageUp),
        (&top, A::Top),
        (&bottom, A::Bottom),
    ];
    let nav = |add: &mut Add, c: Context, scroll: bool| {
        for (keys, action) in &nav_keys {
            let note = match action {
                A::Down if scroll => Some("scroll down"),
                A::Up if scroll => Some("scroll up"),
                _ => None,
            };
            add(c, keys, action.clone(), note);
        }
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
    add(C::Global, &[KeyChord::ch('E')], A::ShowSessions, None);
    add(C::Global, &[KeyChord::ch('N')], A::NewEval, None);
    add(C::Global, &[KeyChord::ch('R')], A::NewRun, None);

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
    super::keymap_eval::add_defaults(&mut add);
    super::keymap_run::add_defaults(&mut add);
    super::keymap_review::add_defaults(&mut add);
    out
}

impl Keymap {
    pub fn new(bindings: Vec<Binding>) -> Keymap {
        Keymap { bindings }
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
