//! Source texts as files `sources/<id>.txt`, written atomically (temp file
//! then rename) so a crash never leaves half a text behind. The engine
//! hands them over with secrets already blanked (`engine::redact`).

use std::path::PathBuf;
use std::sync::Arc;

use crate::engine::model::SourceId;
use crate::engine::ports::{StoreError, TextStore};

/// A stored text is a page's text (web pages are capped far below this).
const MAX_TEXT_BYTES: u64 = 1 << 30;

#[derive(Debug, Clone)]
pub struct DirTexts {
    dir: PathBuf,
}

impl DirTexts {
    pub fn new(dir: PathBuf) -> Self {
        Self { dir }
    }

    /// Whether source `id`'s text is stored.
    pub fn has(&self, id: SourceId) -> bool {
        self.path(id).is_file()
    }

    fn path(&self, id: SourceId) -> PathBuf {
        self.dir.join(format!("{}.txt", id.0))
    }
}

impl TextStore for DirTexts {
    fn put(&self, id: SourceId, text: &str) -> Result<(), StoreError> {
        std::fs::create_dir_all(&self.dir)?;
        let (tmp, path) = (self.dir.join(format!(".{}.tmp", id.0)), self.path(id));
        let written = std::fs::write(&tmp, text.as_bytes()).and_then(|_| std::fs::rename(&tmp, &path));
        written.map_err(|e| {
            // A full disk: no half-written temporary stays behind.
            let _ = std::fs::remove_file(&tmp);
            StoreError(format!("cannot store the text of source {} in {}: {e}", id.0, path.display()))
        })
    }

    fn get(&self, id: SourceId) -> Option<Arc<str>> {
        // Only a regular file, never waited on: a text replaced by a pipe
        // must not stall the session.
        crate::files::read_text_capped(&self.path(id), MAX_TEXT_BYTES).ok().map(Arc::from)
    }
}
