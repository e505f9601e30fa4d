//! `[search]`: one table for the user, split by the builder between the
//! engine (parallelism, degraded mode, dedupe) and the search adapter
//! (chains, retries, circuit breakers).

use serde::{Deserialize, Serialize};

use crate::engine::settings::SearchSettings;
use crate::search::{RouterSettings, SourceSet};

/// SEARCH: providers, parallelism, result counts and resilience (retries, circuit breakers,
/// fallback chains).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SearchConfig {
    /// Provider fallback chains. Every chain is asked each query; within a
    /// chain the next provider is used when one fails or its circuit is open.
    pub chains: Vec<Vec<String>>,
    /// Where to look in one word (`local`, `web`, `academic`, `all`); when
    /// set it replaces `chains` (see `SourceSet::chains`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sources: Option<SourceSet>,
    /// Queries searched at once.
    pub concurrency: usize,
    /// Pages fetched at once.
    pub fetch_concurrency: usize,
    pub results_per_query: usize,
    /// Attempts per provider call, the first included.
    pub attempts: u32,
    pub backoff_min_ms: u64,
    pub backoff_max_ms: u64,
    /// A server's `Retry-After` longer than this is cut to it.
    pub retry_after_max_secs: u64,
    /// Consecutive failures that open a provider's circuit.
    pub breaker_failures: u32,
    pub breaker_cooldown_secs: u64,
    /// Share of an iteration's queries failing that puts the session in degraded mode.
    pub degraded_failure_ratio: f64,
    /// Texts at least this similar (word shingles) are the same source.
    pub dedupe_similarity: f64,
}

impl Default for SearchConfig {
    fn default() -> Self {
        let (engine, router) = (SearchSettings::default(), RouterSettings::default());
        Self {
            chains: vec![vec!["local".into()]],
            sources: None,
            concurrency: engine.concurrency,
            fetch_concurrency: engine.fetch_concurrency,
            results_per_query: engine.results_per_query,
            attempts: router.attempts,
            backoff_min_ms: router.backoff_min_ms,
            backoff_max_ms: router.backoff_max_ms,
            retry_after_max_secs: router.retry_after_max_secs,
            breaker_failures: router.breaker_failures,
            breaker_cooldown_secs: router.breaker_cooldown_secs,
            degraded_failure_ratio: engine.degraded_failure_ratio,
            dedupe_similarity: engine.dedupe_similarity,
        }
    }
}

impl SearchConfig {
    /// The engine's part.
    pub fn engine(&self) -> SearchSettings {
        SearchSettings {
            concurrency: self.concurrency,
            fetch_concurrency: self.fetch_concurrency,
            results_per_query: self.results_per_query,
            degraded_failure_ratio: self.degraded_failure_ratio,
            dedupe_similarity: self.dedupe_similarity,
        }
    }

    /// The router's part.
    pub fn router(&self) -> RouterSettings {
        RouterSettings {
            attempts: self.attempts,
            backoff_min_ms: self.backoff_min_ms,
            backoff_max_ms: self.backoff_max_ms,
            retry_after_max_secs: self.retry_after_max_secs,
            breaker_failures: self.breaker_failures,
            breaker_cooldown_secs: self.breaker_cooldown_secs,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_splits_into_the_engine_and_router_parts_without_losing_a_key() {
        let mut c =
            SearchConfig { attempts: 7, dedupe_similarity: 0.7, breaker_cooldown_secs: 9, ..Default::default() };
        c.concurrency = 2;
        assert_eq!(c.router().attempts, 7);
        assert_eq!(c.router().breaker_cooldown_secs, 9);
        assert_eq!(c.engine().concurrency, 2);
        assert_eq!(c.engine().dedupe_similarity, 0.7);
        assert_eq!(SearchConfig::default().engine(), SearchSettings::default());
        assert_eq!(SearchConfig::default().router(), RouterSettings::default());
    }
}
