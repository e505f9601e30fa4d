//! `sleuth run`: a session without a TUI. Progress goes to stderr, the
//! report to stdout (or every event as JSON lines with `--json`).

use super::args::RunArgs;
use super::drive::{HeadlessOptions, run_headless};
use super::setup::{self, cli_error};

pub async fn execute(global: &super::GlobalArgs, args: RunArgs) -> anyhow::Result<u8> {
    let setup = setup::load(global)?;
    let request = args.research.request(args.ask);
    let sessions = setup::sessions(&setup);
    // Checked before anything is built: a bad flag or an empty or
    // overlong question costs no indexing.
    let (question, config) = sessions.check(&args.question, &request).map_err(|e| match e {
        crate::research::SessionsError::Request(r) if r.field == crate::research::Field::Question => {
            anyhow::anyhow!("{}; e.g. sleuth run \"How does the ? operator convert errors?\"", r.message)
        }
        other => cli_error(other),
    })?;
    tracing::info!(config = ?setup.config_path, log = ?setup.log.file, "headless run");
    // Built before the session exists; its folder appears (locked until the
    // session stops) with the header, so a provider that cannot start, or a
    // kill while the corpus is indexed, leaves nothing behind.
    let session = sessions.start_checked(question, &config).await.map_err(cli_error)?;
    let opts = HeadlessOptions { policy: config.research.ask, json: args.json };
    run_headless(session, opts).await
}
