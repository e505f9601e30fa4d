//! Source texts as files `sources/<id>.txt`, written atomically (temp file
//! then rename) so a crash never leaves half a text behind. The engine
//! hands them over with secrets already blanked (`engine::redact`).

use std::path::PathBuf;
use std::sync::Arc;

use crate::engine::model::SourceId;
use crate::engine::ports::{StoreError, TextStore};

#[derive(Debug, Clone)]
pub struct DirTexts {
    dir: PathBuf,
}

impl DirTexts {
    pub fn new(dir: PathBuf) -> Self {
        Self { dir }
    }

    fn path(&self, id: SourceId) -> PathBuf {
        self.dir.join(format!("{}.txt", id.0))
    }
}

impl TextStore for DirTexts {
    fn put(&self, id: SourceId, text: &str) -> Result<(), StoreError> {
        std::fs::create_dir_all(&self.dir)?;
        let tmp = self.dir.join(format!(".{}.tmp", id.0));
        std::fs::write(&tmp, text.as_bytes())?;
        std::fs::rename(&tmp, self.path(id))?;
        Ok(())
    }

    fn get(&self, id: SourceId) -> Option<Arc<str>> {
        std::fs::read_to_string(self.path(id)).ok().map(Arc::from)
    }
}
