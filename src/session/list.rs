//! Every session under `sessions/`, newest first, from their summaries. A
//! session whose log cannot be read is listed as damaged with the reason;
//! it never hides the others.

use std::path::Path;

use serde::Serialize;

use super::SessionDir;
use super::lock::{LockState, lock_state};
use super::summary::{Freshness, SessionSummary, load_summary, write_summary};

/// A listed session's status: the engine's one vocabulary.
pub use crate::engine::status::SessionStatus as Status;

#[derive(Debug, Clone, Serialize)]
pub struct ListedSession {
    pub id: String,
    pub status: Status,
    /// Absent for a damaged session.
    pub summary: Option<SessionSummary>,
    /// Why a session is damaged.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub problem: Option<String>,
    /// Pid of the process writing it, when running.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pid: Option<u32>,
    /// When the folder last changed: a damaged session's place in the order.
    #[serde(skip)]
    pub modified_ms: u64,
}

impl ListedSession {
    pub fn started_at_ms(&self) -> u64 {
        self.summary.as_ref().map_or(self.modified_ms, |s| s.started_at_ms)
    }

    /// Case-insensitive match on the id or the question.
    pub fn matches(&self, filter: &str) -> bool {
        let filter = filter.to_lowercase();
        self.id.to_lowercase().contains(&filter)
            || self.summary.as_ref().is_some_and(|s| s.question.to_lowercase().contains(&filter))
    }
}

/// Lists the sessions under `root`, newest first. Out-of-date summaries
/// are rebuilt (and stored again when no process is writing the session).
pub fn list_sessions(root: &Path) -> std::io::Result<Vec<ListedSession>> {
    let entries = match std::fs::read_dir(root) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(e),
    };
    let mut out = Vec::new();
    for entry in entries {
        let entry = entry?;
        let name = entry.file_name().to_string_lossy().into_owned();
        // Dot-folders are forks being created.
        if name.starts_with('.') || !entry.file_type().is_ok_and(|t| t.is_dir()) {
            continue;
        }
        out.push(list_one(&SessionDir::new(root, &name)));
    }
    out.sort_by(|a, b| b.started_at_ms().cmp(&a.started_at_ms()).then_with(|| b.id.cmp(&a.id)));
    Ok(out)
}

/// One session's row.
pub fn list_one(dir: &SessionDir) -> ListedSession {
    // Running is what the lock says, never whether the pid it names is
    // alive: a killed session's pid may belong to another process since.
    let (running, pid) = match lock_state(&dir.lock_path()) {
        LockState::Held { pid } => (true, pid),
        LockState::Free => (false, None),
    };
    match load_summary(dir) {
        Ok((summary, freshness)) => {
            if freshness == Freshness::Rebuilt && !running {
                // Best effort: a read-only folder still lists.
                let _ = write_summary(dir, &summary);
            }
            // The log's status, unless a live process holds the session
            // (researching, or showing its question to the user).
            let status = if running && !summary.status.has_ended() { Status::Running } else { summary.status };
            ListedSession { id: dir.id.clone(), status, summary: Some(summary), problem: None, pid, modified_ms: 0 }
        }
        Err(e) => ListedSession {
            id: dir.id.clone(),
            // A session created a moment ago has no header yet.
            status: if running { Status::Running } else { Status::Damaged },
            summary: None,
            problem: Some(match running {
                true => "starting: no event recorded yet".to_string(),
                // The folder is implied by the row: name the file only.
                false => e.to_string().replace(&format!("{}{}", dir.path.display(), std::path::MAIN_SEPARATOR), ""),
            }),
            pid,
            modified_ms: modified_ms(dir),
        },
    }
}

fn modified_ms(dir: &SessionDir) -> u64 {
    let log = std::fs::metadata(dir.log_path()).or_else(|_| std::fs::metadata(&dir.path));
    log.and_then(|m| m.modified())
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_millis() as u64)
}
