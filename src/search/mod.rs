//! Search providers: the `SearchProvider` trait, and the router that runs
//! each query over the configured fallback chains with retries and circuit
//! breakers (seed 001 §10). Providers: `local` (tantivy corpus) and the web
//! ones (SearXNG, Tavily, Brave).

mod breaker;
pub mod canonical;
pub mod local;
mod provider;
pub mod registry;
mod router;
pub mod web;

pub use breaker::{Breaker, BreakerState, Trip};
pub use provider::{FetchedDoc, ProviderError, SearchHit, SearchProvider, SearchQuery};
pub use router::{ChainAttempt, RoutedSearch, SearchRouter};
