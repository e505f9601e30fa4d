//! A new session's folder appears only with its header in it. Until the
//! engine records the header, nothing of the session exists under
//! `sessions/` (so a run killed while the corpus is indexed, or while the
//! TUI asks for the question, leaves nothing behind). The header is written
//! in a staging folder whose dot-name `sessions` skips, synced, and the
//! folder is renamed into place with the session lock already held: the
//! session is listed running from its first moment, and interrupted (and
//! resumable) if killed at any point after.

use std::path::{Path, PathBuf};
use std::time::Duration;

use super::SessionDir;
use super::lock::{SessionLock, live_holder};
use super::log::LogWriter;
use super::sink::SessionLog;
use crate::engine::ports::{EventSink, StoreError};
use crate::engine::protocol::{Event, EventRecord};
use crate::engine::state::SessionState;

/// A staging folder untouched this long, with no live process holding its
/// lock, was left by a process killed while staging: it is removed.
const STALE_STAGING: Duration = Duration::from_secs(600);

const STAGING_PREFIX: &str = ".new-";

/// Where session `id` is assembled before it appears under its own name.
pub fn staging_path(root: &Path, id: &str) -> PathBuf {
    root.join(format!("{STAGING_PREFIX}{id}"))
}

/// The event sink of a session that does not exist yet: the first event
/// (which must be the header) creates it, then every event goes to its log.
pub struct NewSessionLog {
    root: PathBuf,
    id: String,
    // Dropped in this order: the log (which writes the last summary), then the lock.
    log: Option<SessionLog>,
    lock: Option<SessionLock>,
}

impl NewSessionLog {
    /// Session `id` under `root`, created when its header is recorded.
    pub fn new(root: &Path, id: &str) -> Self {
        Self { root: root.to_path_buf(), id: id.to_string(), log: None, lock: None }
    }

    pub fn dir(&self) -> SessionDir {
        SessionDir::new(&self.root, &self.id)
    }

    /// Writes the header in the staging folder, then renames it into place.
    fn create(&mut self, header: &EventRecord) -> Result<SessionLog, StoreError> {
        sweep_stale_staging(&self.root);
        let final_dir = self.dir();
        if final_dir.path.exists() {
            return Err(StoreError(format!("{} already exists", final_dir.path.display())));
        }
        let staging = SessionDir { id: self.id.clone(), path: staging_path(&self.root, &self.id) };
        let staged = || -> Result<SessionLock, StoreError> {
            std::fs::create_dir_all(staging.sources_dir())?;
            let lock = SessionLock::acquire(&staging.lock_path(), &self.id).map_err(|e| StoreError(e.to_string()))?;
            let mut writer = LogWriter::open(&staging.log_path())?;
            if !writer.is_empty() {
                return Err(StoreError(format!("{} already holds events", staging.log_path().display())));
            }
            writer.record(header)?;
            writer.file_handle()?.sync_all()?;
            std::fs::rename(&staging.path, &final_dir.path)?;
            Ok(lock.lock)
        };
        let lock = match staged() {
            Ok(lock) => lock,
            Err(e) => {
                // A full disk or a read-only folder: leave nothing half made.
                let _ = std::fs::remove_dir_all(&staging.path);
                return Err(e);
            }
        };
        sync_folder(&self.root);
        self.lock = Some(lock.moved_to(final_dir.lock_path()));
        let mut state = SessionState::default();
        state.apply(header);
        let log = SessionLog::append(&final_dir, state)?;
        Ok(log)
    }
}

impl EventSink for NewSessionLog {
    fn record(&mut self, record: &EventRecord) -> Result<(), StoreError> {
        if let Some(log) = &mut self.log {
            return log.record(record);
        }
        if !matches!(record.event, Event::SessionStarted(_)) {
            return Err(StoreError(format!("session {}: the first event must be its header", self.id)));
        }
        let mut log = self.create(record)?;
        // The summary exists from the start: `sessions` needs no rebuild.
        if let Err(e) = log.write_summary() {
            tracing::warn!(session = %self.id, error = %e, "could not write summary.json");
        }
        self.log = Some(log);
        Ok(())
    }

    fn checkpoint(&mut self) -> Result<(), StoreError> {
        match &mut self.log {
            Some(log) => log.checkpoint(),
            None => Ok(()),
        }
    }
}

/// Makes a rename in `dir` durable (best effort: not every platform can
/// sync a folder).
fn sync_folder(dir: &Path) {
    if let Ok(f) = std::fs::File::open(dir) {
        let _ = f.sync_all();
    }
}

/// Removes staging folders left by processes killed while staging.
fn sweep_stale_staging(root: &Path) {
    let Ok(entries) = std::fs::read_dir(root) else { return };
    for entry in entries.flatten() {
        let name = entry.file_name();
        if !name.to_string_lossy().starts_with(STAGING_PREFIX) {
            continue;
        }
        let path = entry.path();
        let old = entry
            .metadata()
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| t.elapsed().ok())
            .is_some_and(|age| age >= STALE_STAGING);
        if old && live_holder(&path.join("lock")).is_none() {
            tracing::info!(folder = %path.display(), "removing a session staging folder left by a killed process");
            let _ = std::fs::remove_dir_all(&path);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::protocol::{Limits, SCHEMA_VERSION, SessionHeader};

    fn header(id: &str) -> EventRecord {
        let h = SessionHeader {
            schema_version: SCHEMA_VERSION,
            sleuth_version: "test".into(),
            session_id: id.into(),
            question: "Why?".into(),
            preset: "custom".into(),
            limits: Limits {
                max_iterations: 1,
                max_queries: 1,
                max_sources: 1,
                time_limit_secs: 0,
                cost_budget_usd: 0.0,
                token_budget: 0,
            },
            step_mode: false,
            reasoner: "test".into(),
            providers: vec![],
            config: serde_json::Value::Null,
            forked_from: None,
            follow_up_of: None,
            imported: None,
        };
        EventRecord { seq: 1, at_ms: 0, elapsed_ms: 0, event: Event::SessionStarted(h) }
    }

    #[test]
    fn the_folder_appears_with_its_header_and_the_lock_held() {
        let root = tempfile::tempdir().unwrap();
        let mut log = NewSessionLog::new(root.path(), "s1");
        log.checkpoint().unwrap();
        assert!(!log.dir().path.exists(), "nothing exists before the header");
        log.record(&header("s1")).unwrap();
        let dir = log.dir();
        let text = std::fs::read_to_string(dir.log_path()).unwrap();
        assert_eq!(text.lines().count(), 1);
        assert!(text.contains("session_started"));
        assert!(dir.sources_dir().is_dir());
        assert_eq!(live_holder(&dir.lock_path()), Some(std::process::id()));
        assert!(!staging_path(root.path(), "s1").exists());
        drop(log);
        assert_eq!(live_holder(&dir.lock_path()), None);
    }

    #[test]
    fn a_failed_header_write_leaves_nothing_behind() {
        let root = tempfile::tempdir().unwrap();
        // Something in the way of the staging folder's `sources/`.
        let staging = staging_path(root.path(), "s1");
        std::fs::create_dir_all(&staging).unwrap();
        std::fs::write(staging.join("sources"), "not a folder").unwrap();
        let mut log = NewSessionLog::new(root.path(), "s1");
        assert!(log.record(&header("s1")).is_err());
        assert!(!staging.exists());
        assert!(!log.dir().path.exists());
    }

    #[test]
    fn a_first_event_that_is_not_a_header_is_refused() {
        let root = tempfile::tempdir().unwrap();
        let mut log = NewSessionLog::new(root.path(), "s1");
        let mut r = header("s1");
        r.event = Event::CancelRequested;
        assert!(log.record(&r).is_err());
        assert!(!log.dir().path.exists());
    }

    #[test]
    fn stale_staging_folders_are_swept_and_fresh_ones_kept() {
        let root = tempfile::tempdir().unwrap();
        let stale = staging_path(root.path(), "old");
        let fresh = staging_path(root.path(), "young");
        std::fs::create_dir_all(&stale).unwrap();
        std::fs::create_dir_all(&fresh).unwrap();
        let long_ago = std::time::SystemTime::now() - STALE_STAGING * 2;
        std::fs::File::open(&stale).unwrap().set_modified(long_ago).unwrap();
        sweep_stale_staging(root.path());
        assert!(!stale.exists());
        assert!(fresh.exists());
    }
}
