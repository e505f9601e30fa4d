//! The search port: what the engine asks of search (run a query over the
//! configured providers, fetch a hit's text, count an iteration's queries)
//! and the types it speaks in. The search adapter's router implements it;
//! tests may implement it with anything.

use std::time::Duration;

use async_trait::async_trait;
use serde::{Deserialize, Serialize};

use crate::engine::model::{Scholarly, SourceKind};

/// A query as providers receive it: text plus excluded terms, which each
/// provider renders in its own syntax (`-term`, a MUST_NOT clause, …).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SearchQuery {
    pub text: String,
    #[serde(default)]
    pub exclude: Vec<String>,
    pub limit: usize,
}

/// One search result, before its text is fetched.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SearchHit {
    /// URL, or corpus-relative path with an optional `#anchor`.
    pub locator: String,
    pub title: String,
    #[serde(default)]
    pub snippet: String,
    pub score: f32,
    pub kind: SourceKind,
    /// Dedupe key if the provider knows better than the generic rules.
    #[serde(default)]
    pub canonical: Option<String>,
    #[serde(default)]
    pub heading: Option<String>,
    #[serde(default)]
    pub published: Option<String>,
    #[serde(default)]
    pub site: Option<String>,
    /// Tier the provider assigns itself (the local corpus does); web hits
    /// leave it to the `[source_tiers]` table.
    #[serde(default)]
    pub tier: Option<u8>,
    /// Bibliographic metadata from a scholarly index (boxed: most hits have none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scholarly: Option<Box<Scholarly>>,
}

/// A fetched source's extracted text and what extraction learned.
#[derive(Debug, Clone, PartialEq)]
pub struct FetchedDoc {
    pub text: String,
    pub title: Option<String>,
    pub published: Option<String>,
    pub site: Option<String>,
    /// The final locator after redirects, if it changed.
    pub final_locator: Option<String>,
}

impl FetchedDoc {
    pub fn text(text: impl Into<String>) -> Self {
        Self { text: text.into(), title: None, published: None, site: None, final_locator: None }
    }
}

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ProviderError {
    /// Worth retrying: connection errors, timeouts, 429 and 5xx.
    #[error("{message}")]
    Transient { message: String, retry_after: Option<Duration> },
    /// Not worth retrying: other 4xx, bad configuration, parse failures.
    #[error("{message}")]
    Permanent { message: String },
    /// The source exists but is not read (a PDF, a binary, too large).
    #[error("skipped: {reason}")]
    Skipped { reason: String },
}

impl ProviderError {
    pub fn transient(message: impl Into<String>) -> Self {
        ProviderError::Transient { message: message.into(), retry_after: None }
    }

    pub fn permanent(message: impl Into<String>) -> Self {
        ProviderError::Permanent { message: message.into() }
    }

    pub fn is_transient(&self) -> bool {
        matches!(self, ProviderError::Transient { .. })
    }

    pub fn retry_after(&self) -> Option<Duration> {
        match self {
            ProviderError::Transient { retry_after, .. } => *retry_after,
            _ => None,
        }
    }
}

/// Which rule opened a provider's circuit: the `circuit_opened` event says it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Trip {
    /// `threshold` failures in a row.
    Consecutive { failures: u32 },
    /// Failures on half (or more) of an iteration's queries.
    IterationShare { failures: u32, queries: u32 },
    /// The one trial call after the cool-down failed.
    TrialFailed,
}

impl std::fmt::Display for Trip {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Trip::Consecutive { failures } => write!(f, "{failures} consecutive failures"),
            Trip::IterationShare { failures, queries } => {
                write!(f, "failures on {failures} of this iteration's {queries} queries (half or more)")
            }
            Trip::TrialFailed => write!(f, "the trial call after the cool-down failed"),
        }
    }
}

/// One provider's failure within a chain.
#[derive(Debug, Clone, PartialEq)]
pub struct ChainAttempt {
    pub provider: String,
    pub error: String,
    pub attempts: u32,
    /// This failure opened the provider's circuit, by this rule.
    pub circuit_opened: Option<Trip>,
    /// The provider was not called: its circuit was already open.
    pub skipped_open: bool,
    /// The provider the chain moved on to, if any.
    pub fallback_to: Option<String>,
}

/// A query's outcome over every chain.
#[derive(Debug, Clone, Default)]
pub struct RoutedSearch {
    /// Hits with the name of the provider that found them.
    pub hits: Vec<(String, SearchHit)>,
    pub providers_used: Vec<String>,
    pub failures: Vec<ChainAttempt>,
    /// Providers whose open circuit this search's success closed.
    pub circuits_closed: Vec<String>,
    /// Set when no chain produced an answer.
    pub error: Option<String>,
    pub attempts: u32,
}

/// Search as the engine uses it.
#[async_trait]
pub trait Searcher: Send + Sync {
    /// The providers of each chain, by name (recorded in the session header).
    fn provider_names(&self) -> Vec<Vec<String>>;
    /// An iteration of `queries` queries starts (failure shares count against it).
    fn begin_iteration(&self, queries: usize);
    async fn search(&self, query: &SearchQuery) -> RoutedSearch;
    /// The text of `hit`, from the provider (by name) that found it.
    async fn fetch(&self, provider: &str, hit: &SearchHit) -> Result<FetchedDoc, ProviderError>;
}
