//! The session folder behind a TUI view: its stored source texts (the
//! source viewer) and the `w` key's exports — the report as HTML and PDF
//! written into the current folder, from the log as it is now (the log is
//! the truth), every text through the redactor.

use std::path::PathBuf;
use std::sync::Arc;

use crate::engine::model::SourceId;
use crate::engine::ports::{StoreError, TextStore};
use crate::engine::state::SessionState;
use crate::session::export::rich::{RichFormat, export_rich};
use crate::session::summary::SessionSummary;
use crate::session::{DirTexts, Redactor, SessionDir, read_log};
use crate::tui::runner::SessionFiles;

pub struct SessionFolder {
    dir: SessionDir,
    texts: DirTexts,
    /// Where exports are written.
    out: PathBuf,
}

impl SessionFolder {
    pub fn new(session_dir: &std::path::Path) -> Self {
        let dir = SessionDir::at(session_dir);
        let out = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
        Self { texts: DirTexts::new(dir.sources_dir()), dir, out }
    }
}

impl TextStore for SessionFolder {
    fn put(&self, id: SourceId, text: &str) -> Result<(), StoreError> {
        self.texts.put(id, text)
    }

    fn get(&self, id: SourceId) -> Option<Arc<str>> {
        self.texts.get(id)
    }
}

impl SessionFiles for SessionFolder {
    fn export(&self) -> Result<Vec<String>, String> {
        let log = read_log(&self.dir.log_path()).map_err(|e| e.to_string())?;
        let state = SessionState::replay(&log.records);
        let summary = SessionSummary::from_state(&self.dir.id, &state, log.bytes);
        let recorded = state.header.as_ref().map(|h| h.config.clone()).unwrap_or_default();
        let redactor = Redactor::from_configs(&[&recorded]);
        let now =
            std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_millis() as u64);
        let mut written = Vec::new();
        for format in [RichFormat::Html, RichFormat::Pdf] {
            let bytes = export_rich(&self.dir, &state, &summary, &redactor, format, now).map_err(|e| e.to_string())?;
            let path = self.out.join(format!("sleuth-{}.{}", self.dir.id, format.extension()));
            std::fs::write(&path, bytes).map_err(|e| format!("{}: {e}", path.display()))?;
            written.push(path.display().to_string());
        }
        Ok(written)
    }
}
