use std::path::PathBuf;

use serde::{Deserialize, Serialize};

/// `[local]`: the embedded document corpus.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct LocalConfig {
    /// Folder to index; by default the Rust documentation rustup installs.
    pub corpus: Option<PathBuf>,
    /// Tier given to local sources (1 official … 5 social).
    pub tier: u8,
}

impl Default for LocalConfig {
    fn default() -> Self {
        Self { corpus: None, tier: 1 }
    }
}
