//! arXiv through its API: `GET /api/query?search_query=…` answers an Atom
//! feed (one `<entry>` per e-print: id, title, summary, authors, links,
//! `arxiv:doi`, `arxiv:journal_ref`). An error is a feed with one entry
//! whose id is under `/api/errors`. Terms of use: one request every three
//! seconds, one connection at a time — the API and the PDFs share one gate.

use std::sync::Arc;

use async_trait::async_trait;
use reqwest::Url;
use reqwest::header::{ACCEPT, USER_AGENT};

use super::common::{Gate, Work, bare_arxiv, read_work, terms, to_hit};
use super::config::ArxivConfig;
use crate::engine::model::Scholarly;
use crate::search::web::{Exclusions, WebClient, endpoint};
use crate::search::{FetchedDoc, ProviderError, SearchHit, SearchProvider, SearchQuery};

/// Terms ANDed into one query: more rarely finds anything.
const MAX_TERMS: usize = 6;

pub struct Arxiv {
    api: Url,
    read_pdf: bool,
    user_agent: String,
    gate: Gate,
    web: Arc<WebClient>,
}

impl Arxiv {
    pub fn new(cfg: &ArxivConfig, user_agent: String, web: Arc<WebClient>) -> Result<Self, String> {
        Ok(Self {
            api: endpoint(&cfg.base_url, "api/query")?,
            read_pdf: cfg.read_pdf,
            user_agent,
            gate: Gate::new(cfg.min_interval_ms),
            web,
        })
    }
}

/// `all:boiling AND all:water ANDNOT all:coffee`.
fn search_query(query: &SearchQuery) -> String {
    let words = terms(&query.text, MAX_TERMS);
    let mut q = if words.is_empty() {
        format!("all:\"{}\"", query.text.replace('"', " ").trim())
    } else {
        words.iter().map(|t| format!("all:{t}")).collect::<Vec<_>>().join(" AND ")
    };
    for t in Exclusions::parse(&query.exclude).terms.iter().filter(|t| !t.contains(char::is_whitespace)) {
        q.push_str(&format!(" ANDNOT all:{t}"));
    }
    q
}

/// The e-prints of an Atom feed, or the error its single error entry states.
pub(super) fn parse_feed(xml: &str) -> Result<Vec<Work>, ProviderError> {
    let doc = roxmltree::Document::parse(xml)
        .map_err(|e| ProviderError::permanent(format!("arxiv: unexpected answer (not an Atom feed): {e}")))?;
    let mut works = Vec::new();
    for entry in doc.root_element().children().filter(|n| n.has_tag_name("entry") || n.tag_name().name() == "entry") {
        let child = |name: &str| entry.children().find(|n| n.tag_name().name() == name);
        let text = |name: &str| child(name).and_then(|n| n.text()).map(squash).unwrap_or_default();
        let id = text("id");
        if id.contains("/api/errors") {
            return Err(ProviderError::permanent(format!("arxiv: {}", text("summary"))));
        }
        let authors: Vec<String> = entry
            .children()
            .filter(|n| n.tag_name().name() == "author")
            .filter_map(|a| a.children().find(|n| n.tag_name().name() == "name").and_then(|n| n.text()))
            .map(squash)
            .collect();
        let pdf = entry
            .children()
            .filter(|n| n.tag_name().name() == "link")
            .find(|l| l.attribute("title") == Some("pdf") || l.attribute("type") == Some("application/pdf"))
            .and_then(|l| l.attribute("href"))
            .map(https);
        let doi = Some(text("doi")).filter(|d| !d.is_empty());
        let journal = Some(text("journal_ref")).filter(|j| !j.is_empty());
        let published = Some(text("published")).filter(|p| !p.is_empty());
        let year = published.as_deref().and_then(|p| p.get(..4)).and_then(|y| y.parse().ok());
        let scholarly = Scholarly {
            authors,
            // Published elsewhere when it names the journal or a DOI.
            preprint: doi.is_none() && journal.is_none(),
            venue: Some(journal.unwrap_or_else(|| "arXiv".into())),
            year,
            doi,
            arxiv: bare_arxiv(&id),
            oa_url: pdf,
            ..Scholarly::default()
        };
        works.push(Work {
            locator: https(&id),
            title: text("title"),
            summary: text("summary"),
            published,
            scholarly: Some(scholarly),
        });
    }
    Ok(works)
}

/// Atom text with its line breaks and indentation folded to single spaces.
fn squash(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// arXiv links are written `http://`; they are served over https.
fn https(url: &str) -> String {
    match url.trim().strip_prefix("http://") {
        Some(rest) if rest.starts_with("arxiv.org/") || rest.starts_with("export.arxiv.org/") => {
            format!("https://{rest}")
        }
        _ => url.trim().to_string(),
    }
}

#[async_trait]
impl SearchProvider for Arxiv {
    fn name(&self) -> &str {
        "arxiv"
    }

    async fn search(&self, query: &SearchQuery) -> Result<Vec<SearchHit>, ProviderError> {
        let q = search_query(query);
        let max = query.limit.clamp(1, 100).to_string();
        let request = self
            .web
            .http()
            .get(self.api.clone())
            .header(USER_AGENT, &self.user_agent)
            .header(ACCEPT, "application/atom+xml")
            .query(&[("search_query", q.as_str()), ("start", "0"), ("max_results", max.as_str())]);
        let (_, body) = {
            let _turn = self.gate.turn().await;
            self.web.api_call("arxiv", request, |_| None, None).await?
        };
        let works = parse_feed(&String::from_utf8_lossy(&body))?;
        Ok(works.into_iter().enumerate().filter_map(|(rank, w)| to_hit(w, rank)).take(query.limit.max(1)).collect())
    }

    async fn fetch(&self, hit: &SearchHit) -> Result<FetchedDoc, ProviderError> {
        let pdf = hit.scholarly.as_ref().and_then(|s| s.oa_url.as_deref()).filter(|_| self.read_pdf);
        read_work(&self.web, "arxiv", hit, pdf, Some(&self.gate)).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn queries_are_terms_anded_with_exclusions() {
        let q = SearchQuery {
            text: "boiling point of water".into(),
            exclude: vec!["coffee".into(), "site:x.org".into()],
            limit: 5,
        };
        assert_eq!(search_query(&q), "all:boiling AND all:point AND all:water ANDNOT all:coffee");
    }

    #[test]
    fn an_error_entry_is_an_error() {
        let xml = r#"<?xml version="1.0" encoding="utf-8"?><feed xmlns="http://www.w3.org/2005/Atom">
          <entry><id>http://arxiv.org/api/errors#incorrect_id_format_for_1234.12345</id><title>Error</title>
          <summary>incorrect id format for 1234.12345</summary></entry></feed>"#;
        let e = parse_feed(xml).err().expect("an error");
        assert!(e.to_string().contains("incorrect id format"), "{e}");
        assert!(!e.is_transient());
    }
}
