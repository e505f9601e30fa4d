//! One writer per session. The `lock` file is locked with the operating
//! system's advisory lock (released by the kernel when the holder dies,
//! SIGKILL included) and holds the holder's pid for the message. The file
//! is emptied, never removed, on release: removing it would let a second
//! process lock a new file while a third still holds the old one.
//!
//! A lock file that still names a pid when its lock is free was left by a
//! process that was killed: it is taken over, and the caller is told.
//!
//! Whether a session is being written is asked of the lock itself, never
//! of the pid: a pid left by a killed process may name another process
//! since. Asking takes a shared lock for a moment, so taking the lock
//! retries briefly before saying another process holds it.

use std::fs::{File, OpenOptions, TryLockError};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

#[derive(Debug, thiserror::Error)]
pub enum LockError {
    #[error(
        "session {id} is open in another sleuth process ({}); close it there first (lock file: {})",
        holder_text(*pid),
        path.display()
    )]
    Held { id: String, pid: Option<u32>, path: PathBuf },
    #[error("cannot lock {}: {message}", path.display())]
    Io { path: PathBuf, message: String },
}

fn holder_text(pid: Option<u32>) -> String {
    match pid {
        Some(pid) => format!("pid {pid}"),
        None => "pid not yet written".into(),
    }
}

/// How often, and how long apart, taking a held lock is tried again.
const PROBE_RETRIES: u32 = 5;
const PROBE_WAIT: Duration = Duration::from_millis(20);

/// Held while a process writes a session; released on drop.
#[derive(Debug)]
pub struct SessionLock {
    file: File,
    path: PathBuf,
}

/// A lock taken, and the pid of a killed holder whose lock was taken over.
#[derive(Debug)]
pub struct Acquired {
    pub lock: SessionLock,
    pub stale_pid: Option<u32>,
}

impl SessionLock {
    /// Locks `path` for session `id`, or says which process holds it.
    pub fn acquire(path: &Path, id: &str) -> Result<Acquired, LockError> {
        let io = |e: std::io::Error| LockError::Io { path: path.to_path_buf(), message: e.to_string() };
        let mut file = crate::files::open_regular_with(
            path,
            OpenOptions::new().read(true).write(true).create(true).truncate(false),
        )
        .map_err(|e| LockError::Io { path: path.to_path_buf(), message: e.to_string() })?;
        let mut tries = 0;
        loop {
            match file.try_lock() {
                Ok(()) => break,
                // A lister asking whether the session runs holds a shared
                // lock for a moment: wait that out before giving up.
                Err(TryLockError::WouldBlock) if tries < PROBE_RETRIES => {
                    tries += 1;
                    std::thread::sleep(PROBE_WAIT);
                }
                Err(TryLockError::WouldBlock) => {
                    return Err(LockError::Held {
                        id: id.to_string(),
                        pid: read_pid(&mut file),
                        path: path.to_path_buf(),
                    });
                }
                Err(TryLockError::Error(e)) => return Err(io(e)),
            }
        }
        // We hold the lock, so whoever wrote a pid here is gone.
        let stale_pid = read_pid(&mut file);
        file.set_len(0).map_err(io)?;
        file.seek(SeekFrom::Start(0)).map_err(io)?;
        writeln!(file, "{}", std::process::id()).map_err(io)?;
        file.flush().map_err(io)?;
        Ok(Acquired { lock: SessionLock { file, path: path.to_path_buf() }, stale_pid })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The same lock after its folder was renamed (the kernel's lock
    /// follows the open file; only the path used in messages changes).
    pub fn moved_to(mut self, path: PathBuf) -> Self {
        self.path = path;
        self
    }
}

impl Drop for SessionLock {
    fn drop(&mut self) {
        // Empty means free; the kernel drops the lock when the file closes.
        if let Err(e) = self.file.set_len(0) {
            tracing::warn!(path = %self.path.display(), error = %e, "could not clear the session lock file");
        }
    }
}

fn read_pid(file: &mut File) -> Option<u32> {
    let mut text = String::new();
    file.seek(SeekFrom::Start(0)).ok()?;
    file.read_to_string(&mut text).ok()?;
    text.trim().parse().ok()
}

/// Whether some process holds a session's lock right now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LockState {
    Free,
    /// Held; the pid is the one the holder wrote (absent for a moment
    /// after the lock is taken).
    Held {
        pid: Option<u32>,
    },
}

/// Asks the lock at `path` whether a process holds it, without waiting and
/// without keeping it: a shared lock taken and dropped at once. A lock
/// file that is missing or not a regular file is free (nobody can hold it).
pub fn lock_state(path: &Path) -> LockState {
    let Ok((mut file, _)) = crate::files::open_regular(path) else { return LockState::Free };
    match file.try_lock_shared() {
        Ok(()) => LockState::Free,
        Err(TryLockError::WouldBlock) => LockState::Held { pid: read_pid(&mut file) },
        Err(TryLockError::Error(e)) => {
            tracing::debug!(path = %path.display(), error = %e, "cannot ask the session lock");
            LockState::Free
        }
    }
}

/// The pid of the process holding a session's lock, when one does: the
/// session is being written right now.
pub fn live_holder(path: &Path) -> Option<u32> {
    match lock_state(path) {
        LockState::Held { pid } => pid,
        LockState::Free => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn second_lock_names_the_holder_and_release_frees_it() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("lock");
        let first = SessionLock::acquire(&path, "s1").unwrap();
        assert_eq!(first.stale_pid, None);
        let err = SessionLock::acquire(&path, "s1").unwrap_err();
        match &err {
            LockError::Held { pid, .. } => assert_eq!(*pid, Some(std::process::id())),
            other => panic!("unexpected {other:?}"),
        }
        assert!(err.to_string().contains(&format!("pid {}", std::process::id())), "{err}");
        assert_eq!(live_holder(&path), Some(std::process::id()));
        drop(first);
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "");
        assert_eq!(live_holder(&path), None);
        let again = SessionLock::acquire(&path, "s1").unwrap();
        assert_eq!(again.stale_pid, None);
    }

    #[test]
    fn a_live_pid_in_a_free_lock_is_not_running() {
        // A killed session's pid, since reused by a live process (this one).
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("lock");
        std::fs::write(&path, format!("{}\n", std::process::id())).unwrap();
        assert_eq!(lock_state(&path), LockState::Free);
        assert_eq!(live_holder(&path), None);
        let held = SessionLock::acquire(&path, "s1").unwrap();
        assert_eq!(lock_state(&path), LockState::Held { pid: Some(std::process::id()) });
        drop(held);
    }

    #[test]
    fn a_dead_holders_lock_is_taken_over() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("lock");
        // What a killed process leaves: its pid, and no kernel lock.
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let dead = child.id();
        child.wait().unwrap();
        std::fs::write(&path, format!("{dead}\n")).unwrap();
        assert_eq!(live_holder(&path), None);
        assert_eq!(lock_state(&path), LockState::Free);
        let taken = SessionLock::acquire(&path, "s1").unwrap();
        assert_eq!(taken.stale_pid, Some(dead));
        assert_eq!(std::fs::read_to_string(&path).unwrap().trim(), std::process::id().to_string());
    }
}
