//! Semantic Scholar's Graph API: `GET /graph/v1/paper/search?query=…&fields=…`
//! answers `{total, offset, data: [Paper]}`. Keyless calls share one pool
//! with every other client (429 often); a key (`x-api-key`, from the
//! variable `[semanticscholar] api_key_env` names) gets its own rate, one
//! request per second, which the gate keeps in any case. The search takes
//! plain words: excluded terms are filtered out of the answer here.

use std::sync::Arc;

use async_trait::async_trait;
use reqwest::header::HeaderValue;
use reqwest::{StatusCode, Url};
use serde::Deserialize;

use super::common::{Gate, Work, bare_arxiv, is_preprint_server, optional_key, read_work, to_hit};
use super::config::SemanticScholarConfig;
use crate::engine::model::Scholarly;
use crate::search::web::{Exclusions, WebClient, endpoint};
use crate::search::{FetchedDoc, ProviderError, SearchHit, SearchProvider, SearchQuery};

const FIELDS: &str = "title,abstract,year,venue,authors,externalIds,openAccessPdf,citationCount,publicationTypes,journal,publicationDate,url";

#[derive(Deserialize)]
struct Answer {
    #[serde(default)]
    data: Vec<Paper>,
}

#[derive(Deserialize)]
pub(super) struct Paper {
    #[serde(rename = "paperId")]
    paper_id: String,
    #[serde(default)]
    url: Option<String>,
    #[serde(default)]
    title: Option<String>,
    #[serde(rename = "abstract", default)]
    summary: Option<String>,
    #[serde(default)]
    venue: Option<String>,
    #[serde(default)]
    year: Option<i32>,
    #[serde(rename = "citationCount", default)]
    citation_count: Option<u64>,
    #[serde(rename = "openAccessPdf", default)]
    open_access_pdf: Option<OpenAccessPdf>,
    #[serde(rename = "publicationTypes", default)]
    publication_types: Option<Vec<String>>,
    #[serde(rename = "publicationDate", default)]
    publication_date: Option<String>,
    #[serde(default)]
    journal: Option<Journal>,
    #[serde(default)]
    authors: Vec<Author>,
    #[serde(rename = "externalIds", default)]
    external_ids: Option<serde_json::Map<String, serde_json::Value>>,
}

#[derive(Deserialize)]
struct OpenAccessPdf {
    #[serde(default)]
    url: Option<String>,
}

#[derive(Deserialize)]
struct Journal {
    #[serde(default)]
    name: Option<String>,
}

#[derive(Deserialize)]
struct Author {
    #[serde(default)]
    name: Option<String>,
}

impl Paper {
    pub(super) fn into_work(self) -> Work {
        let id = |k: &str| {
            self.external_ids.as_ref().and_then(|m| m.get(k)).and_then(|v| match v {
                serde_json::Value::String(s) => Some(s.clone()),
                serde_json::Value::Number(n) => Some(n.to_string()),
                _ => None,
            })
        };
        let doi = id("DOI");
        let arxiv = id("ArXiv").and_then(|a| bare_arxiv(&a));
        let pmid = id("PubMed");
        let journal = self.journal.and_then(|j| j.name).filter(|n| !n.trim().is_empty());
        let venue = journal.clone().or(self.venue.filter(|v| !v.trim().is_empty()));
        let typed = self.publication_types.as_ref().is_some_and(|t| !t.is_empty());
        let preprint =
            venue.as_deref().is_some_and(is_preprint_server) || (arxiv.is_some() && journal.is_none() && !typed);
        let locator =
            self.url.clone().unwrap_or_else(|| format!("https://www.semanticscholar.org/paper/{}", self.paper_id));
        Work {
            locator,
            title: self.title.unwrap_or_default(),
            summary: self.summary.unwrap_or_default(),
            published: self.publication_date.clone(),
            scholarly: Some(Scholarly {
                authors: self.authors.into_iter().filter_map(|a| a.name).collect(),
                venue,
                year: self.year,
                doi,
                preprint,
                retracted: false,
                cited_by: self.citation_count,
                arxiv,
                pmid,
                oa_url: self.open_access_pdf.and_then(|p| p.url).filter(|u| !u.is_empty()),
            }),
        }
    }
}

pub struct SemanticScholar {
    api: Url,
    key: Option<HeaderValue>,
    key_text: Option<String>,
    key_env: String,
    read_full_text: bool,
    gate: Gate,
    web: Arc<WebClient>,
}

impl SemanticScholar {
    pub fn new(cfg: &SemanticScholarConfig, web: Arc<WebClient>) -> Result<Self, String> {
        let key_text = optional_key(&cfg.api_key_env);
        let key = match &key_text {
            Some(k) => {
                let mut v = HeaderValue::from_str(k).map_err(|_| {
                    format!("the key in {} contains characters an HTTP header cannot carry", cfg.api_key_env)
                })?;
                v.set_sensitive(true);
                Some(v)
            }
            None => None,
        };
        Ok(Self {
            api: endpoint(&cfg.base_url, "graph/v1/paper/search")?,
            key,
            key_text,
            key_env: cfg.api_key_env.clone(),
            read_full_text: cfg.read_full_text,
            gate: Gate::new(cfg.min_interval_ms),
            web,
        })
    }
}

#[async_trait]
impl SearchProvider for SemanticScholar {
    fn name(&self) -> &str {
        "semanticscholar"
    }

    async fn search(&self, query: &SearchQuery) -> Result<Vec<SearchHit>, ProviderError> {
        let limit = query.limit.clamp(1, 100).to_string();
        let mut request = self.web.http().get(self.api.clone()).query(&[
            ("query", query.text.trim()),
            ("limit", limit.as_str()),
            ("fields", FIELDS),
        ]);
        if let Some(k) = &self.key {
            request = request.header("x-api-key", k.clone());
        }
        let keyed = self.key.is_some();
        let key_env = self.key_env.clone();
        let hint = move |s: StatusCode| match s.as_u16() {
            429 if !keyed => Some(format!("the keyless pool is busy; an API key in {key_env} gets a rate of its own")),
            401 | 403 => Some(format!("check the Semantic Scholar API key in {key_env}")),
            _ => None,
        };
        let answer: Answer = {
            let _turn = self.gate.turn().await;
            self.web.api_json("semanticscholar", request, hint, self.key_text.as_deref()).await?
        };
        let excluded: Vec<String> = Exclusions::parse(&query.exclude).terms.iter().map(|t| t.to_lowercase()).collect();
        Ok(answer
            .data
            .into_iter()
            .map(Paper::into_work)
            .filter(|w| {
                let text = format!("{} {}", w.title, w.summary).to_lowercase();
                !excluded.iter().any(|t| text.contains(t.as_str()))
            })
            .enumerate()
            .filter_map(|(rank, w)| to_hit(w, rank))
            .take(query.limit.max(1))
            .collect())
    }

    async fn fetch(&self, hit: &SearchHit) -> Result<FetchedDoc, ProviderError> {
        let oa = hit.scholarly.as_ref().and_then(|s| s.oa_url.as_deref()).filter(|_| self.read_full_text);
        read_work(&self.web, "semanticscholar", hit, oa, None).await
    }
}
