use std::time::Duration;

use crate::engine::ports::{FetchedDoc, ProviderError, SearchHit, SearchQuery};
use crate::resilience::RetryClass;
use async_trait::async_trait;

/// Retries know a provider error's class from the error itself.
impl RetryClass for ProviderError {
    fn is_transient(&self) -> bool {
        ProviderError::is_transient(self)
    }

    fn retry_after(&self) -> Option<Duration> {
        ProviderError::retry_after(self)
    }
}

/// One search backend (the local corpus, a web API), as the router calls it.
#[async_trait]
pub trait SearchProvider: Send + Sync {
    /// The name used in config chains and recorded with each source.
    fn name(&self) -> &str;
    async fn search(&self, query: &SearchQuery) -> Result<Vec<SearchHit>, ProviderError>;
    /// The source's full extracted text.
    async fn fetch(&self, hit: &SearchHit) -> Result<FetchedDoc, ProviderError>;
}
