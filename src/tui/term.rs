//! The real terminal: raw mode, the alternate screen and bracketed paste
//! (ratatui's `init()` does not enable paste), a crossterm `EventStream`
//! (created only here: it needs a terminal), and a panic hook that restores
//! the terminal once, prints the message and the log's path, and exits
//! non-zero.

use std::io::{IsTerminal, Stdout, stdout};
use std::panic::PanicHookInfo;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use crossterm::event::{DisableBracketedPaste, EnableBracketedPaste, EventStream};
use crossterm::execute;
use crossterm::terminal::{EnterAlternateScreen, LeaveAlternateScreen, disable_raw_mode, enable_raw_mode};
use ratatui::Terminal;
use ratatui::backend::CrosstermBackend;

use super::TuiError;

/// Set while the terminal is in raw mode on the alternate screen.
static ACTIVE: AtomicBool = AtomicBool::new(false);

type Hook = Arc<Box<dyn Fn(&PanicHookInfo<'_>) + Send + Sync + 'static>>;

/// Owns the terminal while the TUI runs; dropping it restores the terminal.
pub struct Tui {
    pub terminal: Terminal<CrosstermBackend<Stdout>>,
    pub input: EventStream,
    previous_hook: Hook,
}

/// Whether stdin and stdout are a terminal the TUI can take over.
pub fn has_terminal() -> bool {
    stdout().is_terminal() && std::io::stdin().is_terminal()
}

impl Tui {
    pub fn enter(log_file: Option<PathBuf>) -> Result<Self, TuiError> {
        if !has_terminal() {
            return Err(TuiError::NotATerminal);
        }
        let previous_hook: Hook = Arc::new(std::panic::take_hook());
        let hook = previous_hook.clone();
        std::panic::set_hook(Box::new(move |info| {
            // A parser's panic caught as an error (a malformed PDF) is no crash.
            if crate::resilience::panic_contained() {
                return;
            }
            restore();
            hook(info);
            eprintln!("{}", panic_note(log_file.as_deref()));
            std::process::exit(101);
        }));
        ACTIVE.store(true, Ordering::SeqCst);
        let setup = (|| {
            enable_raw_mode()?;
            execute!(stdout(), EnterAlternateScreen, EnableBracketedPaste)?;
            let mut terminal = Terminal::new(CrosstermBackend::new(stdout()))?;
            terminal.hide_cursor()?;
            terminal.clear()?;
            Ok::<_, std::io::Error>(terminal)
        })();
        match setup {
            Ok(terminal) => Ok(Self { terminal, input: EventStream::new(), previous_hook }),
            Err(e) => {
                restore();
                let prev = previous_hook.clone();
                std::panic::set_hook(Box::new(move |i| prev(i)));
                Err(TuiError::Io(e))
            }
        }
    }
}

impl Drop for Tui {
    fn drop(&mut self) {
        restore();
        let prev = self.previous_hook.clone();
        std::panic::set_hook(Box::new(move |i| prev(i)));
    }
}

/// Puts the terminal back, once (later calls do nothing).
pub fn restore() {
    if !ACTIVE.swap(false, Ordering::SeqCst) {
        return;
    }
    let _ = disable_raw_mode();
    let _ = execute!(stdout(), DisableBracketedPaste, LeaveAlternateScreen, crossterm::cursor::Show);
}

/// What a crash prints after the panic message.
pub fn panic_note(log_file: Option<&std::path::Path>) -> String {
    let log = log_file.map_or("(no log file)".to_string(), |p| p.display().to_string());
    format!(
        "sleuth crashed. The session log is intact (every event is written before it is shown).\n\
         Log: {log}\nPlease report this with the log attached."
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_crash_note_names_the_log() {
        let note = panic_note(Some(std::path::Path::new("/tmp/x/sleuth.log")));
        assert!(note.contains("/tmp/x/sleuth.log") && note.contains("session log is intact"));
    }
}
