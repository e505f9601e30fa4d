//! Source texts as files `sources/<id>.txt`, written atomically (temp file
//! then rename) so a crash never leaves half a text behind, and redacted
//! like the log: a page that quotes a configured key does not store it.

use std::path::PathBuf;
use std::sync::Arc;

use super::redact::Redactor;
use crate::engine::model::SourceId;
use crate::engine::ports::{StoreError, TextStore};

#[derive(Debug, Clone)]
pub struct DirTexts {
    dir: PathBuf,
    redactor: Redactor,
}

impl DirTexts {
    pub fn new(dir: PathBuf) -> Self {
        Self { dir, redactor: Redactor::default() }
    }

    /// Blanks these secrets in every text stored.
    pub fn with_redactor(mut self, redactor: Redactor) -> Self {
        self.redactor = redactor;
        self
    }

    fn path(&self, id: SourceId) -> PathBuf {
        self.dir.join(format!("{}.txt", id.0))
    }
}

impl TextStore for DirTexts {
    fn put(&self, id: SourceId, text: &str) -> Result<(), StoreError> {
        std::fs::create_dir_all(&self.dir)?;
        let tmp = self.dir.join(format!(".{}.tmp", id.0));
        std::fs::write(&tmp, self.redactor.redact(text).as_bytes())?;
        std::fs::rename(&tmp, self.path(id))?;
        Ok(())
    }

    fn get(&self, id: SourceId) -> Option<Arc<str>> {
        std::fs::read_to_string(self.path(id)).ok().map(Arc::from)
    }
}
