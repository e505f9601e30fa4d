//! The terminal UI. `App::update` is pure (messages in, effects out as
//! data); the views are functions of `&App`; one `tokio::select!` loop
//! (`runner`) feeds terminal and engine events in and carries effects out.
//!
//! Entry points for the CLI: [`prompt`] (ask for a question), [`live`]
//! (watch and steer a running engine; also for resumed sessions), [`pick`]
//! (choose a saved session) and [`review`] (a saved session, offline).

pub mod app;
mod config;
pub mod doc;
pub mod files;
pub mod keymap;
pub mod layout;
pub mod msg;
pub mod picker;
pub mod prompt;
pub mod runner;
/// Sample sessions for tests, benches and examples (feature `test-support`).
#[cfg(any(test, feature = "test-support"))]
pub mod sample;
mod term;
pub mod text;
pub mod theme;
pub mod ui;

use std::path::{Path, PathBuf};

use tokio::task::JoinHandle;

pub use app::App;
pub use config::{KeyConfig, TuiConfig};
pub use keymap::Keymap;
pub use msg::{Effect, Msg, PromptAnswer};
pub use term::{Tui, has_terminal, restore};
pub use theme::Theme;

use crate::config::Preset;
use crate::engine::tiers::SourceMode;
use crate::engine::{EngineError, EngineHandle, SessionState};
use crate::session::{LogError, SessionDir, read_log};

#[derive(Debug, thiserror::Error)]
pub enum TuiError {
    #[error("terminal error: {0}")]
    Io(#[from] std::io::Error),
    #[error("sleuth's interface needs a terminal (stdin and stdout); in scripts use `sleuth run \"question\"`")]
    NotATerminal,
    #[error(transparent)]
    Theme(#[from] theme::ThemeError),
    #[error("{}", .0.iter().map(ToString::to_string).collect::<Vec<_>>().join("; "))]
    Keys(Vec<keymap::KeyError>),
    #[error(transparent)]
    Log(#[from] LogError),
}

/// Theme and keys, resolved from `[tui]` (and `--theme`).
#[derive(Debug, Clone)]
pub struct Options {
    pub theme: Theme,
    pub keymap: Keymap,
}

impl Options {
    /// `config_dir` holds user themes (`themes/<name>.toml`).
    pub fn from_config(config: &TuiConfig, config_dir: Option<&Path>) -> Result<Self, TuiError> {
        Ok(Self {
            theme: Theme::load(&config.theme, config_dir)?,
            keymap: Keymap::from_config(&config.keys).map_err(TuiError::Keys)?,
        })
    }
}

/// Asks for the question; `None` when the user quit.
pub async fn prompt(
    tui: &mut Tui,
    opts: &Options,
    preset: Preset,
    source_mode: SourceMode,
    step_mode: bool,
) -> Result<Option<PromptAnswer>, TuiError> {
    let mut screen = prompt::Prompt::new(opts.theme.clone(), opts.keymap.clone(), preset, source_mode, step_mode);
    let out = runner::run(&mut tui.terminal, &mut tui.input, &mut screen, None, None).await?;
    Ok(match out.exit {
        Effect::Start(answer) => Some(answer),
        _ => None,
    })
}

/// A running engine to watch and steer.
pub struct LiveSession {
    pub task: JoinHandle<Result<SessionState, EngineError>>,
    pub handle: EngineHandle,
    /// The state the engine started from (empty, or replayed to resume).
    pub state: SessionState,
    /// The session's folder (its `sources/` serve the source viewer).
    pub session_dir: PathBuf,
}

/// How a live view ended.
#[derive(Debug)]
pub struct LiveEnd {
    /// Everything the UI saw, folded.
    pub state: SessionState,
    /// The engine's own end, when it finished or failed.
    pub engine: Option<Result<SessionState, String>>,
    pub draws: u64,
}

/// Watches and steers a running engine until the user quits. On quit the
/// engine is let go: waiting for the user it detaches at once; working, it
/// is stopped after a moment. Either way the session stays resumable (its
/// log holds every event, an open ASK included).
pub async fn live(tui: &mut Tui, opts: &Options, session: LiveSession) -> Result<LiveEnd, TuiError> {
    let LiveSession { mut task, handle, state, session_dir } = session;
    let EngineHandle { commands, mut events } = handle;
    let texts = files::SessionFolder::new(&session_dir);
    let mut app = App::live(state, opts.theme.clone(), opts.keymap.clone());
    let link = runner::EngineLink { commands: &commands, events: &mut events, task: &mut task };
    let out = runner::run(&mut tui.terminal, &mut tui.input, &mut app, Some(link), Some(&texts)).await?;
    drop(commands);
    let mut engine = out.engine;
    if engine.is_none() {
        // Without a UI nobody answers a wait: the engine detaches; if it is
        // working, stop it between two events (the log stays whole).
        match tokio::time::timeout(std::time::Duration::from_millis(300), &mut task).await {
            Ok(Ok(result)) => engine = Some(result.map_err(|e| e.to_string())),
            Ok(Err(e)) => engine = Some(Err(e.to_string())),
            Err(_) => {
                task.abort();
                // Wait until it has stopped: the caller's session lock is
                // released next, and no write may follow that.
                let _ = (&mut task).await;
            }
        }
    }
    Ok(LiveEnd { state: app.state, engine, draws: out.draws })
}

/// Lets the user choose a saved session; `None` when they quit.
pub async fn pick(tui: &mut Tui, opts: &Options, sessions_dir: &Path) -> Result<Option<PathBuf>, TuiError> {
    let sessions = picker::list_sessions(sessions_dir);
    let mut screen = picker::Picker::new(opts.theme.clone(), opts.keymap.clone(), sessions_dir.to_path_buf(), sessions);
    let out = runner::run(&mut tui.terminal, &mut tui.input, &mut screen, None, None).await?;
    Ok(match out.exit {
        Effect::Open(path) => Some(path),
        _ => None,
    })
}

/// Loads a saved session for review (before the terminal is taken, so a
/// bad log is reported plainly).
pub fn load_review(session_dir: &Path, opts: &Options) -> Result<App, TuiError> {
    let log = read_log(&SessionDir::at(session_dir).log_path())?;
    let mut app = App::review(log.records, opts.theme.clone(), opts.keymap.clone());
    if log.torn_tail.is_some() {
        app.banner = Some(app::Banner::Info("the log's last line was cut off by a crash and is left out".into()));
    }
    Ok(app)
}

/// The review of a session already read (and redacted) by the session
/// service; `torn` when its last line was cut off by a crash.
pub fn review_records(records: Vec<crate::engine::protocol::EventRecord>, torn: bool, opts: &Options) -> App {
    let mut app = App::review(records, opts.theme.clone(), opts.keymap.clone());
    if torn {
        app.banner = Some(app::Banner::Info("the log's last line was cut off by a crash and is left out".into()));
    }
    app
}

/// Shows a saved session, offline, until the user quits.
pub async fn review(tui: &mut Tui, mut app: App, session_dir: &Path) -> Result<(), TuiError> {
    let texts = files::SessionFolder::new(session_dir);
    runner::run(&mut tui.terminal, &mut tui.input, &mut app, None, Some(&texts)).await?;
    Ok(())
}
