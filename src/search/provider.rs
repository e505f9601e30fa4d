use std::time::Duration;

use async_trait::async_trait;
use serde::{Deserialize, Serialize};

use crate::engine::model::SourceKind;

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

#[async_trait]
pub trait SearchProvider: Send + Sync {
    /// The name used in config chains and recorded with each source.
    fn name(&self) -> &str;
    async fn search(&self, query: &SearchQuery) -> Result<Vec<SearchHit>, ProviderError>;
    /// The source's full extracted text.
    async fn fetch(&self, hit: &SearchHit) -> Result<FetchedDoc, ProviderError>;
}
