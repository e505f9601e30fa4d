//! Web search providers (SearXNG, Tavily, Brave) and page fetching.

mod config;

pub use config::WebConfig;
