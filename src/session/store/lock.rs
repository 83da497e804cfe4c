//! The writer's lock on a session: an advisory `flock` on `<session>/lock`.

use std::fs::{File, OpenOptions, TryLockError};
use std::io::{Read, Write};
use std::path::Path;

use super::{LOCK_FILE, SessionError, io_err};

/// The exclusive right to append to a session: an advisory `flock` on `<session>/lock`, held
/// as long as this value lives. Taking it never waits: a session another process is writing
/// (a run, or a resume of it) is refused at once. The kernel drops the lock when its holder
/// exits, however it exits, so a lock left by a killed process never blocks anyone.
#[derive(Debug)]
pub struct SessionLock {
    _file: File,
}

impl SessionLock {
    pub fn acquire(dir: &Path) -> Result<SessionLock, SessionError> {
        let path = dir.join(LOCK_FILE);
        // Not truncated before the lock is ours: the holder's pid stays readable.
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .map_err(io_err(&path))?;
        match file.try_lock() {
            Ok(()) => {
                // Only for the message a refused writer prints; the lock is the flock.
                let _ = file.set_len(0);
                let _ = writeln!(file, "{}", std::process::id());
                Ok(SessionLock { _file: file })
            }
            Err(TryLockError::WouldBlock) => {
                let mut holder = String::new();
                let _ = file.read_to_string(&mut holder);
                let holder = holder.trim();
                let who = if holder.is_empty() {
                    "another classlab process".to_string()
                } else {
                    format!("another classlab process (pid {holder})")
                };
                let id = dir
                    .file_name()
                    .map_or_else(|| dir.display().to_string(), |n| n.to_string_lossy().into());
                Err(SessionError::Locked {
                    path: path.display().to_string(),
                    message: format!(
                        "session {id} is being written by {who}: two writers would interleave \
                         their events; wait for it to end (or stop it) and resume then"
                    ),
                })
            }
            Err(TryLockError::Error(e)) => Err(io_err(&path)(e)),
        }
    }
}
