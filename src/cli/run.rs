//! `sleuth run`: a session without a TUI. Progress goes to stderr, the
//! report to stdout (or every event as JSON lines with `--json`).

use super::args::RunArgs;
use super::drive::{HeadlessOptions, run_headless};
use super::setup;
use crate::engine::Engine;
use crate::engine::state::SessionState;

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
    // Built before the session exists; its folder appears (locked until the
    // session stops) with the header, so a provider that cannot start, or a
    // kill while the corpus is indexed, leaves nothing behind.
    let runtime = setup::runtime(&setup.paths, setup.config.clone()).await?;
    let prepared = runtime.new_session()?;
    let dir = prepared.dir;
    let (engine, handle) = Engine::new(prepared.settings, prepared.parts, SessionState::default());
    let opts = HeadlessOptions { policy, json: args.json };
    run_headless(engine, handle, Some(question), opts, &dir).await
}
