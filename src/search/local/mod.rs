//! The local corpus: a tantivy index of a folder of `.md`, `.txt` and
//! `.html` documents (by default the Rust documentation rustup installs),
//! searched by passage and served as a `SearchProvider`.

mod config;
mod corpus;
mod definitions;
mod discover;
mod dupes;
pub mod extract;
pub mod freshness;
mod indexer;
mod links;
mod manifest;
mod provider;
mod schema;
mod search;
mod store;

use std::path::{Path, PathBuf};
use std::sync::Arc;

pub use config::LocalConfig;
pub use corpus::{LocalCorpus, corpus_root, index_folder};
pub use definitions::DefinitionHit;
pub use discover::default_corpus;
pub use indexer::IndexSummary;
pub use links::SectionLinks;
pub use provider::LocalProvider;
pub use schema::analyzer;
pub use search::{PageText, PassageHit, Ranking};

/// The steps of the local index that `sleuth index --to opensearch` reuses
/// (the same walk, extraction, passages and near-duplicate folding).
pub mod steps {
    pub use super::discover::{FileEntry, WalkProblems, walk};
    pub use super::dupes::{GroupRules, group};
    pub use super::extract::{Page, Passage};
    pub use super::indexer::{FileRead, PageContent, read_file, tally};
    pub use super::manifest::{FileRecord, FileState, Manifest};
}

#[derive(Debug, thiserror::Error)]
pub enum CorpusError {
    #[error("{message}")]
    NoDefault { message: String },
    #[error(
        "the corpus folder {path} does not exist; set `[local] corpus` to a folder of .md, .txt or .html files \
         (or pass `--set local.corpus=PATH`)"
    )]
    NotFound { path: PathBuf },
    #[error("the corpus {path} is a file, not a folder; point `[local] corpus` at a folder")]
    NotADirectory { path: PathBuf },
    #[error("no .md, .txt or .html files in {path}{}; point `[local] corpus` at a folder of documents", problems_note(.problems))]
    Empty { path: PathBuf, problems: Vec<String> },
    #[error("{path} is not indexed yet; run `sleuth index {path}` (or set `[local] auto_index = true`)")]
    NotIndexed { path: PathBuf },
    #[error("{}: {message}", path.display())]
    Io { path: PathBuf, message: String },
    #[error("index error: {message}")]
    Index { message: String },
}

fn problems_note(problems: &[String]) -> String {
    if problems.is_empty() { String::new() } else { format!(" ({})", problems.join("; ")) }
}

impl CorpusError {
    pub fn io(path: &Path, e: std::io::Error) -> Self {
        let message = match e.kind() {
            std::io::ErrorKind::PermissionDenied => "permission denied (check the folder's permissions)".to_string(),
            _ => e.to_string(),
        };
        CorpusError::Io { path: path.to_path_buf(), message }
    }

    pub fn index(e: tantivy::TantivyError) -> Self {
        CorpusError::Index { message: e.to_string() }
    }
}

/// Opens (building on first use) the corpus for `cfg`. The builder calls
/// this once per process and shares the `Arc` between the provider and the
/// built-in reasoner's statistics; nothing here caches it behind callers.
pub fn shared(
    cfg: &LocalConfig,
    index_root: &Path,
    progress: &(dyn Fn(&str) + Send + Sync),
) -> Result<Arc<LocalCorpus>, CorpusError> {
    Ok(Arc::new(LocalCorpus::open_or_build(cfg, index_root, progress)?))
}

/// Where indexes live: `[local] index_dir`, or `<data dir>/index`.
pub fn index_root(cfg: &LocalConfig, paths: &crate::paths::Paths) -> PathBuf {
    cfg.index_dir.clone().unwrap_or_else(|| paths.index_dir())
}

/// Deletes the index of the corpus at `root` (for `sleuth index --rebuild`).
pub fn remove_index(index_root: &Path, root: &Path) -> Result<(), CorpusError> {
    let layout = store::Layout::for_corpus(index_root, root);
    match std::fs::remove_dir_all(&layout.dir) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(CorpusError::io(&layout.dir, e)),
        _ => Ok(()),
    }
}
