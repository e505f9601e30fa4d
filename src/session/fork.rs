//! `fork`: a new session that shares an existing one's log up to an
//! iteration, then goes its own way (another answer to an ASK, another
//! preset). What is kept, precisely:
//!
//! - the header, with a new id and `forked_from` set (and new preset,
//!   limits and configuration when the fork is retuned);
//! - every event before iteration N's `decided` event: iteration N's plan,
//!   search, review, draft, critique and evaluation are shared, as are all
//!   earlier iterations with their asks and answers, steering and usage;
//! - nothing from iteration N's decision on (the decision, an ASK it raised
//!   and its answer, the refinement, a step pause and its steering), nor
//!   any later iteration, nor the report and the session's end.
//!
//! So the fork re-decides iteration N under its own settings: with the
//! same settings it comes to the same decision (an ASK is asked again, to
//! be answered differently); with a larger preset a limit may no longer
//! stop it. `--from 0` keeps only the header: the same question afresh.
//! Sources found in the shared part keep their ids; their texts are
//! hard-linked (texts are immutable: written once, by rename).

use std::path::{Path, PathBuf};

use super::SessionDir;
use super::read::{LogError, read_log};
use super::summary::{SessionSummary, write_summary};
use crate::engine::protocol::{Event, EventRecord, ForkOrigin, SessionHeader};
use crate::engine::state::SessionState;

#[derive(Debug, thiserror::Error)]
pub enum ForkError {
    #[error(transparent)]
    Log(#[from] LogError),
    #[error("session {id} has {iterations} iteration(s): --from must be between 0 and {iterations}")]
    NoSuchIteration { id: String, iterations: u32 },
    #[error("{}: {message}", path.display())]
    Io { path: PathBuf, message: String },
}

/// A new header for a retuned fork (another preset or limits).
pub type Retune<'a> = &'a dyn Fn(&mut SessionHeader);

#[derive(Debug)]
pub struct Forked {
    pub dir: SessionDir,
    pub kept_events: usize,
    pub dropped_events: usize,
}

/// The fork's records: the shared prefix of `records`, renumbered from 1,
/// under a header rewritten for `new_id` and dated `created_at_ms` (a
/// fork is as new as the moment it is made, wherever it branches). Pure.
pub fn fork_records(
    records: &[EventRecord],
    from: u32,
    new_id: &str,
    created_at_ms: u64,
    retune: Option<Retune<'_>>,
) -> Result<Vec<EventRecord>, ForkError> {
    let Some((first, rest)) = records.split_first() else {
        return Err(ForkError::NoSuchIteration { id: new_id.to_string(), iterations: 0 });
    };
    let Event::SessionStarted(header) = &first.event else {
        return Err(ForkError::NoSuchIteration { id: new_id.to_string(), iterations: 0 });
    };
    let iterations = rest.iter().filter(|r| matches!(r.event, Event::IterationStarted { .. })).count() as u32;
    if from > iterations {
        return Err(ForkError::NoSuchIteration { id: header.session_id.clone(), iterations });
    }
    let mut new_header = header.clone();
    new_header.session_id = new_id.to_string();
    new_header.forked_from = Some(ForkOrigin { session_id: header.session_id.clone(), iteration: from });
    if let Some(retune) = retune {
        retune(&mut new_header);
    }
    let cut = if from == 0 { 0 } else { cut_index(rest, from) };
    let mut out = Vec::with_capacity(cut + 1);
    out.push(EventRecord { at_ms: created_at_ms, event: Event::SessionStarted(new_header), ..first.clone() });
    for r in rest[..cut].iter().filter(|r| !ends_research(&r.event)) {
        out.push(EventRecord { seq: out.len() as u64 + 1, ..r.clone() });
    }
    Ok(out)
}

/// Index in `rest` of the first event not shared: iteration `from`'s
/// decision, or else the start of iteration `from + 1`, or else the end.
fn cut_index(rest: &[EventRecord], from: u32) -> usize {
    rest.iter()
        .position(|r| match r.event {
            Event::Decided { iteration, .. } => iteration == from,
            Event::IterationStarted { iteration, .. } => iteration == from + 1,
            _ => false,
        })
        .unwrap_or(rest.len())
}

/// Events that stop the research (a forced output or cancel inside the
/// shared iteration, the report, the end): the fork carries on instead.
fn ends_research(event: &Event) -> bool {
    matches!(
        event,
        Event::OutputForced
            | Event::CancelRequested
            | Event::ReportDelta { .. }
            | Event::ReportRestarted { .. }
            | Event::ReportWritten { .. }
            | Event::Verified { .. }
            | Event::SessionEnded { .. }
            | Event::Rechecked { .. }
    )
}

/// Creates the fork of session `source_id` as session `new_id` under
/// `root`. The folder appears whole or not at all (built under a dot-name,
/// then renamed).
pub fn fork_session(
    root: &Path,
    source_id: &str,
    from: u32,
    new_id: &str,
    retune: Option<Retune<'_>>,
) -> Result<Forked, ForkError> {
    let source = SessionDir::new(root, source_id);
    let loaded = read_log(&source.log_path())?;
    let now_ms = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_millis() as u64);
    let records = fork_records(&loaded.records, from, new_id, now_ms, retune)?;
    let state = SessionState::replay(&records);
    let staging = SessionDir { id: new_id.to_string(), path: root.join(format!(".fork-{new_id}")) };
    let result = write_fork(&source, &staging, &records, &state);
    if let Err(e) = result {
        let _ = std::fs::remove_dir_all(&staging.path);
        return Err(e);
    }
    let dir = SessionDir::new(root, new_id);
    std::fs::rename(&staging.path, &dir.path).map_err(|e| io_err(&dir.path, e))?;
    Ok(Forked { dir, kept_events: records.len(), dropped_events: loaded.records.len() - records.len() })
}

fn write_fork(
    source: &SessionDir,
    staging: &SessionDir,
    records: &[EventRecord],
    state: &SessionState,
) -> Result<(), ForkError> {
    std::fs::create_dir_all(staging.sources_dir()).map_err(|e| io_err(&staging.sources_dir(), e))?;
    for s in &state.sources {
        let name = format!("{}.txt", s.meta.id.0);
        let (from, to) = (source.sources_dir().join(&name), staging.sources_dir().join(&name));
        if from.exists() {
            link_or_copy(&from, &to).map_err(|e| io_err(&to, e))?;
        }
    }
    let mut text = Vec::new();
    for r in records {
        serde_json::to_writer(&mut text, r).map_err(|e| io_err(&staging.log_path(), std::io::Error::other(e)))?;
        text.push(b'\n');
    }
    let log = staging.log_path();
    let file = std::fs::File::create(&log).map_err(|e| io_err(&log, e))?;
    std::io::Write::write_all(&mut &file, &text).and_then(|_| file.sync_all()).map_err(|e| io_err(&log, e))?;
    let stamp = file.metadata().ok().map(|m| super::read::LogStamp::of(&m));
    let summary = SessionSummary::from_state(&staging.id, state, text.len() as u64).stamped(stamp);
    write_summary(staging, &summary).map_err(|e| io_err(&staging.summary_path(), e))
}

/// Source texts never change once written, so a hard link is a copy.
pub(super) fn link_or_copy(from: &Path, to: &Path) -> std::io::Result<()> {
    std::fs::hard_link(from, to).or_else(|_| std::fs::copy(from, to).map(|_| ()))
}

fn io_err(path: &Path, e: std::io::Error) -> ForkError {
    ForkError::Io { path: path.to_path_buf(), message: e.to_string() }
}
