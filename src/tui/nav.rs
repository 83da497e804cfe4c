//! The names of screens and where navigation goes (read by the models too, so they live
//! apart from the `Screen` trait).

/// Every screen and layer, as the stack and navigation name them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ScreenId {
    List,
    Task,
    Summary,
    /// The evaluation sessions on disk.
    Sessions,
    /// One evaluation, live or replayed.
    Eval,
    /// One task's tests beside the code that ran.
    TestDetail,
    /// Two or more sessions side by side.
    Compare,
    /// One task across the compared sessions.
    CompareTask,
    /// A generation run, live or replayed.
    Run,
    /// One method's rounds of a generation run.
    Step,
    /// The curation review queue.
    Review,
    /// Tasks × compared sessions, each cell a fingerprint bucket.
    Grid,
    /// Two sessions on one task: the classes as a diff, failing tests, repair rounds.
    Paired,
    /// A class corpus (a store built by `classlab corpus build`).
    Corpus,
    // Layers: drawn over the screen below them, taking every key.
    Help,
    Problems,
    Palette,
    /// Choose a predictions file to evaluate.
    NewEval,
    /// Set up a generation run.
    NewRun,
    /// A question waiting for a yes.
    Confirm,
}

impl ScreenId {
    /// Drawn over the screen below (the whole frame), not in the body.
    pub fn is_layer(self) -> bool {
        matches!(
            self,
            ScreenId::Help
                | ScreenId::Problems
                | ScreenId::Palette
                | ScreenId::NewEval
                | ScreenId::NewRun
                | ScreenId::Confirm
        )
    }
}

/// Where to go, asked for through [`Shared::go`] and carried out by the app after the update.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Nav {
    /// Show a screen: back to it when it is in the stack, else on top (so the stack never
    /// holds a screen twice). A layer replaces any layer on top.
    To(ScreenId),
    /// Close the top layer or screen (never the task list).
    Back,
    /// Close every layer.
    CloseLayers,
}
