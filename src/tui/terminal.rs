//! Terminal setup and restoration: raw mode, alternate screen and mouse capture, undone on
//! normal exit, on error (the guard's `Drop`) and on panic (a hook that restores the terminal
//! and then runs the previous hook).

use std::io::{self, Stdout, stdout};
use std::sync::Once;
use std::sync::atomic::{AtomicBool, Ordering};

use crossterm::event::{DisableMouseCapture, EnableMouseCapture};
use crossterm::execute;
use crossterm::terminal::{
    EnterAlternateScreen, LeaveAlternateScreen, disable_raw_mode, enable_raw_mode,
};
use ratatui::Terminal;
use ratatui::backend::CrosstermBackend;

/// Whether the terminal is currently in TUI mode (so restoring twice is harmless).
static ACTIVE: AtomicBool = AtomicBool::new(false);
static HOOK: Once = Once::new();

pub type Term = Terminal<CrosstermBackend<Stdout>>;

/// Put the terminal back the way it was, if we changed it. Errors are ignored: this runs on
/// the way out, when there is nothing better to do.
pub fn restore() {
    if ACTIVE.swap(false, Ordering::SeqCst) {
        let _ = disable_raw_mode();
        let _ = execute!(
            stdout(),
            DisableMouseCapture,
            LeaveAlternateScreen,
            crossterm::cursor::Show
        );
    }
}

fn install_panic_hook() {
    HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            restore();
            previous(info);
        }));
    });
}

/// Restores the terminal when dropped.
pub struct Guard {
    pub terminal: Term,
}

impl Drop for Guard {
    fn drop(&mut self) {
        let _ = self.terminal.show_cursor();
        restore();
    }
}

/// Leave TUI mode for a while (an editor runs), keeping the guard.
pub fn suspend() {
    restore();
}

/// Come back to TUI mode after [`suspend`], redrawing everything.
pub fn resume(guard: &mut Guard) -> io::Result<()> {
    enable_raw_mode()?;
    ACTIVE.store(true, Ordering::SeqCst);
    execute!(stdout(), EnterAlternateScreen, EnableMouseCapture)?;
    guard.terminal.clear()
}

/// Enter TUI mode.
pub fn enter() -> io::Result<Guard> {
    install_panic_hook();
    enable_raw_mode()?;
    ACTIVE.store(true, Ordering::SeqCst);
    let setup = execute!(stdout(), EnterAlternateScreen, EnableMouseCapture)
        .and_then(|()| Terminal::new(CrosstermBackend::new(stdout())));
    match setup {
        Ok(mut terminal) => {
            terminal.clear()?;
            Ok(Guard { terminal })
        }
        Err(e) => {
            restore();
            Err(e)
        }
    }
}
