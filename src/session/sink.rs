//! The engine's event sink for a session on disk: every event appended to
//! the log (flushed), the log synced at each checkpoint, and the summary
//! rewritten there too. The sink folds events into its own state so the
//! summary never needs a replay while the session runs.

use super::SessionDir;
use super::log::LogWriter;
use super::redact::Redactor;
use super::summary::{SessionSummary, write_summary};
use crate::engine::ports::{EventSink, StoreError};
use crate::engine::protocol::EventRecord;
use crate::engine::state::SessionState;

pub struct SessionLog {
    writer: LogWriter,
    state: SessionState,
    dir: SessionDir,
    redactor: Redactor,
}

impl SessionLog {
    /// The log of a new session (created empty).
    pub fn create(dir: &SessionDir, redactor: Redactor) -> std::io::Result<Self> {
        Self::append(dir, SessionState::default(), redactor)
    }

    /// Appends to an existing log whose events fold into `state`.
    pub fn append(dir: &SessionDir, state: SessionState, redactor: Redactor) -> std::io::Result<Self> {
        let writer = LogWriter::open(&dir.log_path())?.with_redactor(redactor.clone());
        Ok(Self { writer, state, dir: dir.clone(), redactor })
    }

    pub fn state(&self) -> &SessionState {
        &self.state
    }

    /// Rewrites `summary.json` from the events written so far.
    pub fn write_summary(&self) -> std::io::Result<()> {
        let summary = SessionSummary::from_state(&self.dir.id, &self.state, self.writer.len());
        write_summary(&self.dir, &summary, &self.redactor)
    }
}

impl EventSink for SessionLog {
    fn record(&mut self, record: &EventRecord) -> Result<(), StoreError> {
        self.writer.record(record)?;
        self.state.apply(record);
        Ok(())
    }

    fn checkpoint(&mut self) -> Result<(), StoreError> {
        self.writer.checkpoint()?;
        // The summary is a cache of the log: failing to write it loses nothing.
        if let Err(e) = self.write_summary() {
            tracing::warn!(session = %self.dir.id, error = %e, "could not write summary.json");
        }
        Ok(())
    }
}
