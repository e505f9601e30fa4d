//! OpenAlex works search: `GET /works?search=…&select=…` answers
//! `{meta, results: [Work]}`. A work's abstract comes as an inverted index
//! (word → positions) and is rebuilt here; its open-access copy (PDF or
//! page) is read when the source is. The polite pool takes a `mailto`; a
//! free key (`api_key`, from the variable `[openalex] api_key_env` names)
//! raises the small keyless allowance. 429 (and 403, OpenAlex's "slow
//! down") are rate limits, retried after the server's wait.

use std::collections::BTreeMap;
use std::sync::Arc;

use async_trait::async_trait;
use reqwest::{StatusCode, Url};
use serde::Deserialize;

use super::common::{Gate, Work, bare_doi, is_preprint_server, optional_key, read_work, to_hit};
use super::config::OpenAlexConfig;
use crate::engine::model::Scholarly;
use crate::search::web::{Exclusions, WebClient, endpoint};
use crate::search::{FetchedDoc, ProviderError, SearchHit, SearchProvider, SearchQuery};

/// The fields read (a work has many more; `select` keeps answers small).
const SELECT: &str = "id,doi,display_name,publication_year,publication_date,authorships,primary_location,\
best_oa_location,open_access,is_retracted,cited_by_count,abstract_inverted_index,type,ids";

#[derive(Deserialize)]
struct Answer {
    #[serde(default)]
    results: Vec<OaWork>,
}

#[derive(Deserialize)]
pub(super) struct OaWork {
    id: String,
    #[serde(default)]
    doi: Option<String>,
    #[serde(default)]
    display_name: Option<String>,
    #[serde(default)]
    publication_year: Option<i32>,
    #[serde(default)]
    publication_date: Option<String>,
    #[serde(default)]
    authorships: Vec<Authorship>,
    #[serde(default)]
    primary_location: Option<Location>,
    #[serde(default)]
    best_oa_location: Option<Location>,
    #[serde(default)]
    open_access: Option<OpenAccess>,
    #[serde(default)]
    is_retracted: bool,
    #[serde(default)]
    cited_by_count: Option<u64>,
    #[serde(default)]
    abstract_inverted_index: Option<BTreeMap<String, Vec<usize>>>,
    #[serde(default, rename = "type")]
    kind: Option<String>,
    #[serde(default)]
    ids: BTreeMap<String, serde_json::Value>,
}

#[derive(Deserialize)]
struct Authorship {
    #[serde(default)]
    author: Option<Author>,
}

#[derive(Deserialize)]
struct Author {
    #[serde(default)]
    display_name: Option<String>,
}

#[derive(Deserialize)]
struct Location {
    #[serde(default)]
    landing_page_url: Option<String>,
    #[serde(default)]
    pdf_url: Option<String>,
    #[serde(default)]
    version: Option<String>,
    #[serde(default)]
    source: Option<Source>,
}

#[derive(Deserialize)]
struct Source {
    #[serde(default)]
    display_name: Option<String>,
}

#[derive(Deserialize)]
struct OpenAccess {
    #[serde(default)]
    oa_url: Option<String>,
}

/// The abstract from its inverted index: each word at its positions.
pub(super) fn rebuild_abstract(index: &BTreeMap<String, Vec<usize>>) -> String {
    let len = index.values().flatten().max().map_or(0, |m| m + 1).min(20_000);
    let mut words: Vec<&str> = vec![""; len];
    for (word, positions) in index {
        for &p in positions {
            if let Some(slot) = words.get_mut(p) {
                *slot = word;
            }
        }
    }
    words.into_iter().filter(|w| !w.is_empty()).collect::<Vec<_>>().join(" ")
}

impl OaWork {
    pub(super) fn into_work(self) -> Work {
        let venue = self.primary_location.as_ref().and_then(|l| l.source.as_ref()).and_then(|s| s.display_name.clone());
        let submitted = self.primary_location.as_ref().and_then(|l| l.version.as_deref()) == Some("submittedVersion");
        let preprint =
            self.kind.as_deref() == Some("preprint") || submitted || venue.as_deref().is_some_and(is_preprint_server);
        let oa_url = self
            .best_oa_location
            .as_ref()
            .and_then(|l| l.pdf_url.clone().or(l.landing_page_url.clone()))
            .or(self.open_access.and_then(|o| o.oa_url));
        let doi = self.doi.as_deref().and_then(bare_doi);
        let pmid = self.ids.get("pmid").and_then(|v| v.as_str()).map(|p| p.rsplit('/').next().unwrap_or(p).to_string());
        let arxiv = oa_url
            .as_deref()
            .filter(|u| u.contains("arxiv.org/"))
            .and_then(|u| super::common::bare_arxiv(&u.replace("/pdf/", "/abs/")));
        let locator = self
            .doi
            .clone()
            .filter(|d| d.starts_with("http"))
            .or(self.primary_location.as_ref().and_then(|l| l.landing_page_url.clone()))
            .unwrap_or(self.id);
        let scholarly = Scholarly {
            authors: self.authorships.into_iter().filter_map(|a| a.author.and_then(|a| a.display_name)).collect(),
            venue,
            year: self.publication_year,
            doi,
            preprint,
            retracted: self.is_retracted,
            cited_by: self.cited_by_count,
            arxiv,
            pmid,
            oa_url,
        };
        Work {
            locator,
            title: self.display_name.unwrap_or_default(),
            summary: self.abstract_inverted_index.as_ref().map(rebuild_abstract).unwrap_or_default(),
            published: self.publication_date,
            scholarly: Some(scholarly),
        }
    }
}

pub struct OpenAlex {
    api: Url,
    mailto: Option<String>,
    key: Option<String>,
    key_env: String,
    read_full_text: bool,
    gate: Gate,
    web: Arc<WebClient>,
}

impl OpenAlex {
    pub fn new(cfg: &OpenAlexConfig, mailto: Option<String>, web: Arc<WebClient>) -> Result<Self, String> {
        Ok(Self {
            api: endpoint(&cfg.base_url, "works")?,
            mailto,
            key: optional_key(&cfg.api_key_env),
            key_env: cfg.api_key_env.clone(),
            read_full_text: cfg.read_full_text,
            gate: Gate::new(cfg.min_interval_ms),
            web,
        })
    }
}

#[async_trait]
impl SearchProvider for OpenAlex {
    fn name(&self) -> &str {
        "openalex"
    }

    async fn search(&self, query: &SearchQuery) -> Result<Vec<SearchHit>, ProviderError> {
        // OpenAlex search takes `NOT term` (upper case) to exclude a word.
        let mut q = query.text.trim().to_string();
        for t in Exclusions::parse(&query.exclude).terms {
            q.push_str(&format!(" NOT \"{t}\""));
        }
        let per_page = query.limit.clamp(1, 100).to_string();
        let mut request = self.web.http().get(self.api.clone()).query(&[
            ("search", q.as_str()),
            ("per_page", per_page.as_str()),
            ("select", SELECT),
        ]);
        if let Some(m) = &self.mailto {
            request = request.query(&[("mailto", m.as_str())]);
        }
        if let Some(k) = &self.key {
            request = request.query(&[("api_key", k.as_str())]);
        }
        let key_env = self.key_env.clone();
        let hint = move |s: StatusCode| {
            matches!(s.as_u16(), 403 | 429)
                .then(|| format!("OpenAlex's rate limit; a free API key in {key_env} raises the daily allowance"))
        };
        let answer: Result<Answer, ProviderError> = {
            let _turn = self.gate.turn().await;
            self.web.api_json("openalex", request, hint, self.key.as_deref()).await
        };
        let answer = answer.map_err(|e| match e {
            // OpenAlex answers 403 when a client should slow down.
            ProviderError::Permanent { message } if message.contains("HTTP 403") => {
                ProviderError::Transient { message, retry_after: None }
            }
            e => e,
        })?;
        Ok(answer
            .results
            .into_iter()
            .enumerate()
            .filter_map(|(rank, w)| to_hit(w.into_work(), rank))
            .take(query.limit.max(1))
            .collect())
    }

    async fn fetch(&self, hit: &SearchHit) -> Result<FetchedDoc, ProviderError> {
        let oa = hit.scholarly.as_ref().and_then(|s| s.oa_url.as_deref()).filter(|_| self.read_full_text);
        read_work(&self.web, "openalex", hit, oa, None).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_abstract_is_rebuilt_from_its_inverted_index() {
        let index: BTreeMap<String, Vec<usize>> =
            [("Water".into(), vec![0]), ("boils".into(), vec![1, 4]), ("at".into(), vec![2]), ("and".into(), vec![3])]
                .into_iter()
                .collect();
        assert_eq!(rebuild_abstract(&index), "Water boils at and boils");
    }
}
