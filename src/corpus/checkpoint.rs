//! Folding the WAL back into the store from a thread of its own while a build goes on: the
//! writer then never stops to copy pages, and the copy overlaps the analysis and the final
//! passes instead of coming after them. Best effort: the build's last checkpoint (on its own
//! connection) is the one that guarantees a single file.

use std::path::Path;
use std::sync::mpsc::{Sender, channel};
use std::thread::JoinHandle;

use rusqlite::Connection;

/// Nudges a [`Checkpointer`] from another thread.
#[derive(Clone)]
pub struct Nudger(Option<Sender<()>>);

impl Nudger {
    pub fn nudge(&self) {
        if let Some(tx) = &self.0 {
            let _ = tx.send(());
        }
    }
}

pub struct Checkpointer {
    nudger: Nudger,
    thread: Option<JoinHandle<()>>,
}

impl Checkpointer {
    /// A checkpointer for the store at `path` (already created, in WAL mode).
    pub fn start(path: &Path) -> Self {
        let Ok(conn) = Connection::open(path) else {
            return Checkpointer {
                nudger: Nudger(None),
                thread: None,
            };
        };
        let (tx, rx) = channel::<()>();
        let thread = std::thread::Builder::new()
            .name("corpus-checkpoint".into())
            .spawn(move || {
                while rx.recv().is_ok() {
                    // Nudges that came meanwhile are served by this one checkpoint.
                    while rx.try_recv().is_ok() {}
                    // PASSIVE: copies what no reader still needs, never waits for the writer.
                    let _ = conn.execute_batch("PRAGMA wal_checkpoint(PASSIVE);");
                }
            })
            .ok();
        Checkpointer {
            nudger: Nudger(thread.as_ref().map(|_| tx)),
            thread,
        }
    }

    /// Something was committed: copy it back when the thread is free.
    pub fn nudge(&self) {
        self.nudger.nudge();
    }

    /// A handle another thread (the writer) nudges with.
    pub fn nudger(&self) -> Nudger {
        self.nudger.clone()
    }

    /// Wait for the checkpoint under way, if any, and stop.
    pub fn finish(&mut self) {
        // The thread stops once every sender is gone (the writer's went with it).
        self.nudger = Nudger(None);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

impl Drop for Checkpointer {
    fn drop(&mut self) {
        self.finish();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_nudge_folds_committed_pages_back_into_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.db");
        let conn = Connection::open(&path).unwrap();
        conn.pragma_update(None, "journal_mode", "WAL").unwrap();
        conn.pragma_update(None, "wal_autocheckpoint", 0).unwrap();
        conn.execute_batch("CREATE TABLE t (x BLOB); INSERT INTO t VALUES (zeroblob(100000));")
            .unwrap();
        let before = std::fs::metadata(&path).unwrap().len();
        let mut cp = Checkpointer::start(&path);
        cp.nudge();
        cp.finish();
        let after = std::fs::metadata(&path).unwrap().len();
        assert!(after > before + 90_000, "{before} → {after}");
    }
}
