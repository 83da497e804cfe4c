//! Helpers of the review queue that touch the outside world (the `$EDITOR` round trip).

pub mod editor;
pub mod persist;
