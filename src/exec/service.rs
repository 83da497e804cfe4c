//! Execution as one service. The edge (the CLI, the TUI's start) builds an [`Executor`] for
//! the interpreter it chose and hands it down; evaluations, runs, validation and background
//! jobs reach the sandbox through it and never set one up themselves. Setting up probes the
//! machine (namespaces, Landlock, a warm interpreter), so it happens once, on first use.

use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use super::{Sandbox, SandboxOptions};

/// Why the sandbox could not be set up (kept, so every user hears the same reason).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("cannot set up the sandbox: {0}")]
pub struct SetupError(pub String);

/// The way to run suites: a sandbox for one interpreter, set up on first use and shared.
pub struct Executor {
    python: Option<PathBuf>,
    warm: bool,
    sandbox: OnceLock<Result<Arc<Sandbox>, SetupError>>,
}

impl Executor {
    /// Suites run with `python` (default: `python3` on `PATH`), forked from a warm
    /// interpreter when `warm` and the machine allows it.
    pub fn new(python: Option<PathBuf>, warm: bool) -> Executor {
        Executor {
            python,
            warm,
            sandbox: OnceLock::new(),
        }
    }

    /// An executor over a sandbox already set up.
    pub fn from_sandbox(sandbox: Arc<Sandbox>) -> Executor {
        let python = Some(sandbox.isolation().python.executable.clone());
        let cell = OnceLock::new();
        let _ = cell.set(Ok(sandbox));
        Executor {
            python,
            warm: true,
            sandbox: cell,
        }
    }

    /// The interpreter asked for (`None`: the default).
    pub fn python(&self) -> Option<&Path> {
        self.python.as_deref()
    }

    /// The sandbox, set up on the first call; the same one (or the same error) after.
    pub fn sandbox(&self) -> Result<Arc<Sandbox>, SetupError> {
        self.sandbox
            .get_or_init(|| {
                Sandbox::with_options(SandboxOptions {
                    python: self.python.clone(),
                    warm: self.warm,
                    ..Default::default()
                })
                .map(Arc::new)
                .map_err(|e| SetupError(e.to_string()))
            })
            .clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_interpreter_that_does_not_exist_is_one_error_kept() {
        let exec = Executor::new(Some("/nonexistent/python3".into()), false);
        assert_eq!(exec.python(), Some(Path::new("/nonexistent/python3")));
        let first = exec.sandbox().expect_err("no such interpreter");
        assert_eq!(exec.sandbox().err(), Some(first));
    }
}
