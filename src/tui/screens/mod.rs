//! Every screen and layer, one folder each (see [`super::screen`]): `state.rs` its data,
//! `update.rs` how actions change it, `view.rs` how it is drawn, `keys.rs` its hints. Adding a
//! screen is its folder, one line below and its [`ScreenId`].

use crate::tui::keymap::{Add, Binding, Keymap};
use crate::tui::screen::{Screen, ScreenId};

macro_rules! registry {
    ($($id:ident => $module:ident :: $ty:ident),* $(,)?) => {
        $(pub mod $module;)*

        /// The state of every screen and layer (each kept while another is shown).
        #[derive(Default)]
        pub struct Screens {
            $(pub $module: $module::$ty,)*
        }

        impl Screens {
            pub fn get(&self, id: ScreenId) -> &dyn Screen {
                match id {
                    $(ScreenId::$id => &self.$module,)*
                }
            }

            /// Every screen's default keys, in the registry's order.
            pub fn add_keys(add: &mut Add) {
                $($module::keys::add(add);)*
            }

            pub fn get_mut(&mut self, id: ScreenId) -> &mut dyn Screen {
                match id {
                    $(ScreenId::$id => &mut self.$module,)*
                }
            }
        }
    };
}

registry! {
    List => list::State,
    Task => task::State,
    Summary => summary::State,
    Sessions => sessions::State,
    Eval => eval::State,
    TestDetail => test_detail::State,
    Compare => compare::State,
    CompareTask => compare_task::State,
    Run => run::State,
    Step => step::State,
    Review => review::State,
    Grid => grid::State,
    Paired => paired::State,
    Corpus => corpus::Slot,
    Help => help::State,
    Problems => problems::State,
    Palette => palette::State,
    NewEval => new_eval::State,
    NewRun => new_run::State,
    Confirm => confirm::State,
}

/// Every default binding: the global keys (`keymap::global`), then each screen's own
/// (`keys.rs` in its folder).
impl Default for Keymap {
    fn default() -> Self {
        let mut bindings = Vec::new();
        let mut add = |context,
                       keys: &[crate::tui::keymap::KeyChord],
                       action: crate::tui::action::Action,
                       note| {
            for &key in keys {
                bindings.push(Binding {
                    context,
                    key,
                    action: action.clone(),
                    note,
                });
            }
        };
        crate::tui::keymap::global(&mut add);
        Screens::add_keys(&mut add);
        Keymap::new(bindings)
    }
}
