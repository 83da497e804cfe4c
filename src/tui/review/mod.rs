//! Helpers of the review queue that touch the outside world (the `$EDITOR` round trip, the
//! store, the sandbox).

pub mod editor;
pub mod persist;
pub mod validate;
