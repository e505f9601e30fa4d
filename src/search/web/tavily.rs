//! Tavily: `POST /search` with a JSON body and `Authorization: Bearer <key>`.
//! Excluded domains go into `exclude_domains`; other excluded terms are
//! written into the query as `-term`.

use std::sync::Arc;

use async_trait::async_trait;
use reqwest::header::{AUTHORIZATION, HeaderValue};
use reqwest::{StatusCode, Url};
use serde::{Deserialize, Serialize};

use super::WebClient;
use super::hits::{RawHit, to_hit};
use super::searxng::endpoint;
use super::syntax::{Exclusions, with_operators};
use crate::search::{FetchedDoc, ProviderError, SearchHit, SearchProvider, SearchQuery};

/// Tavily's documented query limit.
const MAX_QUERY_CHARS: usize = 400;
/// Tavily returns at most 20 results.
const MAX_RESULTS: usize = 20;

#[derive(Serialize)]
struct Request<'a> {
    query: &'a str,
    max_results: usize,
    search_depth: &'static str,
    topic: &'static str,
    include_answer: bool,
    include_raw_content: bool,
    include_images: bool,
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    exclude_domains: &'a [String],
}

#[derive(Deserialize)]
struct Answer {
    #[serde(default)]
    results: Vec<Item>,
}

#[derive(Deserialize)]
struct Item {
    url: String,
    #[serde(default)]
    title: String,
    #[serde(default)]
    content: String,
    #[serde(default)]
    score: Option<f64>,
    #[serde(default)]
    published_date: Option<String>,
}

pub struct Tavily {
    endpoint: Url,
    auth: HeaderValue,
    key: String,
    key_env: String,
    web: Arc<WebClient>,
}

impl Tavily {
    /// `key_env` names the variable the key came from, for error messages.
    pub fn new(base_url: &str, key: String, key_env: &str, web: Arc<WebClient>) -> Result<Self, String> {
        let mut auth = HeaderValue::from_str(&format!("Bearer {key}"))
            .map_err(|_| format!("the key in {key_env} contains characters an HTTP header cannot carry"))?;
        auth.set_sensitive(true);
        Ok(Self { endpoint: endpoint(base_url, "search")?, auth, key, key_env: key_env.to_string(), web })
    }
}

#[async_trait]
impl SearchProvider for Tavily {
    fn name(&self) -> &str {
        "tavily"
    }

    async fn search(&self, query: &SearchQuery) -> Result<Vec<SearchHit>, ProviderError> {
        let ex = Exclusions::parse(&query.exclude);
        let q = with_operators(&query.text, &ex.operators(false), MAX_QUERY_CHARS);
        let body = Request {
            query: &q,
            max_results: query.limit.clamp(1, MAX_RESULTS),
            search_depth: "basic",
            topic: "general",
            include_answer: false,
            include_raw_content: false,
            include_images: false,
            exclude_domains: &ex.sites,
        };
        let request = self.web.http().post(self.endpoint.clone()).header(AUTHORIZATION, self.auth.clone()).json(&body);
        let hint = |s: StatusCode| match s.as_u16() {
            401 | 403 => Some(format!("check the Tavily API key in {}", self.key_env)),
            432 | 433 => Some("the Tavily plan's usage limit is reached".to_string()),
            _ => None,
        };
        let answer: Answer = self.web.api_json("tavily", request, hint, Some(&self.key)).await?;
        Ok(answer
            .results
            .iter()
            .enumerate()
            .filter_map(|(rank, r)| {
                let raw = RawHit {
                    url: &r.url,
                    title: &r.title,
                    snippet: &r.content,
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn documented_answer_shape_parses() {
        let json = r#"{"query":"q","follow_up_questions":null,"answer":null,"images":[],
            "results":[{"title":"T","url":"https://a.org/","content":"c","score":0.81,"raw_content":null}],
            "response_time":1.09}"#;
        let a: Answer = serde_json::from_str(json).unwrap();
        assert_eq!(a.results[0].score, Some(0.81));
        assert_eq!(a.results[0].published_date, None);
    }
}
