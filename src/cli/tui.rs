//! `sleuth` (the TUI on a new session, asking for the question when none
//! is given) and `sleuth open` (review a saved session, offline).

use std::path::{Path, PathBuf};

use super::args::{GlobalArgs, OpenArgs, ResearchArgs, TuiArgs};
use super::{exit, setup};
use crate::engine::model::Outcome;
use crate::engine::protocol::Command;
use crate::engine::{Engine, SessionState};
use crate::session::SessionDir;
use crate::tui::{self, LiveSession, Options, Tui};

pub async fn start(
    global: &GlobalArgs,
    question: Option<String>,
    research: &ResearchArgs,
    flags: &TuiArgs,
) -> anyhow::Result<u8> {
    let question = question.map(|q| q.trim().to_string());
    if question.as_deref() == Some("") {
        anyhow::bail!("the question is empty; ask something, or run `sleuth` alone to type it");
    }
    let mut setup = setup::load(&flags.apply(global), Some(research))?;
    let opts = Options::from_config(&setup.config.tui, Some(&setup.paths.config_dir))?;
    if !tui::has_terminal() {
        return Err(tui::TuiError::NotATerminal.into());
    }
    // Everything that may print (building the corpus index) happens before
    // the TUI owns the terminal. The session's folder appears, locked until
    // the engine lets it go, with its header: nothing exists while the corpus
    // is indexed or the question is typed.
    let runtime = setup::runtime(&setup.paths, setup.config.clone()).await?;
    let prepared = runtime.new_session()?;
    let (dir, parts) = (prepared.dir, prepared.parts);
    let id = dir.id.clone();
    let mut term = Tui::enter(setup.log.file.clone())?;
    let question = match question {
        Some(q) => q,
        None => {
            let r = &setup.config.research;
            match tui::prompt(&mut term, &opts, r.preset, r.source_mode, r.step_mode).await? {
                Some(answer) => {
                    setup.config.research.preset = answer.preset;
                    setup.config.research.source_mode = answer.source_mode;
                    setup.config.research.step_mode = answer.step_mode;
                    answer.question
                }
                None => return Ok(exit::OK),
            }
        }
    };
    tracing::info!(session = %id, "TUI session");
    let settings = runtime.settings_with(&id, &setup.config.research);
    let (engine, handle) = Engine::new(settings, parts, SessionState::default());
    handle.commands.send(Command::Start { question }).ok();
    let task = tokio::spawn(engine.run());
    let session = LiveSession { task, handle, state: SessionState::default(), session_dir: dir.path.clone() };
    let end = tui::live(&mut term, &opts, session).await;
    drop(term);
    let end = end?;
    Ok(farewell(&end.state, &end.engine, &dir.path, &id))
}

/// Shows a resumed (or forked) session live: an open ASK asks again.
pub(super) async fn continue_live(
    setup: &setup::Setup,
    engine: Engine,
    handle: crate::engine::EngineHandle,
    state: SessionState,
    dir: &Path,
    id: &str,
) -> anyhow::Result<u8> {
    let opts = Options::from_config(&setup.config.tui, Some(&setup.paths.config_dir))?;
    let mut term = Tui::enter(setup.log.file.clone())?;
    let task = tokio::spawn(engine.run());
    let session = LiveSession { task, handle, state, session_dir: dir.to_path_buf() };
    let end = tui::live(&mut term, &opts, session).await;
    drop(term);
    let end = end?;
    Ok(farewell(&end.state, &end.engine, dir, id))
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
    match (&state.outcome, engine) {
        (_, Some(Err(_))) => exit::ERROR,
        (Some(Outcome::Cancelled), _) => exit::CANCELLED,
        (Some(Outcome::Failed { .. }), _) => exit::ERROR,
        _ => exit::OK,
    }
}

pub async fn open(global: &GlobalArgs, args: OpenArgs) -> anyhow::Result<u8> {
    let setup = setup::load(&args.tui.apply(global), None)?;
    let opts = Options::from_config(&setup.config.tui, Some(&setup.paths.config_dir))?;
    let sessions = setup.paths.sessions_dir();
    let chosen = match &args.session {
        Some(s) => Some(resolve(&sessions, s)?),
        None => None,
    };
    // A named session is read before the terminal is taken: a bad log is
    // reported as a plain error.
    let app = match &chosen {
        Some(dir) => Some(tui::load_review(dir, &opts)?),
        None => None,
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
