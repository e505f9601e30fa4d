//! Where a corpus's index lives, and the small files beside tantivy's:
//! `sleuth-index.json` (version, corpus, languages), `groups.json` (page →
//! canonical copy) and `manifest.json` (file by file).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::manifest::{Manifest, write_atomic};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct IndexMeta {
    pub version: u32,
    pub corpus: PathBuf,
    /// Indexed pages per declared language.
    #[serde(default)]
    pub languages: BTreeMap<String, usize>,
    /// Passages in the index (the document count of term statistics).
    #[serde(default)]
    pub passages: usize,
}

/// The files of one corpus's index.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Layout {
    pub dir: PathBuf,
}

impl Layout {
    /// One folder per corpus under `index_root`, named after the corpus
    /// folder plus a hash of its full path.
    pub fn for_corpus(index_root: &Path, corpus: &Path) -> Self {
        let name: String = corpus
            .file_name()
            .map(|n| {
                n.to_string_lossy().chars().filter(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_').collect()
            })
            .unwrap_or_default();
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for b in corpus.to_string_lossy().bytes() {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
        let name = if name.is_empty() { "corpus".to_string() } else { name };
        Self { dir: index_root.join(format!("{name}-{h:016x}")) }
    }

    pub fn tantivy_dir(&self) -> PathBuf {
        self.dir.join("tantivy")
    }

    pub fn meta_path(&self) -> PathBuf {
        self.dir.join("sleuth-index.json")
    }

    pub fn groups_path(&self) -> PathBuf {
        self.dir.join("groups.json")
    }

    pub fn manifest_path(&self) -> PathBuf {
        self.dir.join("manifest.json")
    }

    pub fn load_meta(&self) -> std::io::Result<IndexMeta> {
        let bytes = std::fs::read(self.meta_path())?;
        serde_json::from_slice(&bytes).map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e))
    }

    pub fn load_groups(&self) -> std::io::Result<BTreeMap<String, String>> {
        let bytes = std::fs::read(self.groups_path())?;
        serde_json::from_slice(&bytes).map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e))
    }

    /// Saves groups and manifest, then the meta file that marks the index
    /// complete.
    pub fn save(
        &self,
        meta: &IndexMeta,
        groups: &BTreeMap<String, String>,
        manifest: &Manifest,
    ) -> std::io::Result<()> {
        write_atomic(&self.groups_path(), &serde_json::to_vec(groups).map_err(std::io::Error::other)?)?;
        manifest.save(&self.manifest_path())?;
        write_atomic(&self.meta_path(), &serde_json::to_vec_pretty(meta).map_err(std::io::Error::other)?)
    }

    /// Removes everything, for a rebuild from scratch.
    pub fn clear(&self) -> std::io::Result<()> {
        match std::fs::remove_dir_all(&self.dir) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e),
            _ => std::fs::create_dir_all(self.tantivy_dir()),
        }
    }
}
