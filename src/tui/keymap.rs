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
    /// The task view's Rigor tab.
    Rigor,
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
            Context::Rigor => "Rigor tab",
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

/// The keys that work everywhere.
pub fn global(add: &mut Add) {
    use Action as A;
    use Context as C;

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
}

/// The list-like navigation keys in `c`; `scroll`: Up/Down scroll (their note says so).
pub fn nav_scroll(add: &mut Add, c: Context, scroll: bool) {
    for (keys, action) in nav_keys() {
        let note = match action {
            Action::Down if scroll => Some("scroll down"),
            Action::Up if scroll => Some("scroll up"),
            _ => None,
        };
        add(c, &keys, action, note);
    }
}

/// Navigation keys for a view; `space_pages`: Space is Page Down (else it is free).
pub fn nav(add: &mut Add, c: Context, space_pages: bool, scroll_note: bool) {
    for (keys, action) in nav_keys() {
        let keys: Vec<KeyChord> = keys
            .into_iter()
            .filter(|k| space_pages || *k != KeyChord::ch(' '))
            .collect();
        let note = match action {
            Action::Down if scroll_note => Some("down / scroll down"),
            Action::Up if scroll_note => Some("up / scroll up"),
            _ => None,
        };
        add(c, &keys, action, note);
    }
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
