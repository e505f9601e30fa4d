//! The cluster as a `SearchProvider`: hits are passages (page, heading,
//! anchor, score, highlighted fragments) folded to one per page, like the
//! local corpus's; a fetch returns the page's whole text where sleuth's own
//! mapping stored it, and the page's passages otherwise.

use std::sync::Arc;

use async_trait::async_trait;
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use super::OpenSearchConfig;
use super::client::{Body, ClusterClient, status_error};
use super::mapping::{PAGE_TEXT_FIELD, PAGE_TITLE_FIELD, encode, page_id};
use super::query::{PassageHit, parse_hits, search_body};
use crate::engine::model::SourceKind;
use crate::search::{FetchedDoc, ProviderError, SearchHit, SearchProvider, SearchQuery};

/// Snippets are cut to about this many bytes (as the local corpus's).
const SNIPPET_BYTES: usize = 300;
/// Passages joined into a page's text when no page document exists.
const PAGE_PASSAGES: usize = 50;

pub struct OpenSearchProvider {
    client: Arc<ClusterClient>,
    cfg: OpenSearchConfig,
}

impl OpenSearchProvider {
    pub fn new(cfg: &OpenSearchConfig) -> Result<Self, String> {
        Ok(Self { client: Arc::new(ClusterClient::new(cfg)?), cfg: cfg.clone() })
    }

    pub fn client(&self) -> &ClusterClient {
        &self.client
    }

    /// The passages of a query, before they become hits (the doctor's test query).
    pub async fn passages(&self, query: &SearchQuery) -> Result<Vec<PassageHit>, ProviderError> {
        let body = search_body(&self.cfg, &query.text, &query.exclude, query.limit.max(1));
        let path = format!("{}/_search", encode(&self.cfg.index));
        let answer = self.client.json(Method::POST, &path, &Body::Json(body)).await?;
        parse_hits(&self.cfg, &answer, query.limit.max(1))
            .map_err(|e| ProviderError::permanent(format!("opensearch: {e}")))
    }

    fn to_hit(&self, h: PassageHit) -> SearchHit {
        let locator = match (&h.url, &h.anchor) {
            (Some(url), Some(a)) if !url.contains('#') => format!("{url}#{a}"),
            (Some(url), _) => url.clone(),
            (None, _) => format!("opensearch://{}/{}", self.cfg.index, h.id),
        };
        let site = match (&h.path, &h.url) {
            (Some(path), _) => path.split_once('/').map(|(top, _)| top.to_string()),
            (None, Some(url)) => reqwest::Url::parse(url).ok().and_then(|u| u.host_str().map(str::to_string)),
            (None, None) => None,
        }
        .unwrap_or_else(|| self.cfg.index.clone());
        let snippet = if h.fragments.is_empty() { cut(&h.text) } else { cut(&h.fragments.join(" … ")) };
        SearchHit {
            locator,
            title: h.title,
            snippet,
            score: h.score,
            kind: SourceKind::Local,
            canonical: Some(h.page),
            heading: h.heading,
            published: None,
            site: Some(site),
            tier: Some(self.cfg.tier),
            scholarly: None,
        }
    }

    /// The page's passages, in id order, when the index holds no page document.
    async fn page_from_passages(&self, page: &str) -> Result<FetchedDoc, ProviderError> {
        let field = if page.contains("://") { self.cfg.url_field.clone() } else { "path".to_string() };
        let body = json!({ "size": PAGE_PASSAGES, "query": { "bool": { "should": [
            { "term": { (field): page } },
            { "prefix": { (self.cfg.url_field.clone()): format!("{page}#") } }
        ] } } });
        let path = format!("{}/_search", encode(&self.cfg.index));
        let answer = self.client.json(Method::POST, &path, &Body::Json(body)).await?;
        let hits = answer.pointer("/hits/hits").and_then(Value::as_array).cloned().unwrap_or_default();
        let mut parts: Vec<(String, String)> = hits
            .iter()
            .filter_map(|h| {
                let id = h.get("_id")?.as_str()?.to_string();
                let text = h.pointer(&format!("/_source/{}", self.cfg.text_field))?.as_str()?.to_string();
                Some((id, text))
            })
            .collect();
        if parts.is_empty() {
            return Err(ProviderError::permanent(format!("opensearch: {page} is not in the index {}", self.cfg.index)));
        }
        // Passage ids end in their number within the page (`path#3`).
        parts.sort_by_key(|(id, _)| id.rsplit_once('#').and_then(|(_, n)| n.parse::<u32>().ok()).unwrap_or(u32::MAX));
        let text = parts.into_iter().map(|(_, t)| t).collect::<Vec<_>>().join("\n\n");
        Ok(FetchedDoc::text(crate::text::sanitize(&text)))
    }
}

#[async_trait]
impl SearchProvider for OpenSearchProvider {
    fn name(&self) -> &str {
        "opensearch"
    }

    async fn search(&self, query: &SearchQuery) -> Result<Vec<SearchHit>, ProviderError> {
        Ok(self.passages(query).await?.into_iter().map(|h| self.to_hit(h)).collect())
    }

    async fn fetch(&self, hit: &SearchHit) -> Result<FetchedDoc, ProviderError> {
        let page = hit.canonical.clone().unwrap_or_else(|| hit.locator.split('#').next().unwrap_or("").to_string());
        let path = format!("{}/_doc/{}", encode(&self.cfg.index), encode(&page_id(&page)));
        let reply = self.client.send(Method::GET, &path, &Body::None, self.client.timeout).await?;
        if reply.status == StatusCode::NOT_FOUND {
            return self.page_from_passages(&page).await;
        }
        if !reply.status.is_success() {
            return Err(status_error(&reply, &path));
        }
        let doc: Value = serde_json::from_slice(&reply.body)
            .map_err(|e| ProviderError::permanent(format!("opensearch: {path}: the answer is not JSON: {e}")))?;
        let field = |k: &str| doc.pointer(&format!("/_source/{k}")).and_then(Value::as_str).map(str::to_string);
        let Some(text) = field(PAGE_TEXT_FIELD) else { return self.page_from_passages(&page).await };
        Ok(FetchedDoc {
            text: crate::text::sanitize(&text),
            title: field(PAGE_TITLE_FIELD).map(|t| crate::text::sanitize_inline(&t)),
            published: None,
            site: hit.site.clone(),
            final_locator: None,
        })
    }
}

fn cut(text: &str) -> String {
    if text.len() <= SNIPPET_BYTES {
        return text.to_string();
    }
    let end = (0..=SNIPPET_BYTES).rev().find(|i| text.is_char_boundary(*i)).unwrap_or(0);
    format!("{}…", &text[..end])
}
