//! Results of background work carried in actions.

use std::sync::Arc;

/// Data delivered by background work. Compared by identity: two deliveries are equal only
/// when they are the same one (what the loaded data holds needs no `Eq`).
#[derive(Debug, Clone)]
pub struct Delivered<T>(pub Arc<T>);

impl<T> Delivered<T> {
    pub fn new(value: T) -> Self {
        Delivered(Arc::new(value))
    }
}

impl<T: Clone> Delivered<T> {
    /// The value, without a copy when this is the only reference.
    pub fn take(self) -> T {
        Arc::try_unwrap(self.0).unwrap_or_else(|shared| (*shared).clone())
    }
}

impl<T> PartialEq for Delivered<T> {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl<T> Eq for Delivered<T> {}
