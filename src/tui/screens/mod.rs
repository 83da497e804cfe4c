//! Every screen and layer, one folder each (see [`super::screen`]): `state.rs` its data,
//! `update.rs` how actions change it, `view.rs` how it is drawn, `keys.rs` its hints. Adding a
//! screen is its folder, one line below and its [`ScreenId`].

use crate::tui::screen::{Screen, ScreenId};

macro_rules! registry {
    ($($id:ident => $module:ident),* $(,)?) => {
        $(pub mod $module;)*

        /// The state of every screen and layer (each kept while another is shown).
        #[derive(Default)]
        pub struct Screens {
            $(pub $module: $module::State,)*
        }

        impl Screens {
            pub fn get(&self, id: ScreenId) -> &dyn Screen {
                match id {
                    $(ScreenId::$id => &self.$module,)*
                }
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
    List => list,
    Task => task,
    Summary => summary,
    Sessions => sessions,
    Eval => eval,
    TestDetail => test_detail,
    Compare => compare,
    CompareTask => compare_task,
    Run => run,
    Step => step,
    Review => review,
    Help => help,
    Problems => problems,
    Palette => palette,
    NewEval => new_eval,
    NewRun => new_run,
    Confirm => confirm,
}

// Screens being built, not yet in the registry.
pub mod corpus;
pub mod grid;
pub mod paired;
