//! Terminal setup and restoration: raw mode, alternate screen, mouse capture and bracketed
//! paste, undone on normal exit, on error (the guard's `Drop`), on panic (a hook that restores
//! the terminal and then runs the previous hook) and on SIGTERM, SIGINT or SIGHUP (a thread of
//! its own restores the terminal, even while the UI thread is busy, and exits with 128 + the
//! signal).

use std::io::{self, Stdout, Write, stdout};
use std::sync::Once;
use std::sync::atomic::{AtomicBool, Ordering};

use crossterm::event::{
    DisableBracketedPaste, DisableMouseCapture, EnableBracketedPaste, EnableMouseCapture,
};
use crossterm::terminal::{
    EnterAlternateScreen, LeaveAlternateScreen, disable_raw_mode, enable_raw_mode,
};
use crossterm::{execute, queue};
use ratatui::Terminal;
use ratatui::backend::CrosstermBackend;
use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
use signal_hook::iterator::Signals;

/// Whether the terminal is currently in TUI mode (so restoring twice is harmless).
static ACTIVE: AtomicBool = AtomicBool::new(false);
static HOOK: Once = Once::new();
static SIGNALS: Once = Once::new();

/// The signals that end the TUI with the terminal restored.
pub const EXIT_SIGNALS: [i32; 3] = [SIGTERM, SIGINT, SIGHUP];

pub type Term = Terminal<CrosstermBackend<Stdout>>;

/// Write what takes the terminal out of TUI mode: mouse capture and bracketed paste off, back
/// to the main screen, cursor shown.
pub fn write_restore(out: &mut impl Write) -> io::Result<()> {
    queue!(
        out,
        DisableBracketedPaste,
        DisableMouseCapture,
        LeaveAlternateScreen,
        crossterm::cursor::Show
    )?;
    out.flush()
}

/// Put the terminal back the way it was, if we changed it. Errors are ignored: this runs on
/// the way out, when there is nothing better to do.
pub fn restore() {
    if ACTIVE.swap(false, Ordering::SeqCst) {
        let _ = disable_raw_mode();
        let _ = write_restore(&mut stdout());
    }
}

/// The exit status of a process ended by `signal`, as shells report it: 128 + the number.
pub fn exit_status(signal: i32) -> i32 {
    128 + signal
}

/// What the signal thread does when one of [`EXIT_SIGNALS`] arrives: restore the terminal and
/// exit with [`exit_status`]. Standard output stays locked from before the restore until the
/// process is gone, so the UI thread cannot draw over the restored terminal.
pub fn restore_and_exit(signal: i32) -> ! {
    let _hold = stdout().lock();
    restore();
    std::process::exit(exit_status(signal))
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

/// Catch [`EXIT_SIGNALS`] on a thread of its own, which restores the terminal and exits
/// whatever the UI thread is doing. Installed once, for the rest of the process.
fn install_signal_handler() -> io::Result<()> {
    let mut result = Ok(());
    SIGNALS.call_once(|| {
        result = Signals::new(EXIT_SIGNALS).and_then(|mut signals| {
            std::thread::Builder::new()
                .name("classlab-signals".into())
                .spawn(move || {
                    if let Some(signal) = signals.forever().next() {
                        restore_and_exit(signal);
                    }
                })
                .map(drop)
        });
    });
    result
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
    execute!(
        stdout(),
        EnterAlternateScreen,
        EnableMouseCapture,
        EnableBracketedPaste
    )?;
    guard.terminal.clear()
}

/// Enter TUI mode.
pub fn enter() -> io::Result<Guard> {
    install_panic_hook();
    install_signal_handler()?;
    enable_raw_mode()?;
    ACTIVE.store(true, Ordering::SeqCst);
    // Bracketed paste: a paste arrives as one event, not as keys (which could be commands).
    let setup = execute!(
        stdout(),
        EnterAlternateScreen,
        EnableMouseCapture,
        EnableBracketedPaste
    )
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn restoring_leaves_the_alternate_screen_shows_the_cursor_and_stops_the_mouse() {
        let mut out = Vec::new();
        write_restore(&mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        for seq in [
            "\x1b[?1049l",
            "\x1b[?25h",
            "\x1b[?1000l",
            "\x1b[?1006l",
            "\x1b[?2004l",
        ] {
            assert!(text.contains(seq), "{seq:?} missing from {text:?}");
        }
    }

    #[test]
    fn signals_exit_with_128_plus_the_number() {
        assert_eq!(exit_status(SIGTERM), 143);
        assert_eq!(exit_status(SIGINT), 130);
        assert_eq!(exit_status(SIGHUP), 129);
    }
}
