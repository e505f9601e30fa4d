//! A search cluster as a provider: OpenSearch (2.x/3.x) and Elasticsearch
//! (8.x/9.x) share the REST subset used here (`_search` with `multi_match`
//! and highlighting, `_bulk`, index creation with a mapping, `_count`,
//! `_mapping`, `_cluster/health`). Sleuth searches the cluster where it is
//! and can load a folder into it (`sleuth index --to opensearch`); the
//! cluster's operator runs it.

mod bulk;
mod client;
mod config;
mod files;
mod health;
mod indexer;
mod mapping;
mod provider;
mod query;
pub mod stats;

pub use bulk::{Action, BulkPolicy, BulkReport, Item, ndjson};
pub use client::{Body, ClusterClient};
pub use config::{OpenSearchConfig, valid_index_name};
pub use health::{Check, CheckStatus, check_cluster};
pub use indexer::{ClusterIndexSummary, index_folder};
pub use mapping::{files_index, files_index_body, index_body};
pub use provider::OpenSearchProvider;
pub use query::{PassageHit, parse_hits, search_body};

use crate::search::ProviderError;
use crate::search::local::CorpusError;

#[derive(Debug, thiserror::Error)]
pub enum OpenSearchError {
    /// The configuration cannot work (a variable not set, a CA file missing).
    #[error("[opensearch]: {0}")]
    Config(String),
    #[error(transparent)]
    Cluster(#[from] ProviderError),
    #[error(transparent)]
    Corpus(#[from] CorpusError),
}
