//! SearXNG, self-hosted and keyless: `GET /search?q=…&format=json`. The
//! instance must list `json` under `search.formats` in its settings.yml,
//! or it answers 403. Excluded terms go into the query as `-term` and
//! `-site:domain`, which SearXNG passes on to its engines.

use std::sync::Arc;

use async_trait::async_trait;
use reqwest::{StatusCode, Url};
use serde::Deserialize;

use super::WebClient;
use super::hits::{RawHit, to_hit};
use super::syntax::{Exclusions, with_operators};
use crate::search::{FetchedDoc, ProviderError, SearchHit, SearchProvider, SearchQuery};

/// Longer queries are not extended with more exclusions.
const MAX_QUERY_CHARS: usize = 500;

#[derive(Deserialize)]
struct Answer {
    #[serde(default)]
    results: Vec<Item>,
    /// `[engine, reason]` pairs for engines that failed this query.
    #[serde(default)]
    unresponsive_engines: Vec<serde_json::Value>,
}

#[derive(Deserialize)]
struct Item {
    url: String,
    #[serde(default)]
    title: String,
    #[serde(default)]
    content: Option<String>,
    #[serde(default)]
    score: Option<f64>,
    #[serde(default, rename = "publishedDate")]
    published_date: Option<String>,
}

pub struct Searxng {
    endpoint: Url,
    web: Arc<WebClient>,
}

impl Searxng {
    pub fn new(base_url: &str, web: Arc<WebClient>) -> Result<Self, String> {
        let endpoint = endpoint(base_url, "search")?;
        Ok(Self { endpoint, web })
    }
}

/// `base` joined with `path`, keeping any path prefix the base has.
pub(in crate::search) fn endpoint(base: &str, path: &str) -> Result<Url, String> {
    let mut base = Url::parse(base.trim()).map_err(|e| format!("invalid URL `{base}`: {e}"))?;
    if !matches!(base.scheme(), "http" | "https") {
        return Err(format!("invalid URL `{base}`: only http and https are supported"));
    }
    if !base.path().ends_with('/') {
        let p = format!("{}/", base.path());
        base.set_path(&p);
    }
    base.join(path).map_err(|e| format!("invalid URL `{base}`: {e}"))
}

#[async_trait]
impl SearchProvider for Searxng {
    fn name(&self) -> &str {
        "searxng"
    }

    async fn search(&self, query: &SearchQuery) -> Result<Vec<SearchHit>, ProviderError> {
        let ops = Exclusions::parse(&query.exclude).operators(true);
        let q = with_operators(&query.text, &ops, MAX_QUERY_CHARS);
        let request =
            self.web.http().get(self.endpoint.clone()).query(&[("q", q.as_str()), ("format", "json"), ("pageno", "1")]);
        let hint = |s: StatusCode| {
            (s == StatusCode::FORBIDDEN).then(|| {
                "enable the JSON format: add `json` under `search.formats` in the instance's settings.yml".to_string()
            })
        };
        let answer: Answer = self.web.api_json("searxng", request, hint, None).await?;
        if answer.results.is_empty() && !answer.unresponsive_engines.is_empty() {
            let engines: Vec<String> = answer.unresponsive_engines.iter().map(engine_failure).collect();
            return Err(ProviderError::transient(format!("searxng: no engine answered ({})", engines.join(", "))));
        }
        Ok(answer
            .results
            .iter()
            .enumerate()
            .filter_map(|(rank, r)| {
                let raw = RawHit {
                    url: &r.url,
                    title: &r.title,
                    snippet: r.content.as_deref().unwrap_or(""),
                    score: r.score,
                    published: r.published_date.as_deref(),
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

/// `["google", "timeout"]` → `google: timeout`.
fn engine_failure(v: &serde_json::Value) -> String {
    match v.as_array() {
        Some(pair) => pair.iter().filter_map(|x| x.as_str()).collect::<Vec<_>>().join(": "),
        None => v.to_string(),
    }
    .chars()
    .filter(|c| !c.is_control())
    .take(80)
    .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn endpoints_keep_a_path_prefix() {
        assert_eq!(endpoint("http://h:8888", "search").unwrap().as_str(), "http://h:8888/search");
        assert_eq!(endpoint("https://h/searx", "search").unwrap().as_str(), "https://h/searx/search");
        assert!(endpoint("ftp://h", "search").is_err());
    }

    #[test]
    fn documented_answer_shape_parses() {
        let json = r#"{"query":"q","number_of_results":0,"results":[{"url":"https://a.org/x","title":"A","content":"c",
            "engine":"duckduckgo","parsed_url":["https","a.org","/x","","",""],"template":"default.html",
            "engines":["duckduckgo"],"positions":[1],"publishedDate":null,"score":1.5,"category":"general"}],
            "answers":[],"corrections":[],"infoboxes":[],"suggestions":[],"unresponsive_engines":[["google","timeout"]]}"#;
        let a: Answer = serde_json::from_str(json).unwrap();
        assert_eq!(a.results[0].score, Some(1.5));
        assert_eq!(engine_failure(&a.unresponsive_engines[0]), "google: timeout");
    }
}
