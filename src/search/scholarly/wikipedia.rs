//! Wikipedia through MediaWiki's Action API: `list=search` finds articles,
//! `prop=extracts` (TextExtracts, plain text, sections as `== Title ==`)
//! reads one. Following API:Etiquette: one request at a time, a
//! User-Agent with a contact when one is configured, and `maxlag` (an
//! overloaded wiki answers a `maxlag` error with `Retry-After`, honoured
//! as a transient failure).

use std::sync::Arc;

use async_trait::async_trait;
use reqwest::header::USER_AGENT;
use reqwest::{StatusCode, Url};
use serde::Deserialize;

use super::common::{Gate, Work, to_hit};
use super::config::WikipediaConfig;
use crate::search::web::{WebClient, endpoint};
use crate::search::{FetchedDoc, ProviderError, SearchHit, SearchProvider, SearchQuery};
use crate::text::sanitize;

/// CirrusSearch caps `srsearch` at 300 characters.
const MAX_QUERY_CHARS: usize = 300;

#[derive(Deserialize)]
struct Answer {
    #[serde(default)]
    error: Option<ApiError>,
    #[serde(default)]
    query: Option<Query>,
}

#[derive(Deserialize)]
struct ApiError {
    code: String,
    #[serde(default)]
    info: String,
}

#[derive(Deserialize, Default)]
struct Query {
    #[serde(default)]
    search: Vec<Found>,
    #[serde(default)]
    pages: Vec<PageText>,
}

#[derive(Deserialize)]
struct Found {
    title: String,
    #[serde(default)]
    snippet: String,
    #[serde(default)]
    timestamp: Option<String>,
}

#[derive(Deserialize)]
struct PageText {
    title: String,
    #[serde(default)]
    extract: Option<String>,
    #[serde(default)]
    missing: bool,
}

pub struct Wikipedia {
    api: Url,
    root: String,
    maxlag: u32,
    user_agent: String,
    gate: Gate,
    web: Arc<WebClient>,
}

impl Wikipedia {
    pub fn new(cfg: &WikipediaConfig, user_agent: String, web: Arc<WebClient>) -> Result<Self, String> {
        let root = cfg.root();
        Ok(Self {
            api: endpoint(&root, "w/api.php")?,
            root: root.trim_end_matches('/').to_string(),
            maxlag: cfg.maxlag_secs,
            user_agent,
            gate: Gate::new(cfg.min_interval_ms),
            web,
        })
    }

    async fn call(&self, params: &[(&str, &str)]) -> Result<Query, ProviderError> {
        let maxlag = self.maxlag.to_string();
        let mut request = self
            .web
            .http()
            .get(self.api.clone())
            .header(USER_AGENT, &self.user_agent)
            .query(&[("format", "json"), ("formatversion", "2"), ("utf8", "1")])
            .query(params);
        if self.maxlag > 0 {
            request = request.query(&[("maxlag", maxlag.as_str())]);
        }
        let hint = |s: StatusCode| {
            (s == StatusCode::FORBIDDEN).then(|| {
                "Wikimedia refuses clients without a contact: set [web] contact_email (User-Agent policy)".to_string()
            })
        };
        let (headers, body) = {
            let _turn = self.gate.turn().await;
            self.web.api_call("wikipedia", request, hint, None).await?
        };
        let answer: Answer = serde_json::from_slice(&body)
            .map_err(|e| ProviderError::permanent(format!("wikipedia: unexpected answer (not the API's JSON): {e}")))?;
        match answer.error {
            // The wiki is lagging: wait as it says, then try again.
            Some(e) if e.code == "maxlag" => Err(ProviderError::Transient {
                message: format!("wikipedia: the wiki asks to wait ({})", crate::text::sanitize_inline(&e.info)),
                retry_after: crate::search::web::retry_after_of(&headers),
            }),
            Some(e) if e.code == "ratelimited" => Err(ProviderError::Transient {
                message: "wikipedia: rate limited".into(),
                retry_after: crate::search::web::retry_after_of(&headers),
            }),
            Some(e) => Err(ProviderError::permanent(format!(
                "wikipedia: API error {}: {}",
                crate::text::sanitize_inline(&e.code),
                crate::text::sanitize_inline(&e.info)
            ))),
            None => Ok(answer.query.unwrap_or_default()),
        }
    }

    fn article_url(&self, title: &str) -> String {
        let mut url = Url::parse(&format!("{}/wiki/", self.root)).ok();
        if let Some(u) = url.as_mut()
            && let Ok(mut segs) = u.path_segments_mut()
        {
            segs.pop_if_empty().push(&title.replace(' ', "_"));
        }
        url.map_or_else(|| format!("{}/wiki/{}", self.root, title.replace(' ', "_")), |u| u.to_string())
    }
}

/// Section headings `== History ==` as Markdown (`## History`), so every
/// reader sees an article's sections as it sees a page's.
pub(super) fn article_text(extract: &str) -> String {
    let mut out = String::with_capacity(extract.len());
    for line in sanitize(extract).lines() {
        let t = line.trim();
        let level = t.chars().take_while(|c| *c == '=').count();
        if level >= 2 && t.len() > 2 * level && t.ends_with(&"=".repeat(level)) {
            let title = t[level..t.len() - level].trim();
            out.push_str(&format!("{} {title}\n", "#".repeat(level.min(6))));
        } else {
            out.push_str(line.trim_end());
            out.push('\n');
        }
    }
    out.trim().to_string()
}

#[async_trait]
impl SearchProvider for Wikipedia {
    fn name(&self) -> &str {
        "wikipedia"
    }

    async fn search(&self, query: &SearchQuery) -> Result<Vec<SearchHit>, ProviderError> {
        // CirrusSearch takes `-term` to exclude a word.
        let ops = crate::search::web::Exclusions::parse(&query.exclude).operators(false);
        let q = crate::search::web::with_operators(&query.text, &ops, MAX_QUERY_CHARS);
        let limit = query.limit.clamp(1, 50).to_string();
        let found = self
            .call(&[
                ("action", "query"),
                ("list", "search"),
                ("srsearch", q.as_str()),
                ("srlimit", limit.as_str()),
                ("srprop", "snippet|timestamp"),
            ])
            .await?;
        Ok(found
            .search
            .into_iter()
            .enumerate()
            .filter_map(|(rank, f)| {
                let work = Work {
                    locator: self.article_url(&f.title),
                    title: f.title,
                    summary: f.snippet,
                    published: f.timestamp,
                    scholarly: None,
                };
                to_hit(work, rank)
            })
            .take(query.limit.max(1))
            .collect())
    }

    async fn fetch(&self, hit: &SearchHit) -> Result<FetchedDoc, ProviderError> {
        let read = self
            .call(&[
                ("action", "query"),
                ("prop", "extracts"),
                ("explaintext", "1"),
                ("exsectionformat", "wiki"),
                ("redirects", "1"),
                ("titles", hit.title.as_str()),
            ])
            .await?;
        let page = read.pages.into_iter().next();
        match page {
            Some(p) if !p.missing && p.extract.as_deref().is_some_and(|e| !e.trim().is_empty()) => Ok(FetchedDoc {
                text: article_text(p.extract.as_deref().unwrap_or_default()),
                title: Some(crate::text::sanitize_inline(&p.title)),
                published: hit.published.clone(),
                site: hit.site.clone(),
                final_locator: None,
            }),
            _ => Err(ProviderError::permanent(format!("wikipedia: no article \"{}\"", hit.title))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn section_markup_becomes_headings() {
        let text =
            article_text("Water is a compound.\n\n== Properties ==\nIt boils at 100 °C.\n=== At altitude ===\nLower.");
        assert_eq!(text, "Water is a compound.\n\n## Properties\nIt boils at 100 °C.\n### At altitude\nLower.");
    }
}
