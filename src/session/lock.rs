//! One writer per session. The `lock` file is locked with the operating
//! system's advisory lock (released by the kernel when the holder dies,
//! SIGKILL included) and holds the holder's pid for the message. The file
//! is emptied, never removed, on release: removing it would let a second
//! process lock a new file while a third still holds the old one.
//!
//! A lock file that still names a pid when its lock is free was left by a
//! process that was killed: it is taken over, and the caller is told.

use std::fs::{File, OpenOptions, TryLockError};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

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
        let mut file = OpenOptions::new().read(true).write(true).create(true).truncate(false).open(path).map_err(io)?;
        match file.try_lock() {
            Ok(()) => {}
            Err(TryLockError::WouldBlock) => {
                return Err(LockError::Held { id: id.to_string(), pid: read_pid(&mut file), path: path.to_path_buf() });
            }
            Err(TryLockError::Error(e)) => return Err(io(e)),
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

/// The pid named in a session's lock file, if that process is alive: the
/// session is being written right now. Reads only; never takes the lock.
pub fn live_holder(path: &Path) -> Option<u32> {
    let text = std::fs::read_to_string(path).ok()?;
    let pid: u32 = text.trim().parse().ok()?;
    process_alive(pid).then_some(pid)
}

#[cfg(unix)]
fn process_alive(pid: u32) -> bool {
    let Ok(pid) = libc::pid_t::try_from(pid) else { return false };
    if pid <= 0 {
        return false;
    }
    // SAFETY: kill with signal 0 sends nothing; it only checks that the
    // process exists (EPERM: it exists but belongs to another user).
    let rc = unsafe { libc::kill(pid, 0) };
    rc == 0 || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM)
}

#[cfg(not(unix))]
fn process_alive(_pid: u32) -> bool {
    true
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
    fn a_dead_holders_lock_is_taken_over() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("lock");
        // What a killed process leaves: its pid, and no kernel lock.
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let dead = child.id();
        child.wait().unwrap();
        std::fs::write(&path, format!("{dead}\n")).unwrap();
        assert_eq!(live_holder(&path), None);
        let taken = SessionLock::acquire(&path, "s1").unwrap();
        assert_eq!(taken.stale_pid, Some(dead));
        assert_eq!(std::fs::read_to_string(&path).unwrap().trim(), std::process::id().to_string());
    }
}
