//! `sleuth fork <id> --from <iteration>`: a new session sharing the log up
//! to that iteration (see `session::fork` for exactly which events), then
//! continued like `resume`. Research flags and `--set` retune the fork: its
//! header records the new preset, limits and configuration.

use super::GlobalArgs;
use super::args::ForkArgs;
use super::exit;
use super::resume::{continue_session, frontend};
use super::setup::{self, cli_error};

pub async fn execute(global: &GlobalArgs, args: ForkArgs) -> anyhow::Result<u8> {
    let mut setup = setup::load(global)?;
    args.tui.apply(&mut setup.config);
    // The theme is checked before the fork is made.
    let front = frontend(&setup, args.headless, args.json, &args.tui)?;
    let sessions = setup::sessions(&setup);
    // What retunes the fork; the ask policy only says how this run answers.
    let request = args.research.request(None);
    let overrides = setup::overrides(global)?;
    let forked = sessions.fork(&args.id, args.from, &request, &overrides).map_err(cli_error)?;
    eprintln!(
        "forked session {} at iteration {} as session {}: {} events shared, {} left behind{}",
        forked.source,
        args.from,
        forked.id,
        forked.kept_events,
        forked.dropped_events,
        if forked.retuned { " (retuned by the flags given)" } else { "" }
    );
    if args.create_only {
        println!("{}", forked.id);
        eprintln!("continue it with: sleuth resume {}", forked.id);
        return Ok(exit::OK);
    }
    // The fork already carries the flags' choices; continuing it applies
    // only the ask policy on top.
    let continuing = crate::research::ResearchRequest { ask: args.ask, ..Default::default() };
    continue_session(global, &setup, &sessions, &forked.id, &continuing, args.json, front).await
}
