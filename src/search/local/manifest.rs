//! What the index holds, file by file: enough to skip unchanged files on
//! re-index (path, size, mtime) and to regroup near-duplicate pages without
//! reading them again (fingerprint, title, links).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::extract::SkipReason;

/// Bumped whenever extraction, the schema or the manifest changes meaning:
/// an index of another version is rebuilt.
pub const INDEX_VERSION: u32 = 6;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "state", content = "reason")]
pub enum FileState {
    Indexed,
    Redirect,
    Skipped(SkipReason),
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FileRecord {
    pub size: u64,
    pub mtime_ns: u64,
    #[serde(flatten)]
    pub state: FileState,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub title: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lang: Option<String>,
    #[serde(default)]
    pub words: u32,
    /// SimHash of the page's prose.
    #[serde(default)]
    pub simhash: u64,
    #[serde(default)]
    pub passages: u32,
    /// Links into other top-level folders of the corpus (deduplicated):
    /// how the canonical copy of a duplicate is recognised.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub links: Vec<String>,
    /// For short pages only: every in-corpus link (a stub points at the
    /// page it stands for).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub stub_links: Vec<String>,
    /// Read as Windows-1252 because it was not valid UTF-8.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub reencoded: bool,
}

impl FileRecord {
    pub fn bare(size: u64, mtime_ns: u64, state: FileState) -> Self {
        Self {
            size,
            mtime_ns,
            state,
            title: String::new(),
            lang: None,
            words: 0,
            simhash: 0,
            passages: 0,
            links: Vec::new(),
            stub_links: Vec::new(),
            reencoded: false,
        }
    }
}

/// A manifest holds a few hundred bytes per file: far below this for any
/// corpus sleuth can search.
const MAX_MANIFEST_BYTES: u64 = 2 << 30;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    pub version: u32,
    pub corpus: PathBuf,
    pub files: BTreeMap<String, FileRecord>,
    /// Every folder walked, with its modification time (ns) then: a file
    /// added, removed or renamed in a folder changes the folder's time.
    /// Empty in manifests written before it was kept.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub folders: BTreeMap<String, u64>,
}

impl Manifest {
    pub fn new(corpus: &Path) -> Self {
        Self { version: INDEX_VERSION, corpus: corpus.to_path_buf(), files: BTreeMap::new(), folders: BTreeMap::new() }
    }

    pub fn load(path: &Path) -> std::io::Result<Self> {
        let bytes = crate::files::read_capped(path, MAX_MANIFEST_BYTES).map_err(|e| match e {
            crate::files::FileError::Io { source, .. } => source,
            other => std::io::Error::new(std::io::ErrorKind::InvalidData, other.to_string()),
        })?;
        serde_json::from_slice(&bytes).map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e))
    }

    pub fn save(&self, path: &Path) -> std::io::Result<()> {
        let bytes = serde_json::to_vec(self).map_err(std::io::Error::other)?;
        write_atomic(path, &bytes)
    }

    /// Page count per declared language.
    pub fn languages(&self) -> BTreeMap<String, usize> {
        let mut out = BTreeMap::new();
        for r in self.files.values().filter(|r| r.state == FileState::Indexed) {
            if let Some(l) = &r.lang {
                *out.entry(primary_language(l)).or_default() += 1;
            }
        }
        out
    }
}

/// `en-US` → `en`.
pub fn primary_language(tag: &str) -> String {
    tag.split(['-', '_']).next().unwrap_or(tag).to_ascii_lowercase()
}

/// Writes through a temporary file and a rename, so a crash leaves the old
/// file or the new one, never half of one.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let tmp = path.with_extension("tmp");
    let written = std::fs::write(&tmp, bytes).and_then(|_| std::fs::rename(&tmp, path));
    if written.is_err() {
        // A full disk: no half-written temporary stays behind.
        let _ = std::fs::remove_file(&tmp);
    }
    written
}
