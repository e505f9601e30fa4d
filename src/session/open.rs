//! Opening a session to continue it: lock it, load and replay its log, cut
//! off a torn last line, and open the log for appending. The headless
//! `resume` and the TUI both start here, then hand the parts to
//! `Engine::new` with the replayed state.

use std::io::Write;
use std::path::{Path, PathBuf};

use super::SessionDir;
use super::lock::{LockError, SessionLock};
use super::log::{LogError, read_log};
use super::sink::SessionLog;
use crate::engine::protocol::EventRecord;
use crate::engine::state::SessionState;

/// Where torn last lines are kept (they are cut from the log so appending
/// can go on, but never thrown away).
pub const TORN_TAILS_FILE: &str = "torn-tails.txt";

#[derive(Debug, thiserror::Error)]
pub enum OpenError {
    #[error("no session `{id}` in {}; `sleuth sessions` lists them", root.display())]
    NotFound { id: String, root: PathBuf },
    #[error("`{given}` matches {} sessions ({}); give more of the id", matches.len(), shown(matches))]
    Ambiguous { given: String, matches: Vec<String> },
    #[error(transparent)]
    Lock(#[from] LockError),
    #[error(transparent)]
    Log(#[from] LogError),
    #[error("{}: {message}", path.display())]
    Io { path: PathBuf, message: String },
}

/// Ids shown when a prefix matches many sessions.
const AMBIGUOUS_SHOWN: usize = 5;

/// The first few of `ids`, and an ellipsis if there are more.
fn shown(ids: &[String]) -> String {
    let mut text = ids.iter().take(AMBIGUOUS_SHOWN).cloned().collect::<Vec<_>>().join(", ");
    if ids.len() > AMBIGUOUS_SHOWN {
        text.push_str(", …");
    }
    text
}

/// A session ready to continue: locked (until this is dropped), replayed,
/// and its log open for appending.
pub struct OpenedSession {
    pub dir: SessionDir,
    pub lock: SessionLock,
    pub records: Vec<EventRecord>,
    pub state: SessionState,
    pub log: SessionLog,
    /// Things the user should be told: a stale lock taken over, a torn line set aside.
    pub notices: Vec<String>,
}

/// The session named by `given`: an exact id, a unique prefix of one, or
/// `last` for the newest.
pub fn resolve_id(root: &Path, given: &str) -> Result<String, OpenError> {
    let not_found = || OpenError::NotFound { id: given.to_string(), root: root.to_path_buf() };
    if !given.is_empty() && !given.contains(['/', '\\']) && root.join(given).is_dir() {
        return Ok(given.to_string());
    }
    let mut ids: Vec<String> = std::fs::read_dir(root)
        .map_err(|_| not_found())?
        .filter_map(|e| e.ok())
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|name| !name.starts_with('.'))
        .collect();
    ids.sort();
    if given == "last" || given == "latest" {
        // Ids begin with their UTC start time, so they sort by age.
        return ids.pop().ok_or_else(not_found);
    }
    let matches: Vec<String> = ids.into_iter().filter(|id| id.starts_with(given)).collect();
    match matches.len() {
        1 => Ok(matches.into_iter().next().unwrap_or_default()),
        0 => Err(not_found()),
        _ => Err(OpenError::Ambiguous { given: given.to_string(), matches }),
    }
}

/// Locks, loads, repairs a torn tail and replays session `id` under `root`.
pub fn open_session(root: &Path, id: &str) -> Result<OpenedSession, OpenError> {
    let dir = SessionDir::new(root, id);
    if !dir.path.is_dir() {
        return Err(OpenError::NotFound { id: id.to_string(), root: root.to_path_buf() });
    }
    let acquired = SessionLock::acquire(&dir.lock_path(), id)?;
    let mut notices = Vec::new();
    if let Some(pid) = acquired.stale_pid {
        notices.push(format!("took over the lock of process {pid}, which is no longer running"));
    }
    let loaded = read_log(&dir.log_path())?;
    if let Some(tail) = &loaded.torn_tail {
        set_aside_torn_tail(&dir, tail, loaded.intact_bytes)?;
        notices.push(format!(
            "the last event was cut short by a crash ({} bytes); it was set aside in {} and the session continues from event {}",
            tail.len(),
            dir.path.join(TORN_TAILS_FILE).display(),
            loaded.records.last().map_or(0, |r| r.seq)
        ));
    }
    let state = SessionState::replay(&loaded.records);
    let io = |path: PathBuf| move |e: std::io::Error| OpenError::Io { path, message: e.to_string() };
    let mut log = SessionLog::append(&dir, state.clone()).map_err(io(dir.log_path()))?;
    if let Err(e) = log.write_summary() {
        tracing::warn!(session = id, error = %e, "could not refresh summary.json");
    }
    Ok(OpenedSession { dir, lock: acquired.lock, records: loaded.records, state, log, notices })
}

/// Keeps the torn bytes beside the log, then cuts them from the log so the
/// next event starts on a line of its own.
fn set_aside_torn_tail(dir: &SessionDir, tail: &str, intact_bytes: u64) -> Result<(), OpenError> {
    let io = |path: PathBuf| move |e: std::io::Error| OpenError::Io { path, message: e.to_string() };
    let keep = dir.path.join(TORN_TAILS_FILE);
    let mut f = std::fs::OpenOptions::new().create(true).append(true).open(&keep).map_err(io(keep.clone()))?;
    writeln!(f, "{tail}").and_then(|_| f.sync_data()).map_err(io(keep))?;
    let log = dir.log_path();
    let file = std::fs::OpenOptions::new().write(true).open(&log).map_err(io(log.clone()))?;
    file.set_len(intact_bytes).and_then(|_| file.sync_data()).map_err(io(log))?;
    Ok(())
}
