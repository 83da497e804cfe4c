//! One writer per store: a build or a merge holds an exclusive lock on `STORE-lock` (a file
//! beside the store, as SQLite keeps `STORE-wal`) for as long as it writes, with who holds it
//! written inside. A second writer is refused at once, told who holds the store. The lock is
//! the kernel's (`flock`): a writer killed with `kill -9` leaves the file behind, never the lock.

use std::fs::{File, OpenOptions};
use std::io::{Read as _, Seek as _, Write as _};
use std::os::fd::AsRawFd as _;
use std::os::unix::fs::MetadataExt as _;
use std::path::{Path, PathBuf};

/// Held while a store is written; released (and its file removed) when dropped.
#[derive(Debug)]
pub struct StoreLock {
    path: PathBuf,
    file: File,
}

/// `STORE` → `STORE-lock`.
pub fn lock_path(store: &Path) -> PathBuf {
    let mut name = store.as_os_str().to_owned();
    name.push("-lock");
    PathBuf::from(name)
}

impl StoreLock {
    /// Take the store's lock, or say who holds it.
    pub fn acquire(store: &Path, what: &str) -> anyhow::Result<StoreLock> {
        let path = lock_path(store);
        // The file may be removed by the holder between our open and our lock: then the lock
        // we got is on a file nobody else will see; try again on the new one.
        for _ in 0..10 {
            let mut file = OpenOptions::new()
                .read(true)
                .write(true)
                .create(true)
                .truncate(false)
                .open(&path)
                .map_err(|e| anyhow::anyhow!("{}: cannot create the lock: {e}", path.display()))?;
            // SAFETY: flock on a descriptor we own; no memory is involved.
            let got = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } == 0;
            if !got {
                let mut holder = String::new();
                let _ = file.read_to_string(&mut holder);
                let holder = holder.trim();
                anyhow::bail!(
                    "{}: in use by another writer ({}); wait for it to finish, or write another store",
                    store.display(),
                    if holder.is_empty() {
                        "it has not said who it is".to_string()
                    } else {
                        crate::text::escape_control(holder).into_owned()
                    }
                );
            }
            let same = match (file.metadata(), std::fs::metadata(&path)) {
                (Ok(a), Ok(b)) => a.ino() == b.ino() && a.dev() == b.dev(),
                _ => false,
            };
            if !same {
                continue;
            }
            let host = std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap_or_default();
            let since = humantime::format_rfc3339_seconds(std::time::SystemTime::now());
            file.set_len(0)?;
            file.rewind()?;
            writeln!(
                file,
                "`classlab corpus {what}`, pid {} on {}, since {since}",
                std::process::id(),
                host.trim()
            )?;
            file.flush()?;
            return Ok(StoreLock { path, file });
        }
        anyhow::bail!("{}: could not take the lock", path.display())
    }
}

impl Drop for StoreLock {
    fn drop(&mut self) {
        // Removed while still held, so no other writer can hold a lock on this file meanwhile.
        let _ = std::fs::remove_file(&self.path);
        // SAFETY: as above; closing the file would release it too.
        unsafe { libc::flock(self.file.as_raw_fd(), libc::LOCK_UN) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_writer_is_told_who_holds_the_store() {
        let dir = tempfile::tempdir().unwrap();
        let store = dir.path().join("s.db");
        let held = StoreLock::acquire(&store, "build").unwrap();
        let e = StoreLock::acquire(&store, "merge").unwrap_err().to_string();
        assert!(e.contains("in use by another writer"), "{e}");
        assert!(e.contains(&format!("pid {}", std::process::id())), "{e}");
        assert!(e.contains("`classlab corpus build`"), "{e}");
        drop(held);
        assert!(!lock_path(&store).exists());
        StoreLock::acquire(&store, "build").unwrap();
    }
}
