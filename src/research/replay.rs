//! A saved session, read back: one id check, one replay of its log, one
//! redaction rule for everything that leaves (`sleuth export`, `sleuth
//! open`, `GET /sessions/{id}/report` and `/export`, MCP `get_report` and
//! the report resource). The engine blanked keys as the session ran; a log
//! written elsewhere, or a key set under another variable since, is data
//! from outside, so what is shown passes the redactor of both the
//! session's recorded configuration and the current one.

use std::borrow::Cow;

use crate::engine::SessionStatus;
use crate::engine::protocol::EventRecord;
use crate::engine::state::SessionState;
use crate::session::export::rich::{RichExportError, RichFormat, export_rich};
use crate::session::export::{ExportFormat, IterationFile, export, iteration_files};
use crate::session::summary::SessionSummary;
use crate::session::{LogError, OpenError, Redactor, SessionDir, SessionStore, read_log};

#[derive(Debug, thiserror::Error)]
pub enum ReplayError {
    /// No such session, or an id that could name a path outside the store.
    #[error("no session `{given}`; `sleuth sessions` lists them")]
    NotFound { given: String },
    #[error(transparent)]
    Ambiguous(OpenError),
    /// The log cannot be read.
    #[error(transparent)]
    Log(#[from] LogError),
}

/// Session `given` of `store`: an exact id, a unique start of one, or
/// `last`. Anything that could name a path (a separator, `..`) is no id.
pub fn resolve(store: &SessionStore, given: &str) -> Result<String, ReplayError> {
    let given = given.trim();
    let not_found = || ReplayError::NotFound { given: crate::text::sanitize_inline(given) };
    if given.is_empty() || given.contains(['/', '\\', '\0']) || given.contains("..") {
        return Err(not_found());
    }
    store.resolve(given).map_err(|e| match e {
        OpenError::Ambiguous { .. } => ReplayError::Ambiguous(e),
        _ => not_found(),
    })
}

/// A session replayed from its log, ready to show.
pub struct Replayed {
    pub id: String,
    pub dir: SessionDir,
    pub records: Vec<EventRecord>,
    pub state: SessionState,
    pub summary: SessionSummary,
    /// Bytes of a last line cut short by a crash (left out).
    pub torn_tail: Option<u64>,
    redactor: Redactor,
}

impl Replayed {
    /// Reads and replays session `id` of `store`; `current` is the running
    /// configuration's redactor.
    pub fn read(store: &SessionStore, id: &str, current: &Redactor) -> Result<Self, ReplayError> {
        let dir = store.dir(id);
        let log = read_log(&dir.log_path())?;
        let state = SessionState::replay(&log.records);
        let summary = SessionSummary::from_state(id, &state, log.bytes);
        let recorded = state.header.as_ref().map(|h| h.config.clone()).unwrap_or_default();
        let redactor = Redactor::from_configs(&[&recorded]).merged(current);
        Ok(Self {
            id: id.to_string(),
            dir,
            records: log.records,
            state,
            summary,
            torn_tail: log.torn_tail.map(|t| t.len()),
            redactor,
        })
    }

    /// The session's status as its log tells it (nobody writing it).
    pub fn status(&self) -> SessionStatus {
        self.summary.status
    }

    /// `text` with every key of either configuration blanked.
    pub fn redact<'a>(&self, text: &'a str) -> Cow<'a, str> {
        self.redactor.redact(text)
    }

    /// The report, redacted; `None` before one was written.
    pub fn report(&self) -> Option<String> {
        self.state.report.as_ref().map(|r| self.redact(&r.markdown).into_owned())
    }

    /// The session in an export format, redacted.
    pub fn export(&self, format: ExportFormat) -> String {
        self.redact(&export(&self.state, &self.summary, format)).into_owned()
    }

    /// The session as HTML, PDF or an evidence bundle, redacted.
    pub fn export_rich(&self, format: RichFormat, now_ms: u64) -> Result<Vec<u8>, RichExportError> {
        export_rich(&self.dir, &self.state, &self.summary, &self.redactor, format, now_ms)
    }

    /// One JSON file per iteration and `session.json`, redacted.
    pub fn iteration_files(&self) -> Vec<IterationFile> {
        iteration_files(&self.state, &self.summary)
            .into_iter()
            .map(|f| IterationFile { contents: self.redact(&f.contents).into_owned(), name: f.name })
            .collect()
    }

    /// The records, redacted (for the TUI's review).
    pub fn redacted_records(&self) -> Vec<EventRecord> {
        self.records.iter().map(|r| self.redactor.redact_record(r.clone())).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_that_could_be_paths_are_no_ids() {
        let home = tempfile::tempdir().expect("tempdir");
        let store = SessionStore::new(home.path().join("sessions"));
        std::fs::create_dir_all(home.path().join("sessions/20260101-000000-ab12")).expect("dir");
        std::fs::create_dir_all(home.path().join("outside")).expect("dir");
        assert_eq!(resolve(&store, "20260101").expect("prefix"), "20260101-000000-ab12");
        for bad in ["", "../outside", "..", "a/b", "a\\b", "nope"] {
            assert!(matches!(resolve(&store, bad), Err(ReplayError::NotFound { .. })), "{bad}");
        }
    }
}
