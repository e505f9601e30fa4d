//! The engine's event sink for a session on disk: every event appended to
//! the log (flushed), the log synced at each checkpoint (on a background
//! thread, see `syncer.rs`; closing waits for it), and the summary
//! rewritten at checkpoints at most once a second and when the session
//! closes. (Replacing a file costs milliseconds on common filesystems,
//! far more than the events themselves; a summary older than its log is
//! rebuilt by whoever reads it, so skipping some writes loses nothing.)
//! The sink folds events into its own state so the summary never needs a
//! replay while the session runs.

use std::time::{Duration, Instant};

use super::SessionDir;
use super::log::LogWriter;
use super::summary::{SessionSummary, write_summary};
use super::syncer::BackgroundSync;
use crate::engine::ports::{EventSink, StoreError};
use crate::engine::protocol::EventRecord;
use crate::engine::state::SessionState;

/// Checkpoints closer together than this do not rewrite the summary.
const SUMMARY_INTERVAL: Duration = Duration::from_secs(1);

pub struct SessionLog {
    writer: LogWriter,
    sync: BackgroundSync,
    state: SessionState,
    dir: SessionDir,
    /// When the summary was last written.
    summary_written: Option<Instant>,
    /// Events recorded since then.
    dirty: bool,
}

impl SessionLog {
    /// The log of a new session (created empty).
    pub fn create(dir: &SessionDir) -> std::io::Result<Self> {
        Self::append(dir, SessionState::default())
    }

    /// Appends to an existing log whose events fold into `state`.
    pub fn append(dir: &SessionDir, state: SessionState) -> std::io::Result<Self> {
        let writer = LogWriter::open(&dir.log_path())?;
        let sync = BackgroundSync::start(writer.file_handle()?)?;
        Ok(Self { writer, sync, state, dir: dir.clone(), summary_written: None, dirty: false })
    }

    pub fn state(&self) -> &SessionState {
        &self.state
    }

    /// Rewrites `summary.json` from the events written so far.
    pub fn write_summary(&mut self) -> std::io::Result<()> {
        let stamp = self.writer.stamp();
        let summary = SessionSummary::from_state(&self.dir.id, &self.state, self.writer.len()).stamped(stamp);
        write_summary(&self.dir, &summary)?;
        self.summary_written = Some(Instant::now());
        self.dirty = false;
        Ok(())
    }

    fn refresh_summary(&mut self) {
        // The summary is a cache of the log: failing to write it loses nothing.
        if let Err(e) = self.write_summary() {
            tracing::warn!(session = %self.dir.id, error = %e, "could not write summary.json");
        }
    }
}

impl Drop for SessionLog {
    fn drop(&mut self) {
        if let Err(e) = self.sync.finish() {
            tracing::warn!(session = %self.dir.id, error = %e, "the session log could not be synced to disk");
        }
        if self.dirty {
            self.refresh_summary();
        }
    }
}

impl EventSink for SessionLog {
    fn record(&mut self, record: &EventRecord) -> Result<(), StoreError> {
        self.sync.take_error()?;
        self.writer.record(record)?;
        self.state.apply(record);
        self.dirty = true;
        Ok(())
    }

    fn checkpoint(&mut self) -> Result<(), StoreError> {
        self.sync.request()?;
        if self.dirty && self.summary_written.is_none_or(|t| t.elapsed() >= SUMMARY_INTERVAL) {
            self.refresh_summary();
        }
        Ok(())
    }
}
