use serde::{Deserialize, Serialize};

/// `[web]`: web search providers and page fetching.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct WebConfig {
    /// SearXNG instance URL (its JSON API must be enabled).
    pub searxng_url: Option<String>,
}
