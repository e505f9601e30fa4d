//! Web search providers (SearXNG, Tavily, Brave) and page fetching: one
//! shared client fetches every page politely, within a size cap, and
//! extracts its main content.

mod brave;
mod charset;
mod client;
mod config;
mod extract;
mod fetch;
mod hits;
mod http;
mod politeness;
mod searxng;
mod syntax;
mod tavily;

use std::sync::Arc;

pub use brave::Brave;
pub use client::{WebClient, shared};
pub use config::WebConfig;
pub use extract::{Extracted, extract_html, extract_plain, iso_date};
pub(in crate::search) use hits::strip_tags;
pub(in crate::search) use politeness::HostGate;
pub use searxng::Searxng;
pub(in crate::search) use searxng::endpoint;
pub use syntax::{Exclusions, with_operators};
pub use tavily::Tavily;

use crate::search::SearchProvider;

/// Builds the web provider `name` from `[web]`; keys come from the
/// environment variables the config names. The error says what to set.
pub fn build(name: &str, cfg: &WebConfig) -> Result<Arc<dyn SearchProvider>, String> {
    let web = client::shared(cfg)?;
    match name {
        "searxng" => {
            let url = cfg.searxng_url.as_deref().map(str::trim).filter(|u| !u.is_empty()).ok_or_else(|| {
                "set `[web] searxng_url` to your SearXNG instance, e.g. \"http://localhost:8888\" \
                 (its JSON format must be enabled; see docs/sources.md, \"SearXNG\")"
                    .to_string()
            })?;
            Ok(Arc::new(Searxng::new(url, web)?))
        }
        "tavily" => {
            let key = api_key(&cfg.tavily_api_key_env, "Tavily", "tavily_api_key_env")?;
            Ok(Arc::new(Tavily::new(&cfg.tavily_url, key, &cfg.tavily_api_key_env, web)?))
        }
        "brave" => {
            let key = api_key(&cfg.brave_api_key_env, "Brave Search", "brave_api_key_env")?;
            Ok(Arc::new(Brave::new(&cfg.brave_url, key, &cfg.brave_api_key_env, web)?))
        }
        other => Err(format!("`{other}` is not a web provider")),
    }
}

/// A server's requested wait (`Retry-After`, seconds or a date), as of now.
pub(in crate::search) fn retry_after_of(headers: &reqwest::header::HeaderMap) -> Option<std::time::Duration> {
    http::retry_after(headers, std::time::SystemTime::now())
}

fn api_key(var: &str, who: &str, key: &str) -> Result<String, String> {
    match std::env::var(var) {
        Ok(k) if !k.trim().is_empty() => Ok(k.trim().to_string()),
        _ => Err(format!(
            "the environment variable {var} is not set; export your {who} API key in it \
             (or name another variable with `[web] {key}`)"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missing_settings_are_explained() {
        let cfg = WebConfig { tavily_api_key_env: "SLEUTH_TEST_NO_SUCH_VAR_1".into(), ..WebConfig::default() };
        let e = build("searxng", &cfg).err().unwrap();
        assert!(e.contains("searxng_url"), "{e}");
        let e = build("tavily", &cfg).err().unwrap();
        assert!(e.contains("SLEUTH_TEST_NO_SUCH_VAR_1") && e.contains("tavily_api_key_env"), "{e}");
        let ok = WebConfig { searxng_url: Some("http://localhost:8888".into()), ..WebConfig::default() };
        assert_eq!(build("searxng", &ok).map(|p| p.name().to_string()).ok().as_deref(), Some("searxng"));
    }
}
