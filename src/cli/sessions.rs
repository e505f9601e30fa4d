//! `sleuth sessions`: the table of sessions, newest first, read from their
//! summaries (a damaged session is a row of its own, never an error).

use std::io::Write;

use super::session_args::SessionsArgs;
use super::{GlobalArgs, exit};
use crate::paths::Paths;
use crate::session::export::iso_datetime;
use crate::session::list::{ListedSession, list_sessions};
use crate::text::sanitize_inline;

const QUESTION_WIDTH: usize = 48;

/// The data dir, after checking the configuration this command was given.
/// Listing needs no setting, but a broken `--config`, `--set` or config
/// file is an error here as for every other command, not a silent exit 0.
/// No logging is started: listing stays fast.
pub(super) fn checked_paths(global: &GlobalArgs) -> anyhow::Result<Paths> {
    let paths = Paths::discover().map_err(anyhow::Error::msg)?;
    let overrides = super::setup::overrides(global)?;
    let (config, _) =
        crate::config::load(global.config.as_deref(), &paths.config_file(), std::env::vars(), &overrides)?;
    crate::session::set_read_limits((&config.sessions).into());
    Ok(paths)
}

pub fn execute(global: &GlobalArgs, args: SessionsArgs) -> anyhow::Result<u8> {
    let paths = checked_paths(global)?;
    let mut sessions = list_sessions(&paths.sessions_dir())?;
    if let Some(filter) = &args.filter {
        sessions.retain(|s| s.matches(filter));
    }
    let mut out = std::io::stdout().lock();
    if args.json {
        serde_json::to_writer_pretty(&mut out, &sessions)?;
        writeln!(out)?;
        return Ok(exit::OK);
    }
    if sessions.is_empty() {
        let hint = if args.filter.is_some() { "no session matches" } else { "no sessions yet" };
        eprintln!("{hint} in {}", paths.sessions_dir().display());
        return Ok(exit::OK);
    }
    writeln!(
        out,
        "{:<22} {:<17} {:<w$} {:<15} {:>5} {:>5} {:>9}",
        "ID",
        "STARTED",
        "QUESTION",
        "STATUS",
        "ITER",
        "CONF",
        "COST",
        w = QUESTION_WIDTH
    )?;
    for s in &sessions {
        writeln!(out, "{}", row(s))?;
    }
    Ok(exit::OK)
}

fn row(s: &ListedSession) -> String {
    let (started, question, iterations, confidence, cost) = match &s.summary {
        Some(m) => (
            iso_datetime(m.started_at_ms).trim_end_matches(" UTC").to_string(),
            sanitize_inline(&m.question),
            format!("{}/{}", m.iterations, m.max_iterations),
            format!("{:.2}", m.confidence),
            format!("${:.4}", m.cost_usd),
        ),
        None => {
            let problem = s.problem.as_deref().unwrap_or("unreadable");
            ("-".into(), sanitize_inline(problem), "-".into(), "-".into(), "-".into())
        }
    };
    format!(
        "{:<22} {:<17} {:<w$} {:<15} {:>5} {:>5} {:>9}",
        s.id,
        started,
        truncate(&question, QUESTION_WIDTH),
        s.status.label(),
        iterations,
        confidence,
        cost,
        w = QUESTION_WIDTH
    )
}

/// At most `width` characters, with an ellipsis when cut.
pub(super) fn truncate(text: &str, width: usize) -> String {
    let text = text.trim();
    if text.chars().count() <= width {
        return text.to_string();
    }
    let mut cut: String = text.chars().take(width.saturating_sub(1)).collect();
    cut.push('…');
    cut
}
