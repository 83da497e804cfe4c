//! A screen is a component: its own state (`state.rs`), how actions change it (`update.rs`),
//! how it is drawn (`view.rs`, no I/O and no computing) and its keys (`keys.rs`, which also
//! feed `?` help and the palette). Screens live in `screens/<name>/`, never import one another,
//! and reach what they share through [`Shared`]. The app keeps them in a stack: the top layer
//! gets each action; overlays (help, palette, questions, dialogs) are layers drawn over the
//! screen below them.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::Span;

use super::action::Action;
use super::effect::Effect;
use super::keymap::Context;
use super::shared::Shared;

pub use super::nav::{Nav, ScreenId};

/// What a screen did with an action.
#[derive(Debug, Default)]
pub enum Outcome {
    /// Not this screen's: the app offers it to the layer below.
    #[default]
    Ignored,
    /// Used; the effects for the app loop to carry out.
    Consumed(Vec<Effect>),
}

impl From<Vec<Effect>> for Outcome {
    fn from(effects: Vec<Effect>) -> Self {
        Outcome::Consumed(effects)
    }
}

impl From<()> for Outcome {
    fn from((): ()) -> Self {
        Outcome::Consumed(Vec::new())
    }
}

pub trait Screen {
    /// Keymap contexts, most specific first: which keys apply, what `?` lists.
    fn contexts(&self, sh: &Shared) -> Vec<Context>;
    /// An action while this screen is the top layer (or one above it ignored it).
    fn update(&mut self, sh: &mut Shared, action: Action) -> Outcome;
    /// Draw into `area`: the body between title bar and status line for a screen, the whole
    /// frame for a layer.
    fn render(&self, sh: &Shared, area: Rect, buf: &mut Buffer);
    /// The title bar after "classlab │".
    fn title(&self, _sh: &Shared) -> Vec<Span<'static>> {
        Vec::new()
    }
    /// The right of the title bar (else the predictions file, if any).
    fn position(&self, _sh: &Shared) -> Option<String> {
        None
    }
    /// The status line's hints: (context, action, label), shown with their keys.
    fn hints(&self, _sh: &Shared) -> Vec<(Context, Action, &'static str)> {
        Vec::new()
    }
    /// Just shown by [`Nav::To`] (not when uncovered by a `Back`).
    fn opened(&mut self, _sh: &mut Shared) -> Vec<Effect> {
        Vec::new()
    }
    /// Keep positions valid after a resize or new data.
    fn clamp(&mut self, _sh: &Shared) {}
    /// Take in what this screen's own background work sent (a query's rows, say); called by
    /// the app loop for every screen in the stack. Returns whether anything changed (redraw).
    fn poll(&mut self, _sh: &mut Shared) -> bool {
        false
    }
    /// Background work is under way (the loop polls the terminal more often).
    fn busy(&self) -> bool {
        false
    }
}

/// Apply a navigation action to a position in `0..=max`.
pub fn scrolled(pos: usize, action: &Action, page: usize, max: usize) -> usize {
    let next = match action {
        Action::Up => pos.saturating_sub(1),
        Action::Down => pos + 1,
        Action::PageUp => pos.saturating_sub(page.max(1)),
        Action::PageDown => pos + page.max(1),
        Action::Top => 0,
        Action::Bottom => max,
        Action::Scroll(n) => pos.saturating_add_signed(isize::from(*n)),
        _ => pos,
    };
    next.min(max)
}
