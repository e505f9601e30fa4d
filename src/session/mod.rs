//! The session store: one folder per session under `sessions/`, holding the
//! append-only event log, the fetched source texts, a summary rebuilt from
//! the log whenever it is out of date, and a lock file naming the process
//! that writes it. Listing, resuming, forking, following up and exporting
//! all start from the log.

mod create;
pub mod export;
pub mod follow_up;
pub mod fork;
pub mod limits;
pub mod list;
pub mod lock;
mod log;
pub mod memory;
pub mod open;
mod read;
mod sink;
pub mod stats;
pub mod store;
pub mod summary;
mod syncer;
mod texts;

use std::path::{Path, PathBuf};

pub use crate::engine::redact::Redactor;
pub use create::{NewSessionLog, staging_path};
pub use limits::{ReadLimits, SessionsConfig, read_limits, set_read_limits};
pub use log::LogWriter;
pub use open::{OpenError, OpenedSession, open_session, resolve_id};
pub use read::{LoadedLog, LogError, LogStamp, TornTail, read_log, read_log_with};
pub use sink::SessionLog;
pub use store::SessionStore;
pub use texts::DirTexts;

/// The files of one session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionDir {
    pub id: String,
    pub path: PathBuf,
}

impl SessionDir {
    /// The event log's file name inside a session folder.
    pub const LOG_FILE: &str = "events.jsonl";

    pub fn new(root: &Path, id: &str) -> Self {
        Self { id: id.to_string(), path: root.join(id) }
    }

    /// The session whose folder is `path` (its id is the folder's name).
    pub fn at(path: &Path) -> Self {
        let id = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        Self { id, path: path.to_path_buf() }
    }

    pub fn log_path(&self) -> PathBuf {
        self.path.join(Self::LOG_FILE)
    }

    pub fn sources_dir(&self) -> PathBuf {
        self.path.join("sources")
    }

    pub fn summary_path(&self) -> PathBuf {
        self.path.join("summary.json")
    }

    pub fn lock_path(&self) -> PathBuf {
        self.path.join("lock")
    }

    /// Creates the folder for a new session.
    pub fn create(root: &Path, id: &str) -> std::io::Result<Self> {
        let dir = Self::new(root, id);
        std::fs::create_dir_all(dir.sources_dir())?;
        Ok(dir)
    }
}

/// A new session id: UTC time to the second plus four random hex digits,
/// so ids sort by start time and two sessions started together differ.
pub fn new_session_id() -> String {
    let now = time::OffsetDateTime::now_utc();
    let fmt = time::macros::format_description!("[year][month][day]-[hour][minute][second]");
    let stamp = now.format(&fmt).unwrap_or_else(|_| now.unix_timestamp().to_string());
    format!("{stamp}-{:04x}", fastrand::u16(..))
}
