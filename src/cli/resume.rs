//! `sleuth resume <id>`: replays the session's log and continues the loop
//! where it stopped (a session waiting on an ASK asks again); with
//! `--follow-up "question"`, a finished session seeds a new one with its
//! sources and findings. Both continue under the session's recorded
//! configuration (see `recorded.rs`).

use anyhow::Context;

use super::args::{ResearchArgs, ResumeArgs};
use super::drive::{HeadlessOptions, run_headless};
use super::recorded::recorded_config;
use super::setup::{self, Setup};
use super::{GlobalArgs, exit};
use crate::engine::Engine;
use crate::engine::protocol::{Command, Event, SessionHeader};
use crate::engine::state::SessionState;
use crate::session::follow_up::prepare_follow_up;
use crate::session::{NewSessionLog, OpenedSession, Redactor, SessionDir, SessionStore, new_session_id, read_log};

/// Which front end continues a session.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Frontend {
    Headless,
    Tui,
}

/// `resume` and `fork` continue in the TUI on a terminal, headless with
/// `--headless`, `--json`, or without a terminal (scripts, CI).
pub(super) fn frontend(headless: bool, json: bool) -> Frontend {
    if headless || json || !crate::tui::has_terminal() { Frontend::Headless } else { Frontend::Tui }
}

pub async fn execute(global: &GlobalArgs, args: ResumeArgs) -> anyhow::Result<u8> {
    let setup = setup::load(global, Some(&args.research))?;
    let id = SessionStore::new(setup.paths.sessions_dir()).resolve(&args.id)?;
    if let Some(question) = &args.follow_up {
        return follow_up(global, setup, &args, &id, question).await;
    }
    let front = frontend(args.headless, args.json);
    continue_session(global, setup, &id, &args.research, args.ask, args.json, front).await
}

/// Continues session `id` in the chosen front end.
pub(super) async fn continue_session(
    global: &GlobalArgs,
    mut setup: Setup,
    id: &str,
    research: &ResearchArgs,
    ask: Option<crate::config::AskPolicy>,
    json: bool,
    front: Frontend,
) -> anyhow::Result<u8> {
    let loaded = setup.config.snapshot();
    let store = SessionStore::new(setup.paths.sessions_dir());
    let opened = store.open(id)?;
    for notice in &opened.notices {
        eprintln!("note: {notice}");
    }
    let header = opened.state.header.clone().context("the session log has no header")?;
    if let Some(outcome) = &opened.state.outcome {
        eprintln!(
            "session {id} has ended ({}); nothing to continue.\n  ask a follow-up: sleuth resume {id} --follow-up \"…\"\n  read it: sleuth export {id}",
            serde_json::to_value(outcome)
                .ok()
                .and_then(|v| v["status"].as_str().map(str::to_string))
                .unwrap_or_default()
        );
        return Ok(exit::OK);
    }
    let overrides = setup::overrides(global, Some(research))?;
    let recorded = recorded_config(&setup.config, &header, &overrides)?;
    if let Some(w) = &recorded.warning {
        eprintln!("warning: {w}");
    }
    eprintln!(
        "resuming session {id}: {} events replayed, iteration {}, {}",
        opened.records.len(),
        opened.state.iteration(),
        opened.state.stage().label()
    );
    let runtime = setup::runtime(&setup.paths, recorded.config.clone()).await?;
    setup.config = recorded.config;
    let opts = HeadlessOptions { policy: ask.unwrap_or(setup.config.research.ask), json };
    let mut settings = runtime.settings(id);
    // The engine blanks keys named by either configuration in what it emits.
    settings.redactor = Redactor::from_configs(&[&loaded, runtime.snapshot()]);
    let OpenedSession { dir, lock, state, log, .. } = opened;
    let parts = runtime.parts(&dir, Box::new(log));
    let (engine, handle) = Engine::new(settings, parts, state.clone());
    let code = match front {
        Frontend::Headless => run_headless(engine, handle, None, opts, &dir).await,
        Frontend::Tui => super::tui::continue_live(&setup, engine, handle, state, &dir.path, id).await,
    };
    // The lock is held until the engine has stopped writing.
    drop(lock);
    code
}

/// A new session that starts from finished session `prev_id`.
async fn follow_up(
    global: &GlobalArgs,
    mut setup: Setup,
    args: &ResumeArgs,
    prev_id: &str,
    question: &str,
) -> anyhow::Result<u8> {
    let question = question.trim().to_string();
    if question.is_empty() {
        anyhow::bail!(
            "the follow-up question is empty; e.g. sleuth resume {prev_id} --follow-up \"And for async code?\""
        );
    }
    let store = SessionStore::new(setup.paths.sessions_dir());
    let header = header_of(&store.dir(prev_id))?;
    let overrides = setup::overrides(global, Some(&args.research))?;
    let recorded = recorded_config(&setup.config, &header, &overrides)?;
    if let Some(w) = &recorded.warning {
        eprintln!("warning: {w}");
    }
    let loaded = setup.config.snapshot();
    // Built before the new session's folder: a provider that cannot start
    // leaves no half-made session behind.
    let runtime = setup::runtime(&setup.paths, recorded.config.clone()).await?;
    let redactor = Redactor::from_configs(&[&loaded, runtime.snapshot()]);
    setup.config = recorded.config;
    let new_id = new_session_id();
    let root = store.root().to_path_buf();
    let (dir, imported) = prepare_follow_up(&root, prev_id, &new_id)?;
    eprintln!(
        "follow-up of session {prev_id} as session {new_id}: starting from its {} sources and {} findings",
        imported.sources.len(),
        imported.findings.len()
    );
    let mut settings = runtime.settings(&new_id);
    settings.follow_up_of = Some(prev_id.to_string());
    settings.imported = Some(imported);
    settings.redactor = redactor;
    // The staged folder moves into place (locked) when the header is recorded.
    let log = NewSessionLog::new(&root, &new_id);
    let parts = runtime.parts(&dir, Box::new(log));
    let (engine, handle) = Engine::new(settings, parts, SessionState::default());
    match frontend(args.headless, args.json) {
        Frontend::Headless => {
            let policy = args.ask.unwrap_or(setup.config.research.ask);
            let opts = HeadlessOptions { policy, json: args.json };
            run_headless(engine, handle, Some(question), opts, &dir).await
        }
        Frontend::Tui => {
            // Queued before the engine runs: it starts on this question.
            handle.commands.send(Command::Start { question }).ok();
            super::tui::continue_live(&setup, engine, handle, SessionState::default(), &dir.path, &new_id).await
        }
    }
}

/// The header of a session's log.
pub(super) fn header_of(dir: &SessionDir) -> anyhow::Result<SessionHeader> {
    let log = read_log(&dir.log_path())?;
    match log.records.into_iter().next().map(|r| r.event) {
        Some(Event::SessionStarted(h)) => Ok(h),
        _ => anyhow::bail!("{}: the log does not begin with a session header", dir.log_path().display()),
    }
}
