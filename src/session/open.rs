//! Opening a session to continue it: lock it, load and replay its log, cut
//! off a torn last line, and open the log for appending. The headless
//! `resume` and the TUI both start here, then hand the parts to
//! `Engine::new` with the replayed state.

use std::io::Write;
use std::path::{Path, PathBuf};

use super::SessionDir;
use super::lock::{LockError, SessionLock};
use super::read::{LogError, read_log};
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
        // The first row of `sessions`: one order everywhere (creation time
        // to the millisecond; an id's second and random suffix cannot
        // order two sessions started in the same second).
        let newest = super::list::list_sessions(root).ok().and_then(|l| l.into_iter().next());
        return newest.map(|s| s.id).ok_or_else(not_found);
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
        set_aside_torn_tail(&dir, loaded.intact_bytes)?;
        notices.push(format!(
            "the last event was cut short by a crash ({} bytes); it was set aside in {} and the session continues from event {}",
            tail.bytes,
            dir.path.join(TORN_TAILS_FILE).display(),
            loaded.records.last().map_or(0, |r| r.seq)
        ));
    }
    let state = SessionState::replay(&loaded.records);
    if let Some(notice) = missing_texts(&dir, &state) {
        notices.push(notice);
    }
    let io = |path: PathBuf| move |e: std::io::Error| OpenError::Io { path, message: e.to_string() };
    let mut log = SessionLog::append(&dir, state.clone()).map_err(io(dir.log_path()))?;
    if let Err(e) = log.write_summary() {
        tracing::warn!(session = id, error = %e, "could not refresh summary.json");
    }
    Ok(OpenedSession { dir, lock: acquired.lock, records: loaded.records, state, log, notices })
}

/// What to tell the user when source texts the log relies on are gone
/// (`sources/` deleted or emptied): drafts quote from them, so the session
/// would go on to a different answer without them.
fn missing_texts(dir: &SessionDir, state: &SessionState) -> Option<String> {
    let texts = super::DirTexts::new(dir.sources_dir());
    let missing: Vec<String> =
        state.sources.iter().filter(|s| !texts.has(s.meta.id)).map(|s| s.meta.id.0.to_string()).collect();
    if missing.is_empty() {
        return None;
    }
    let total = state.sources.len();
    let shown = if missing.len() > 10 { format!("{}, …", missing[..10].join(", ")) } else { missing.join(", ") };
    Some(format!(
        "{} of {total} source texts are missing from {} (source {shown}): the session cannot quote them again, so \
         its answer from here on may differ; restore them, or start afresh with `sleuth fork {} --from 0`",
        missing.len(),
        dir.sources_dir().display(),
        dir.id
    ))
}

/// Keeps the torn bytes beside the log (copied, never held in memory
/// whole), then cuts them from the log so the next event starts on a line
/// of its own.
fn set_aside_torn_tail(dir: &SessionDir, intact_bytes: u64) -> Result<(), OpenError> {
    use std::io::{Seek, SeekFrom};
    let io = |path: PathBuf| move |e: std::io::Error| OpenError::Io { path, message: e.to_string() };
    let file_err = |e: crate::files::FileError| OpenError::Io { path: e.path().to_path_buf(), message: e.to_string() };
    let log = dir.log_path();
    let mut from =
        crate::files::open_regular_with(&log, std::fs::OpenOptions::new().read(true).write(true)).map_err(file_err)?;
    let keep = dir.path.join(TORN_TAILS_FILE);
    let mut to = crate::files::open_regular_with(&keep, std::fs::OpenOptions::new().create(true).append(true))
        .map_err(file_err)?;
    from.seek(SeekFrom::Start(intact_bytes)).map_err(io(log.clone()))?;
    std::io::copy(&mut from, &mut to).map_err(io(keep.clone()))?;
    to.write_all(b"\n").and_then(|_| to.sync_data()).map_err(io(keep))?;
    from.set_len(intact_bytes).and_then(|_| from.sync_data()).map_err(io(log))?;
    Ok(())
}
