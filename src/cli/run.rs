//! `sleuth run`: a session without a TUI. Progress goes to stderr, the
//! report to stdout (or every event as JSON lines with `--json`).

use anyhow::Context;

use super::args::RunArgs;
use super::drive::{HeadlessOptions, run_headless};
use super::setup;
use crate::engine::Engine;
use crate::engine::state::SessionState;
use crate::session::{SessionDir, new_session_id};

pub async fn execute(global: &super::GlobalArgs, args: RunArgs) -> anyhow::Result<u8> {
    let question = args.question.trim().to_string();
    if question.is_empty() {
        anyhow::bail!(
            "the question is empty; ask something, e.g. sleuth run \"How does the ? operator convert errors?\""
        );
    }
    let setup = setup::load(global, Some(&args.research))?;
    let policy = args.ask.unwrap_or(setup.config.research.ask);
    tracing::info!(config = ?setup.config_path, log = ?setup.log.file, "headless run");
    let id = new_session_id();
    // The folder appears (locked until the session stops) with the header.
    let dir = SessionDir::new(&setup.paths.sessions_dir(), &id);
    std::fs::create_dir_all(setup.paths.sessions_dir())
        .with_context(|| format!("cannot create the sessions folder {}", setup.paths.sessions_dir().display()))?;
    let parts = setup::parts(&setup, &dir)?;
    let settings = setup::engine_settings(&setup.config, &id);
    let (engine, handle) = Engine::new(settings, parts, SessionState::default());
    let opts = HeadlessOptions { policy, json: args.json, redactor: setup::redactor(&setup) };
    run_headless(engine, handle, Some(question), opts, &dir).await
}
