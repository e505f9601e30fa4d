use std::path::PathBuf;

use serde::{Deserialize, Serialize};

/// `[local]`: the embedded document corpus.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct LocalConfig {
    /// Folder to index; by default the Rust documentation rustup installs
    /// (`$(rustc --print sysroot)/share/doc/rust/html`).
    pub corpus: Option<PathBuf>,
    /// Where indexes live (one sub-folder per corpus); default `<data dir>/index`.
    pub index_dir: Option<PathBuf>,
    /// Tier given to local sources (1 official … 5 social).
    pub tier: u8,
    /// Build the index on first use when there is none.
    pub auto_index: bool,
    /// Path prefixes preferred as the canonical copy of near-identical
    /// pages, most preferred first. Empty: the general rule decides (the copy
    /// most linked from elsewhere in the corpus, then the shallowest path).
    pub prefer: Vec<String>,
    /// Languages searched (`<html lang>` values, e.g. `["en"]`). Empty: the
    /// corpus's most common language, plus pages that declare none.
    pub languages: Vec<String>,
    /// Files larger than this are skipped (and counted).
    pub max_file_mb: u64,
    /// Pages whose prose fingerprints (64-bit SimHash) differ in at most
    /// this many bits are near-identical copies of one document.
    pub duplicate_max_bits: u32,
    /// Pages with fewer words are too short to compare as near-duplicates,
    /// and a page this short that links to a same-titled page is a stub of it.
    pub stub_max_words: usize,
    /// Passage size in words (a section, or a few paragraphs of a long one).
    pub passage_words: usize,
    /// Weight of a match in the page title, and in the passage's heading,
    /// against one in its text (1).
    pub title_boost: f64,
    pub heading_boost: f64,
    /// Passages retrieved per query before collapsing to one hit per page.
    pub candidates_per_query: usize,
    /// A page scores its best passage plus this share of its second, the
    /// square of it of its third, and so on (0: best passage only).
    pub passage_decay: f64,
    /// How much a passage's score depends on holding all the query's terms
    /// (weighted by rarity): score × (1 − c + c × share held), in [0, 1].
    pub coordination: f64,
    /// Passages shorter than this many words score lower (square root of
    /// the share reached); 0: no penalty.
    pub short_passage_words: usize,
    /// Indexing threads; 0 uses every core.
    pub threads: usize,
    /// Before a run, compare the folder with its index: `update` what
    /// changed (incrementally), `warn` with the command to run, or `off`.
    pub stale_check: super::freshness::StaleCheck,
    /// How long that check may spend on the files of a large corpus
    /// (milliseconds); folders are always checked, small corpora whole.
    pub stale_check_ms: u64,
}

impl Default for LocalConfig {
    fn default() -> Self {
        Self {
            corpus: None,
            index_dir: None,
            tier: 1,
            auto_index: true,
            prefer: Vec::new(),
            languages: Vec::new(),
            max_file_mb: 10,
            duplicate_max_bits: 3,
            stub_max_words: 60,
            passage_words: 120,
            title_boost: 2.0,
            heading_boost: 1.5,
            candidates_per_query: 80,
            passage_decay: 0.5,
            coordination: 0.6,
            short_passage_words: 40,
            threads: 0,
            stale_check: super::freshness::StaleCheck::Update,
            stale_check_ms: 50,
        }
    }
}
