//! Runs a query over every configured chain; within a chain, falls back to
//! the next provider when one fails or its circuit is open.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;

use super::{Breaker, SearchProvider};
use crate::engine::ports::{ChainAttempt, FetchedDoc, ProviderError, RoutedSearch, SearchHit, SearchQuery, Searcher};
use crate::resilience::{RetryPolicy, retry};

struct Slot {
    provider: Arc<dyn SearchProvider>,
    breaker: Mutex<Breaker>,
}

/// Retries and circuit breakers: the router's part of `[search]`.
#[derive(Debug, Clone, PartialEq)]
pub struct RouterSettings {
    /// Attempts per provider call, the first included.
    pub attempts: u32,
    pub backoff_min_ms: u64,
    pub backoff_max_ms: u64,
    /// A server's `Retry-After` longer than this is cut to it.
    pub retry_after_max_secs: u64,
    /// Consecutive failures that open a provider's circuit.
    pub breaker_failures: u32,
    pub breaker_cooldown_secs: u64,
}

impl Default for RouterSettings {
    fn default() -> Self {
        Self {
            attempts: 3,
            backoff_min_ms: 250,
            backoff_max_ms: 5_000,
            retry_after_max_secs: 30,
            breaker_failures: 3,
            breaker_cooldown_secs: 60,
        }
    }
}

pub struct SearchRouter {
    chains: Vec<Vec<Arc<Slot>>>,
    policy: RetryPolicy,
}

impl SearchRouter {
    pub fn new(chains: Vec<Vec<Arc<dyn SearchProvider>>>, s: &RouterSettings) -> Self {
        let cooldown = Duration::from_secs(s.breaker_cooldown_secs);
        let chains = chains
            .into_iter()
            .map(|chain| {
                chain
                    .into_iter()
                    .map(|provider| {
                        Arc::new(Slot { provider, breaker: Mutex::new(Breaker::new(s.breaker_failures, cooldown)) })
                    })
                    .collect()
            })
            .collect();
        let policy = RetryPolicy::new(s.attempts, s.backoff_min_ms, s.backoff_max_ms, s.retry_after_max_secs);
        Self { chains, policy }
    }

    pub fn provider_names(&self) -> Vec<Vec<String>> {
        self.chains.iter().map(|c| c.iter().map(|s| s.provider.name().to_string()).collect()).collect()
    }

    /// An iteration of `queries` queries starts (the breakers count its failures).
    pub fn begin_iteration(&self, queries: usize) {
        for slot in self.chains.iter().flatten() {
            if let Ok(mut b) = slot.breaker.lock() {
                b.begin_iteration(queries);
            }
        }
    }

    pub async fn search(&self, query: &SearchQuery) -> RoutedSearch {
        let runs = self.chains.iter().map(|chain| self.search_chain(chain, query));
        let results = futures::future::join_all(runs).await;
        let mut out = RoutedSearch::default();
        let mut errors = Vec::new();
        for r in results {
            out.attempts += r.attempts;
            out.failures.extend(r.failures);
            out.circuits_closed.extend(r.circuits_closed);
            match r.error {
                None => {
                    out.hits.extend(r.hits);
                    out.providers_used.extend(r.providers_used);
                }
                Some(e) => errors.push(e),
            }
        }
        if out.providers_used.is_empty() && !errors.is_empty() {
            out.error = Some(errors.join("; "));
        }
        out
    }

    async fn search_chain(&self, chain: &[Arc<Slot>], query: &SearchQuery) -> RoutedSearch {
        let mut out = RoutedSearch::default();
        let mut last_error = String::from("no provider configured");
        for (i, slot) in chain.iter().enumerate() {
            let name = slot.provider.name().to_string();
            let next = chain.get(i + 1).map(|s| s.provider.name().to_string());
            if !slot.breaker.lock().map(|b| b.allows()).unwrap_or(true) {
                last_error = format!("{name}: circuit open");
                out.failures.push(ChainAttempt {
                    provider: name,
                    error: "circuit open".into(),
                    attempts: 0,
                    circuit_opened: None,
                    skipped_open: true,
                    fallback_to: next,
                });
                continue;
            }
            let provider = slot.provider.clone();
            let (result, attempts) = retry(self.policy, || provider.search(query)).await;
            out.attempts += attempts;
            match result {
                Ok(hits) => {
                    if slot.breaker.lock().is_ok_and(|mut b| b.record_success()) {
                        out.circuits_closed.push(name.clone());
                    }
                    out.hits = hits.into_iter().map(|h| (name.clone(), h)).collect();
                    out.providers_used.push(name);
                    return out;
                }
                Err(e) => {
                    let opened = slot.breaker.lock().ok().and_then(|mut b| b.record_failure());
                    last_error = named(&name, &e.to_string());
                    out.failures.push(ChainAttempt {
                        provider: name,
                        error: e.to_string(),
                        attempts,
                        circuit_opened: opened,
                        skipped_open: false,
                        fallback_to: next,
                    });
                }
            }
        }
        out.error = Some(last_error);
        out
    }

    /// Fetches a hit's text from the provider that found it, with retries.
    pub async fn fetch(&self, provider: &str, hit: &SearchHit) -> Result<FetchedDoc, ProviderError> {
        let Some(slot) = self.chains.iter().flatten().find(|s| s.provider.name() == provider) else {
            return Err(ProviderError::permanent(format!("unknown provider {provider}")));
        };
        let p = slot.provider.clone();
        retry(self.policy, || p.fetch(hit)).await.0
    }
}

/// An error as the user reads it, once: `searxng: HTTP 429`, not
/// `searxng: searxng: HTTP 429` when the provider already named itself.
fn named(provider: &str, error: &str) -> String {
    match error.strip_prefix(provider) {
        Some(rest) if rest.starts_with(':') => error.to_string(),
        _ => format!("{provider}: {error}"),
    }
}

#[async_trait]
impl Searcher for SearchRouter {
    fn provider_names(&self) -> Vec<Vec<String>> {
        SearchRouter::provider_names(self)
    }

    fn begin_iteration(&self, queries: usize) {
        SearchRouter::begin_iteration(self, queries);
    }

    async fn search(&self, query: &SearchQuery) -> RoutedSearch {
        SearchRouter::search(self, query).await
    }

    async fn fetch(&self, provider: &str, hit: &SearchHit) -> Result<FetchedDoc, ProviderError> {
        SearchRouter::fetch(self, provider, hit).await
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicU32, Ordering};

    use super::*;
    use crate::engine::model::SourceKind;
    use crate::engine::ports::Trip;

    struct Fixed {
        name: &'static str,
        fail: bool,
        calls: AtomicU32,
    }

    #[async_trait]
    impl SearchProvider for Fixed {
        fn name(&self) -> &str {
            self.name
        }
        async fn search(&self, q: &SearchQuery) -> Result<Vec<SearchHit>, ProviderError> {
            self.calls.fetch_add(1, Ordering::SeqCst);
            if self.fail {
                return Err(ProviderError::transient("503 Service Unavailable"));
            }
            Ok(vec![SearchHit {
                locator: format!("{}/{}", self.name, q.text),
                title: q.text.clone(),
                snippet: String::new(),
                score: 1.0,
                kind: SourceKind::Web,
                canonical: None,
                heading: None,
                published: None,
                site: None,
                tier: None,
                scholarly: None,
            }])
        }
        async fn fetch(&self, _: &SearchHit) -> Result<FetchedDoc, ProviderError> {
            Ok(FetchedDoc::text("text"))
        }
    }

    fn provider(name: &'static str, fail: bool) -> Arc<Fixed> {
        Arc::new(Fixed { name, fail, calls: AtomicU32::new(0) })
    }

    fn settings() -> RouterSettings {
        RouterSettings { backoff_min_ms: 1, backoff_max_ms: 2, ..RouterSettings::default() }
    }

    fn q(text: &str) -> SearchQuery {
        SearchQuery { text: text.into(), exclude: vec![], limit: 5 }
    }

    #[tokio::test(start_paused = true)]
    async fn falls_back_to_the_next_provider_and_opens_the_circuit() {
        let (bad, good) = (provider("tavily", true), provider("brave", false));
        let router = SearchRouter::new(vec![vec![bad.clone(), good.clone()]], &settings());
        for i in 0..3 {
            let r = router.search(&q(&format!("q{i}"))).await;
            assert_eq!(r.providers_used, vec!["brave"]);
            assert_eq!(r.failures[0].fallback_to.as_deref(), Some("brave"));
            assert_eq!(r.failures[0].circuit_opened.is_some(), i == 2, "opens on the third failure");
        }
        assert_eq!(bad.calls.load(Ordering::SeqCst), 9, "3 queries × 3 attempts");
        let r = router.search(&q("q4")).await;
        assert!(r.failures[0].skipped_open);
        assert_eq!(bad.calls.load(Ordering::SeqCst), 9, "open circuit: not called");
        assert_eq!(r.hits.len(), 1);
    }

    #[tokio::test(start_paused = true)]
    async fn the_failure_that_opens_a_circuit_names_its_rule() {
        let (bad, good) = (provider("tavily", true), provider("brave", false));
        let router = SearchRouter::new(vec![vec![bad, good]], &settings());
        // Four queries: the second failure is half of them, before three in a row.
        router.begin_iteration(4);
        assert_eq!(router.search(&q("q0")).await.failures[0].circuit_opened, None);
        let opened = router.search(&q("q1")).await.failures[0].circuit_opened;
        assert_eq!(opened, Some(Trip::IterationShare { failures: 2, queries: 4 }));
        // Without an iteration's count, three in a row open it.
        let router = SearchRouter::new(vec![vec![provider("tavily", true)]], &settings());
        let mut trips = Vec::new();
        for i in 0..3 {
            trips.push(router.search(&q(&format!("q{i}"))).await.failures[0].circuit_opened);
        }
        assert_eq!(trips, vec![None, None, Some(Trip::Consecutive { failures: 3 })]);
    }

    #[tokio::test(start_paused = true)]
    async fn all_providers_failing_is_an_error() {
        let router = SearchRouter::new(vec![vec![provider("a", true)]], &settings());
        let r = router.search(&q("x")).await;
        assert!(r.hits.is_empty());
        assert!(r.error.as_deref().is_some_and(|e| e.contains("503")));
    }

    #[tokio::test(start_paused = true)]
    async fn every_chain_is_asked() {
        let router = SearchRouter::new(vec![vec![provider("local", false)], vec![provider("web", false)]], &settings());
        let r = router.search(&q("x")).await;
        assert_eq!(r.providers_used, vec!["local", "web"]);
        assert_eq!(r.hits.len(), 2);
    }

    #[test]
    fn an_error_names_its_provider_once() {
        assert_eq!(named("searxng", "searxng: HTTP 429"), "searxng: HTTP 429");
        assert_eq!(named("searxng", "HTTP 429"), "searxng: HTTP 429");
        assert_eq!(named("brave", "braveheart failed"), "brave: braveheart failed");
    }
}
