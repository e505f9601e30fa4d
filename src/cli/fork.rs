//! `sleuth fork <id> --from <iteration>`: a new session sharing the log up
//! to that iteration (see `session::fork` for exactly which events), then
//! continued like `resume`. Research flags retune the fork: its header
//! records the new preset, limits and configuration.

use super::GlobalArgs;
use super::args::ForkArgs;
use super::exit;
use super::recorded::recorded_config;
use super::resume::{continue_session, frontend, header_of};
use super::setup;
use crate::engine::protocol::SessionHeader;
use crate::session::fork::{Retune, fork_session};
use crate::session::{SessionStore, new_session_id};

pub async fn execute(global: &GlobalArgs, args: ForkArgs) -> anyhow::Result<u8> {
    let setup = setup::load(global, Some(&args.research))?;
    let store = SessionStore::new(setup.paths.sessions_dir());
    let source = store.resolve(&args.id)?;
    let header = header_of(&store.dir(&source))?;
    let overrides = setup::overrides(global, Some(&args.research))?;
    let retuned =
        if overrides.is_empty() { None } else { Some(recorded_config(&setup.config, &header, &overrides)?.config) };
    let retune = |h: &mut SessionHeader| {
        if let Some(cfg) = &retuned {
            h.preset = cfg.research.preset.as_str().to_string();
            h.limits = cfg.limits.resolve(cfg.research.preset);
            h.step_mode = cfg.research.step_mode;
            h.config = cfg.snapshot();
        }
    };
    let new_id = new_session_id();
    let forked =
        fork_session(store.root(), &source, args.from, &new_id, retuned.as_ref().map(|_| &retune as Retune<'_>))?;
    eprintln!(
        "forked session {source} at iteration {} as session {new_id}: {} events shared, {} left behind{}",
        args.from,
        forked.kept_events,
        forked.dropped_events,
        if retuned.is_some() { " (retuned by the flags given)" } else { "" }
    );
    if args.create_only {
        println!("{new_id}");
        eprintln!("continue it with: sleuth resume {new_id}");
        return Ok(exit::OK);
    }
    let front = frontend(args.headless, args.json);
    continue_session(global, setup, &new_id, &args.research, args.ask, args.json, front).await
}
