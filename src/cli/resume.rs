//! `sleuth resume <id>`: replays the session's log and continues the loop
//! where it stopped (a session waiting on an ASK asks again); with
//! `--follow-up "question"`, a finished session seeds a new one with its
//! sources and findings. Both continue under the session's recorded
//! configuration (`research::sessions::recorded_config`).

use super::args::{ResumeArgs, TuiArgs};
use super::drive::{HeadlessOptions, run_headless};
use super::setup::{self, Setup, cli_error};
use super::{GlobalArgs, exit};
use crate::config::AskPolicy;
use crate::research::{ResearchRequest, Resumption, Sessions};
use crate::tui::Options;

/// Which front end continues a session.
pub(super) enum Frontend {
    Headless,
    /// The TUI, with its theme and keys.
    Tui(Box<Options>),
}

/// `resume` and `fork` continue in the TUI on a terminal, headless with
/// `--headless`, `--json`, or without a terminal (scripts, CI). `--theme`
/// (applied to `setup` by the caller) is read here, before any session is
/// touched: a bad theme is an error whichever front end runs.
pub(super) fn frontend(setup: &Setup, headless: bool, json: bool, flags: &TuiArgs) -> anyhow::Result<Frontend> {
    let tui = !(headless || json || !crate::tui::has_terminal());
    if !tui && flags.theme.is_none() {
        return Ok(Frontend::Headless);
    }
    let opts = Options::from_config(&setup.config.tui, Some(&setup.paths.config_dir))?;
    Ok(if tui { Frontend::Tui(Box::new(opts)) } else { Frontend::Headless })
}

pub async fn execute(global: &GlobalArgs, args: ResumeArgs) -> anyhow::Result<u8> {
    let mut setup = setup::load(global)?;
    args.tui.apply(&mut setup.config);
    let front = frontend(&setup, args.headless, args.json, &args.tui)?;
    let sessions = setup::sessions(&setup);
    let request = args.research.request(args.ask);
    if let Some(question) = &args.follow_up {
        return follow_up(global, &setup, &sessions, &args, &request, question, front).await;
    }
    continue_session(global, &setup, &sessions, &args.id, &request, args.json, front).await
}

/// Continues session `given` in the chosen front end.
pub(super) async fn continue_session(
    global: &GlobalArgs,
    setup: &Setup,
    sessions: &Sessions,
    given: &str,
    request: &ResearchRequest,
    json: bool,
    front: Frontend,
) -> anyhow::Result<u8> {
    let overrides = setup::overrides(global)?;
    let resumed = sessions.resume(given, request, &overrides).await.map_err(cli_error)?;
    let (handle, notices, replayed) = match resumed {
        Resumption::Ended { id, state } => {
            let status = crate::engine::SessionStatus::of(&state, false);
            eprintln!(
                "session {id} has ended ({}); nothing to continue.\n  ask a follow-up: sleuth resume {id} --follow-up \"…\"\n  read it: sleuth export {id}",
                status.label()
            );
            return Ok(exit::OK);
        }
        Resumption::Continuing { handle, notices, replayed_events } => (*handle, notices, replayed_events),
    };
    for notice in &notices {
        eprintln!("note: {notice}");
    }
    eprintln!(
        "resuming session {}: {replayed} events replayed, iteration {}, {}",
        handle.id,
        handle.state.iteration(),
        handle.state.stage().label()
    );
    match front {
        Frontend::Headless => {
            let policy = request.ask.unwrap_or(recorded_policy(&handle.state));
            run_headless(handle, HeadlessOptions { policy, json }).await
        }
        Frontend::Tui(opts) => super::tui::continue_live(setup, &opts, handle).await,
    }
}

/// The ask policy the session was recorded with (`[research] ask`).
fn recorded_policy(state: &crate::engine::SessionState) -> AskPolicy {
    state
        .header
        .as_ref()
        .and_then(|h| serde_json::from_value(h.config["research"]["ask"].clone()).ok())
        .unwrap_or_default()
}

/// A new session that starts from finished session `prev`.
async fn follow_up(
    global: &GlobalArgs,
    setup: &Setup,
    sessions: &Sessions,
    args: &ResumeArgs,
    request: &ResearchRequest,
    question: &str,
    front: Frontend,
) -> anyhow::Result<u8> {
    if question.trim().is_empty() {
        anyhow::bail!(
            "the follow-up question is empty; e.g. sleuth resume {} --follow-up \"And for async code?\"",
            args.id
        );
    }
    let overrides = setup::overrides(global)?;
    let started = sessions.follow_up(&args.id, question, request, &overrides).await.map_err(cli_error)?;
    for notice in &started.notices {
        eprintln!("warning: {notice}");
    }
    let handle = started.handle;
    let prev = handle_prev(&args.id, sessions);
    eprintln!(
        "follow-up of session {prev} as session {}: starting from its {} sources and {} findings",
        handle.id, started.sources, started.findings
    );
    match front {
        Frontend::Headless => {
            let policy = request.ask.unwrap_or(setup.config.research.ask);
            run_headless(handle, HeadlessOptions { policy, json: args.json }).await
        }
        Frontend::Tui(opts) => super::tui::continue_live(setup, &opts, handle).await,
    }
}

/// The id `given` names (for the message; the follow-up already resolved it).
fn handle_prev(given: &str, sessions: &Sessions) -> String {
    sessions.resolve(given).unwrap_or_else(|_| given.to_string())
}
