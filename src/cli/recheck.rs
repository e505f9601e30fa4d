//! `sleuth recheck SESSION`: the session's cited sources fetched again now;
//! per claim, whether its quote is still there, its page changed, or its
//! page is gone. Recorded as a `rechecked` event of the session (the TUI
//! and the exports show it). Exit 0: every claim stands; 7: one no longer
//! does; 8: some sources could not be fetched now.

use std::io::Write;

use super::args::RecheckArgs;
use super::{GlobalArgs, exit, setup};
use crate::engine::model::{ClaimStatus, Recheck, SourceId};
use crate::engine::ports::{EventSink, TextStore};
use crate::engine::protocol::{Event, EventRecord};
use crate::session::{DirTexts, SessionStore};
use crate::text::sanitize_inline;
use crate::verify::recheck::recheck;

pub async fn execute(global: &GlobalArgs, args: RecheckArgs) -> anyhow::Result<u8> {
    let setup = setup::load(global)?;
    let sessions = setup::sessions(&setup);
    let session = sessions.replay(&args.id)?;
    let id = session.id.clone();
    let texts = DirTexts::new(session.dir.sources_dir());
    let stored = |sid: SourceId| texts.get(sid).map(|t| t.to_string());
    if !args.json {
        eprintln!("fetching the cited sources of session {id} again …");
    }
    let result = recheck(&id, &session.state, &stored, &setup.config.web).await?;
    // What is printed and stored passes the redactor (a page may echo a key).
    let result: Recheck = serde_json::from_str(&session.redact(&serde_json::to_string(&result)?))?;
    if !args.dry_run {
        record(sessions.store(), &id, &result)?;
    }
    print(&id, &result, args.json, args.dry_run)?;
    Ok(if result.fallen() > 0 {
        exit::NOT_SUPPORTED
    } else if result.standing() == result.claims.len() && !result.claims.is_empty() {
        exit::OK
    } else {
        exit::NOT_CHECKED
    })
}

/// Appends the result to the session's log (under its lock: a session
/// still running refuses).
fn record(store: &SessionStore, id: &str, result: &Recheck) -> anyhow::Result<()> {
    let mut opened = store.open(id)?;
    let record = EventRecord {
        seq: opened.state.last_seq + 1,
        at_ms: result.at_ms.max(opened.state.updated_at_ms),
        elapsed_ms: opened.state.elapsed_ms,
        event: Event::Rechecked { recheck: result.clone() },
    };
    opened.log.record(&record)?;
    opened.log.checkpoint()?;
    Ok(())
}

fn print(id: &str, r: &Recheck, json: bool, dry_run: bool) -> anyhow::Result<()> {
    let mut out = std::io::stdout().lock();
    if json {
        serde_json::to_writer_pretty(&mut out, r)?;
        writeln!(out)?;
        return Ok(());
    }
    writeln!(out, "session {id} · rechecked {}", crate::session::export::iso_datetime(r.at_ms))?;
    writeln!(out)?;
    writeln!(out, "{:>3}  {:<14} {:<8} claim", "#", "status", "cites")?;
    for (i, c) in r.claims.iter().enumerate() {
        let mark = if c.status == ClaimStatus::Stands { "✓" } else { "✗" };
        let cites: Vec<String> = c.cites.iter().map(|n| format!("[{n}]")).collect();
        writeln!(
            out,
            "{:>3}  {mark} {:<12} {:<8} {}",
            i + 1,
            c.status.label(),
            cites.join(""),
            sanitize_inline(&c.text)
        )?;
        writeln!(out, "{:>29}{}", "", sanitize_inline(&c.why))?;
    }
    writeln!(out)?;
    writeln!(out, "Sources")?;
    for s in &r.sources {
        let detail = if s.error.is_empty() { String::new() } else { format!(" — {}", sanitize_inline(&s.error)) };
        writeln!(out, "  [{}] {:<11} {}{detail}", s.id.0, s.status.label(), sanitize_inline(&s.locator))?;
    }
    writeln!(out)?;
    writeln!(out, "{}", r.headline())?;
    if dry_run {
        writeln!(out, "(--dry-run: not recorded in the session)")?;
    }
    Ok(())
}
