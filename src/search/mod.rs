//! Search providers: the `SearchProvider` trait, and the router (the
//! engine's `Searcher` port) that runs
//! each query over the configured fallback chains with retries and circuit
//! breakers. Providers: `local` (tantivy corpus), `opensearch`
//! (a search cluster), the web ones (SearXNG, Tavily, Brave) and the
//! keyless ones (Wikipedia, arXiv, OpenAlex, Semantic Scholar, Europe PMC).

mod breaker;
pub mod local;
pub mod opensearch;
mod provider;
pub mod registry;
mod router;
pub mod scholarly;
pub mod sources;
pub mod web;

pub use breaker::{Breaker, BreakerState};
pub use provider::SearchProvider;
pub use router::{RouterSettings, SearchRouter};
pub use sources::SourceSet;
// The types of the engine's search port, under their old paths.
pub use crate::engine::ports::{ChainAttempt, FetchedDoc, ProviderError, RoutedSearch, SearchHit, SearchQuery, Trip};
pub use crate::text::canonical;
