//! Brave Search: `GET /res/v1/web/search?q=…&count=…` with the key in
//! `X-Subscription-Token`. Its query syntax takes `-term`, `-"phrase"` and
//! `-site:domain`. A 429 carries `X-RateLimit-Reset`, honoured as the wait.

use std::sync::Arc;

use async_trait::async_trait;
use reqwest::header::{ACCEPT, HeaderValue};
use reqwest::{StatusCode, Url};
use serde::Deserialize;

use super::WebClient;
use super::hits::{RawHit, to_hit};
use super::searxng::endpoint;
use super::syntax::{Exclusions, with_operators};
use crate::search::{FetchedDoc, ProviderError, SearchHit, SearchProvider, SearchQuery};

/// Brave's documented query limit.
const MAX_QUERY_CHARS: usize = 400;
/// Brave returns at most 20 web results per request.
const MAX_RESULTS: usize = 20;

#[derive(Deserialize)]
struct Answer {
    /// Absent when the query found no web results.
    #[serde(default)]
    web: Option<WebResults>,
}

#[derive(Deserialize)]
struct WebResults {
    #[serde(default)]
    results: Vec<Item>,
}

#[derive(Deserialize)]
struct Item {
    url: String,
    #[serde(default)]
    title: String,
    #[serde(default)]
    description: String,
    /// ISO date the page was published or changed, when Brave knows it.
    #[serde(default)]
    page_age: Option<String>,
}

pub struct Brave {
    endpoint: Url,
    token: HeaderValue,
    key: String,
    key_env: String,
    web: Arc<WebClient>,
}

impl Brave {
    pub fn new(base_url: &str, key: String, key_env: &str, web: Arc<WebClient>) -> Result<Self, String> {
        let mut token = HeaderValue::from_str(&key)
            .map_err(|_| format!("the key in {key_env} contains characters an HTTP header cannot carry"))?;
        token.set_sensitive(true);
        Ok(Self { endpoint: endpoint(base_url, "res/v1/web/search")?, token, key, key_env: key_env.to_string(), web })
    }
}

#[async_trait]
impl SearchProvider for Brave {
    fn name(&self) -> &str {
        "brave"
    }

    async fn search(&self, query: &SearchQuery) -> Result<Vec<SearchHit>, ProviderError> {
        let ops = Exclusions::parse(&query.exclude).operators(true);
        let q = with_operators(&query.text, &ops, MAX_QUERY_CHARS);
        let count = query.limit.clamp(1, MAX_RESULTS).to_string();
        let request = self
            .web
            .http()
            .get(self.endpoint.clone())
            .query(&[("q", q.as_str()), ("count", count.as_str())])
            .header(ACCEPT, "application/json")
            .header("X-Subscription-Token", self.token.clone());
        let hint = |s: StatusCode| match s.as_u16() {
            401 | 403 => Some(format!("check the Brave Search API key in {}", self.key_env)),
            _ => None,
        };
        let answer: Answer = self.web.api_json("brave", request, hint, Some(&self.key)).await?;
        let results = answer.web.map(|w| w.results).unwrap_or_default();
        Ok(results
            .iter()
            .enumerate()
            .filter_map(|(rank, r)| {
                let raw = RawHit {
                    url: &r.url,
                    title: &r.title,
                    snippet: &r.description,
                    score: None,
                    published: r.page_age.as_deref(),
                };
                to_hit(raw, rank)
            })
            .take(query.limit.max(1))
            .collect())
    }

    async fn fetch(&self, hit: &SearchHit) -> Result<FetchedDoc, ProviderError> {
        self.web.fetch_page(&hit.locator).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn documented_answer_shape_parses() {
        let json = r#"{"type":"search","query":{"original":"q","more_results_available":true},
            "mixed":{"type":"mixed","main":[{"type":"web","index":0,"all":false}]},
            "web":{"type":"search","family_friendly":true,"results":[{"type":"search_result","title":"T",
            "url":"https://a.org/","is_source_local":false,"description":"<strong>d</strong>",
            "page_age":"2023-09-12T11:23:45","age":"September 12, 2023","language":"en",
            "meta_url":{"scheme":"https","netloc":"a.org","hostname":"a.org","path":"›"}}]}}"#;
        let a: Answer = serde_json::from_str(json).unwrap();
        let r = &a.web.unwrap().results[0];
        assert_eq!(r.page_age.as_deref(), Some("2023-09-12T11:23:45"));
        let empty: Answer = serde_json::from_str(r#"{"type":"search","query":{"original":"q"}}"#).unwrap();
        assert!(empty.web.is_none());
    }
}
