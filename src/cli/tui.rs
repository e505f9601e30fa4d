//! `sleuth` (the TUI on a new session, asking for the question when none
//! is given) and `sleuth open` (review a saved session, offline).

use std::path::{Path, PathBuf};

use super::args::{GlobalArgs, OpenArgs, ResearchArgs, TuiArgs};
use super::setup::{self, cli_error};
use super::{drive::exit_code, exit};
use crate::engine::{SessionState, SessionStatus};
use crate::research::{HandleParts, ResearchRequest, SessionHandle};
use crate::session::SessionDir;
use crate::tui::{self, LiveSession, Options, Tui};

pub async fn start(
    global: &GlobalArgs,
    question: Option<String>,
    research: &ResearchArgs,
    flags: &TuiArgs,
) -> anyhow::Result<u8> {
    let mut setup = setup::load(global)?;
    flags.apply(&mut setup.config);
    let opts = Options::from_config(&setup.config.tui, Some(&setup.paths.config_dir))?;
    let sessions = setup::sessions(&setup);
    let request = research.request(None);
    // The flags and a question given here are checked before the terminal is taken.
    let given = match &question {
        Some(q) => Some(sessions.check(q, &request).map_err(cli_error)?.0),
        None => {
            request.apply(sessions.config()).map_err(super::args::flag_error)?;
            None
        }
    };
    if !tui::has_terminal() {
        return Err(tui::TuiError::NotATerminal.into());
    }
    // Everything that may print (building the corpus index) happens before
    // the TUI owns the terminal. The session's folder appears, locked until
    // the engine lets it go, with its header: nothing exists while the corpus
    // is indexed or the question is typed.
    sessions.runtime().await.map_err(cli_error)?;
    let mut term = Tui::enter(setup.log.file.clone())?;
    let (question, request) = match given {
        Some(q) => (q, request),
        None => {
            let base = request.apply(sessions.config()).map_err(super::args::flag_error)?.research;
            match tui::prompt(&mut term, &opts, base.preset, base.source_mode, base.step_mode).await? {
                Some(answer) => {
                    let chosen = ResearchRequest {
                        preset: Some(answer.preset),
                        source_mode: Some(answer.source_mode),
                        step: Some(answer.step_mode),
                        ..request
                    };
                    (answer.question, chosen)
                }
                None => return Ok(exit::OK),
            }
        }
    };
    // A typed question is held to the same limit as any other.
    let session = match sessions.start(&question, &request).await {
        Ok(s) => s,
        Err(e) => {
            drop(term);
            return Err(cli_error(e));
        }
    };
    tracing::info!(session = %session.id, "TUI session");
    show_live(term, &opts, session).await
}

/// Shows a resumed (or forked, or follow-up) session live: an open ASK asks again.
pub(super) async fn continue_live(setup: &setup::Setup, opts: &Options, session: SessionHandle) -> anyhow::Result<u8> {
    let term = Tui::enter(setup.log.file.clone())?;
    show_live(term, opts, session).await
}

async fn show_live(mut term: Tui, opts: &Options, session: SessionHandle) -> anyhow::Result<u8> {
    let HandleParts { task, engine, state, dir, lock } = session.into_parts();
    let live = LiveSession { task, handle: engine, state, session_dir: dir.path.clone() };
    let end = tui::live(&mut term, opts, live).await;
    drop(term);
    // The lock of a resumed session is held until the engine has stopped writing.
    drop(lock);
    let end = end?;
    Ok(farewell(&end.state, &end.engine, &dir.path, &dir.id))
}

/// Says where the session is and how to come back to it; the exit code.
fn farewell(state: &SessionState, engine: &Option<Result<SessionState, String>>, dir: &Path, id: &str) -> u8 {
    if let Some(Err(e)) = engine {
        eprintln!("sleuth: the engine stopped: {e}");
    }
    eprintln!("session saved: {}", dir.display());
    eprintln!("  review it: sleuth open {id}");
    if !state.is_finished() {
        let why = if state.open_ask().is_some() { " (a question waits for your answer)" } else { "" };
        eprintln!("  unfinished{why}: sleuth resume {id}");
    }
    match engine {
        Some(Err(_)) => exit::ERROR,
        // Quitting the view of an unfinished session leaves it resumable.
        _ if !state.is_finished() => exit::OK,
        _ => exit_code(SessionStatus::of(state, false)),
    }
}

pub async fn open(global: &GlobalArgs, args: OpenArgs) -> anyhow::Result<u8> {
    let mut setup = setup::load(global)?;
    args.tui.apply(&mut setup.config);
    let opts = Options::from_config(&setup.config.tui, Some(&setup.paths.config_dir))?;
    let service = setup::sessions(&setup);
    let sessions = setup.paths.sessions_dir();
    // A named session is read (and redacted, as every export is) before the
    // terminal is taken: a bad log is reported as a plain error.
    let (chosen, app) = match &args.session {
        Some(s) => {
            let dir = resolve(&sessions, s)?;
            let app = match service
                .replay(&dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default())
            {
                Ok(r) if r.dir.path == dir => tui::review_records(r.redacted_records(), r.torn_tail.is_some(), &opts),
                // A session folder outside the store: read as it is.
                _ => tui::load_review(&dir, &opts)?,
            };
            (Some(dir), Some(app))
        }
        None => (None, None),
    };
    if !tui::has_terminal() {
        return Err(tui::TuiError::NotATerminal.into());
    }
    let mut term = Tui::enter(setup.log.file.clone())?;
    let result = async {
        let (dir, app) = match (chosen, app) {
            (Some(dir), Some(app)) => (dir, app),
            _ => loop {
                let Some(dir) = tui::pick(&mut term, &opts, &sessions).await? else { return Ok(()) };
                match tui::load_review(&dir, &opts) {
                    Ok(app) => break (dir, app),
                    // Listed but unreadable past its header: say so, pick again.
                    Err(e) => tracing::warn!(error = %e, "cannot open the chosen session"),
                }
            },
        };
        tui::review(&mut term, app, &dir).await
    }
    .await;
    drop(term);
    result?;
    Ok(exit::OK)
}

/// A session folder from an id, a unique id prefix, `last`, or a path (the
/// folder or its log), as `resume`, `export` and `fork` take it.
fn resolve(sessions: &Path, arg: &str) -> anyhow::Result<PathBuf> {
    let as_path = PathBuf::from(arg);
    if SessionDir::at(&as_path).log_path().is_file() {
        return Ok(as_path);
    }
    if as_path.file_name().is_some_and(|n| n == SessionDir::LOG_FILE) && as_path.is_file() {
        return Ok(as_path.parent().map(Path::to_path_buf).unwrap_or_default());
    }
    match crate::session::resolve_id(sessions, arg) {
        Ok(id) => Ok(SessionDir::new(sessions, &id).path),
        Err(crate::session::OpenError::NotFound { .. }) => anyhow::bail!(
            "no session `{arg}` in {}; run `sleuth open` to choose from the saved sessions",
            sessions.display()
        ),
        Err(e) => Err(e.into()),
    }
}
