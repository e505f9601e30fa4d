//! The session store as one value: where sessions live, and the ways in
//! (create, resolve an id, open to continue, list). Entry points reach
//! session files only through it, never by joining paths themselves.

use std::path::{Path, PathBuf};

use super::list::{ListedSession, list_sessions};
use super::lock::{LockError, SessionLock};
use super::open::{OpenError, OpenedSession, open_session, resolve_id};
use super::{SessionDir, SessionLog, new_session_id};

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionStore {
    root: PathBuf,
}

/// A new session's folder, locked for its one writer.
pub struct CreatedSession {
    pub dir: SessionDir,
    pub lock: SessionLock,
}

#[derive(Debug, thiserror::Error)]
pub enum CreateError {
    #[error("cannot create the session folder under {}: {message}", root.display())]
    Folder { root: PathBuf, message: String },
    #[error(transparent)]
    Lock(#[from] LockError),
    #[error("cannot open the session log {}: {message}", path.display())]
    Log { path: PathBuf, message: String },
}

impl SessionStore {
    pub fn new(root: impl Into<PathBuf>) -> Self {
        Self { root: root.into() }
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The folder of session `id` (which may not exist).
    pub fn dir(&self, id: &str) -> SessionDir {
        SessionDir::new(&self.root, id)
    }

    /// A new session with a fresh id, its folder made and locked. When the
    /// lock cannot be taken the empty folder is removed again.
    pub fn create(&self) -> Result<CreatedSession, CreateError> {
        let id = new_session_id();
        let dir = SessionDir::create(&self.root, &id)
            .map_err(|e| CreateError::Folder { root: self.root.clone(), message: e.to_string() })?;
        match SessionLock::acquire(&dir.lock_path(), &id) {
            Ok(acquired) => Ok(CreatedSession { dir, lock: acquired.lock }),
            Err(e) => {
                discard_if_empty(&dir);
                Err(e.into())
            }
        }
    }

    /// The log of a new session.
    pub fn create_log(&self, dir: &SessionDir) -> Result<SessionLog, CreateError> {
        SessionLog::create(dir).map_err(|e| CreateError::Log { path: dir.log_path(), message: e.to_string() })
    }

    /// The session named by an exact id, a unique prefix, or `last`.
    pub fn resolve(&self, given: &str) -> Result<String, OpenError> {
        resolve_id(&self.root, given)
    }

    /// Session `id`, locked, replayed, and its log open for appending.
    pub fn open(&self, id: &str) -> Result<OpenedSession, OpenError> {
        open_session(&self.root, id)
    }

    /// Every session, newest first.
    pub fn list(&self) -> std::io::Result<Vec<ListedSession>> {
        list_sessions(&self.root)
    }
}

/// Removes a session folder whose log never got an event (a session that
/// could not start leaves nothing behind).
pub fn discard_if_empty(dir: &SessionDir) {
    let empty = std::fs::metadata(dir.log_path()).map(|m| m.len() == 0).unwrap_or(true);
    if empty {
        let _ = std::fs::remove_dir_all(&dir.path);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_created_session_is_locked_resolvable_and_listed() {
        let home = tempfile::tempdir().expect("tempdir");
        let store = SessionStore::new(home.path().join("sessions"));
        let created = store.create().expect("created");
        assert!(created.dir.sources_dir().is_dir());
        let again = SessionLock::acquire(&created.dir.lock_path(), &created.dir.id);
        assert!(again.is_err(), "one writer per session");
        assert_eq!(store.resolve(&created.dir.id[..10]).expect("by prefix"), created.dir.id);
        let listed = store.list().expect("listed");
        assert_eq!(listed.len(), 1);
    }

    #[test]
    fn an_empty_session_folder_is_discarded_and_a_used_one_kept() {
        let home = tempfile::tempdir().expect("tempdir");
        let store = SessionStore::new(home.path());
        let empty = store.dir("a");
        std::fs::create_dir_all(&empty.path).expect("dir");
        discard_if_empty(&empty);
        assert!(!empty.path.exists());
        let used = store.dir("b");
        std::fs::create_dir_all(&used.path).expect("dir");
        std::fs::write(used.log_path(), "{}\n").expect("log");
        discard_if_empty(&used);
        assert!(used.path.exists());
    }
}
