//! Europe PMC's REST API (biomedicine): `GET /search?query=…&format=json&
//! resultType=core` answers `{hitCount, resultList: {result: [...]}}`; the
//! open-access full text of a PMC article is `GET /{PMCID}/fullTextXML`
//! (JATS), read section by section. A result's `pubTypeList` says
//! "Retracted Publication" for a retracted work; source `PPR` is a preprint.
//! Europe PMC throttles above 10 requests per second and 500 per minute.

use std::sync::Arc;

use async_trait::async_trait;
use reqwest::Url;
use reqwest::header::USER_AGENT;
use serde::Deserialize;

use super::common::{Gate, Work, bare_doi, read_work, to_hit};
use super::config::EuropePmcConfig;
use crate::engine::model::Scholarly;
use crate::search::web::{Exclusions, WebClient, endpoint, strip_tags};
use crate::search::{FetchedDoc, ProviderError, SearchHit, SearchProvider, SearchQuery};

#[derive(Deserialize)]
struct Answer {
    #[serde(rename = "resultList", default)]
    result_list: Option<ResultList>,
}

#[derive(Deserialize)]
struct ResultList {
    #[serde(default)]
    result: Vec<Article>,
}

#[derive(Deserialize)]
pub(super) struct Article {
    id: String,
    #[serde(default)]
    source: String,
    #[serde(default)]
    pmid: Option<String>,
    #[serde(default)]
    pmcid: Option<String>,
    #[serde(default)]
    doi: Option<String>,
    #[serde(default)]
    title: Option<String>,
    #[serde(rename = "authorString", default)]
    author_string: Option<String>,
    #[serde(rename = "authorList", default)]
    author_list: Option<AuthorList>,
    #[serde(rename = "journalInfo", default)]
    journal_info: Option<JournalInfo>,
    #[serde(rename = "journalTitle", default)]
    journal_title: Option<String>,
    #[serde(rename = "pubYear", default)]
    pub_year: Option<String>,
    #[serde(rename = "abstractText", default)]
    abstract_text: Option<String>,
    #[serde(rename = "isOpenAccess", default)]
    is_open_access: Option<String>,
    #[serde(rename = "pubTypeList", default)]
    pub_type_list: Option<PubTypeList>,
    #[serde(rename = "citedByCount", default)]
    cited_by_count: Option<u64>,
    #[serde(rename = "firstPublicationDate", default)]
    first_publication_date: Option<String>,
    #[serde(rename = "bookOrReportDetails", default)]
    book: Option<serde_json::Value>,
}

#[derive(Deserialize)]
struct AuthorList {
    #[serde(default)]
    author: Vec<AuthorName>,
}

#[derive(Deserialize)]
struct AuthorName {
    #[serde(rename = "fullName", default)]
    full_name: Option<String>,
    #[serde(rename = "firstName", default)]
    first_name: Option<String>,
    #[serde(rename = "lastName", default)]
    last_name: Option<String>,
}

impl AuthorName {
    /// `Hiro Nakamura` when both parts are given, else the full name as written.
    fn display(self) -> Option<String> {
        match (self.first_name, self.last_name) {
            (Some(f), Some(l)) if !f.trim().is_empty() && !l.trim().is_empty() => {
                Some(format!("{} {}", f.trim(), l.trim()))
            }
            _ => self.full_name,
        }
    }
}

#[derive(Deserialize)]
struct JournalInfo {
    #[serde(default)]
    journal: Option<JournalTitle>,
}

#[derive(Deserialize)]
struct JournalTitle {
    #[serde(default)]
    title: Option<String>,
}

#[derive(Deserialize)]
struct PubTypeList {
    #[serde(rename = "pubType", default)]
    pub_type: Vec<String>,
}

impl Article {
    pub(super) fn into_work(self) -> Work {
        let types: Vec<String> =
            self.pub_type_list.map(|l| l.pub_type.iter().map(|t| t.to_lowercase()).collect()).unwrap_or_default();
        let authors: Vec<String> = match self.author_list {
            Some(l) if !l.author.is_empty() => l.author.into_iter().filter_map(AuthorName::display).collect(),
            _ => self
                .author_string
                .as_deref()
                .map(|s| s.trim_end_matches('.').split(", ").map(str::to_string).filter(|a| !a.is_empty()).collect())
                .unwrap_or_default(),
        };
        let venue = self.journal_info.and_then(|j| j.journal).and_then(|j| j.title).or(self.journal_title).or(self
            .book
            .as_ref()
            .and_then(|b| b.get("publisher"))
            .and_then(|p| p.as_str())
            .map(str::to_string));
        let open = self.is_open_access.as_deref() == Some("Y");
        let oa_url = self.pmcid.as_ref().filter(|_| open).map(|p| format!("https://europepmc.org/articles/{p}"));
        Work {
            locator: format!("https://europepmc.org/article/{}/{}", self.source, self.id),
            // MEDLINE titles end with a full stop.
            title: self.title.unwrap_or_default().trim().trim_end_matches('.').to_string(),
            // Europe PMC marks up abstracts (`<h4>Background</h4>`, `<i>`).
            summary: strip_tags(&self.abstract_text.unwrap_or_default().replace("</h4>", ": ")),
            published: self.first_publication_date,
            scholarly: Some(Scholarly {
                authors,
                venue,
                year: self.pub_year.as_deref().and_then(|y| y.trim().parse().ok()),
                doi: self.doi.as_deref().and_then(bare_doi),
                preprint: self.source == "PPR" || types.iter().any(|t| t == "preprint"),
                retracted: types.iter().any(|t| t == "retracted publication"),
                cited_by: self.cited_by_count,
                arxiv: None,
                pmid: self.pmid,
                oa_url,
            }),
        }
    }
}

/// A JATS article's body as text: section titles as headings, paragraphs
/// as paragraphs (figures, tables and references left out).
pub(super) fn jats_text(xml: &str) -> Result<String, String> {
    let doc = roxmltree::Document::parse(xml).map_err(|e| format!("not JATS XML: {e}"))?;
    let mut out = String::new();
    let Some(body) = doc.descendants().find(|n| n.has_tag_name("body")) else { return Ok(out) };
    fn walk(node: roxmltree::Node<'_, '_>, depth: usize, out: &mut String) {
        for child in node.children().filter(roxmltree::Node::is_element) {
            match child.tag_name().name() {
                "sec" => walk(child, depth + 1, out),
                "title" => {
                    let title = flat(child);
                    if !title.is_empty() {
                        out.push_str(&format!("{} {title}\n\n", "#".repeat((depth + 1).clamp(2, 6))));
                    }
                }
                "p" => {
                    let p = flat(child);
                    if !p.is_empty() {
                        out.push_str(&p);
                        out.push_str("\n\n");
                    }
                }
                "fig" | "table-wrap" | "ref-list" | "supplementary-material" => {}
                _ => walk(child, depth, out),
            }
        }
    }
    fn flat(node: roxmltree::Node<'_, '_>) -> String {
        let text: String = node.descendants().filter(|n| n.is_text()).filter_map(|n| n.text()).collect();
        crate::text::sanitize_inline(&text).split_whitespace().collect::<Vec<_>>().join(" ")
    }
    walk(body, 0, &mut out);
    Ok(out.trim().to_string())
}

pub struct EuropePmc {
    search: Url,
    base: String,
    read_full_text: bool,
    user_agent: String,
    gate: Gate,
    web: Arc<WebClient>,
}

impl EuropePmc {
    pub fn new(cfg: &EuropePmcConfig, user_agent: String, web: Arc<WebClient>) -> Result<Self, String> {
        Ok(Self {
            search: endpoint(&cfg.base_url, "search")?,
            base: cfg.base_url.trim().trim_end_matches('/').to_string(),
            read_full_text: cfg.read_full_text,
            user_agent,
            gate: Gate::new(cfg.min_interval_ms),
            web,
        })
    }

    /// The open-access full text of PMC article `pmcid`, as text.
    async fn full_text(&self, pmcid: &str) -> Result<String, ProviderError> {
        let url = endpoint(&self.base, &format!("{pmcid}/fullTextXML")).map_err(ProviderError::permanent)?;
        let request = self.web.http().get(url).header(USER_AGENT, &self.user_agent);
        let (_, body) = {
            let _turn = self.gate.turn().await;
            self.web.api_call("europepmc", request, |_| None, None).await?
        };
        jats_text(&String::from_utf8_lossy(&body)).map_err(|e| ProviderError::permanent(format!("europepmc: {e}")))
    }
}

#[async_trait]
impl SearchProvider for EuropePmc {
    fn name(&self) -> &str {
        "europepmc"
    }

    async fn search(&self, query: &SearchQuery) -> Result<Vec<SearchHit>, ProviderError> {
        let mut q = query.text.trim().to_string();
        for t in Exclusions::parse(&query.exclude).terms {
            q.push_str(&format!(" NOT \"{t}\""));
        }
        let size = query.limit.clamp(1, 100).to_string();
        let request = self.web.http().get(self.search.clone()).header(USER_AGENT, &self.user_agent).query(&[
            ("query", q.as_str()),
            ("format", "json"),
            ("resultType", "core"),
            ("pageSize", size.as_str()),
        ]);
        let answer: Answer = {
            let _turn = self.gate.turn().await;
            self.web.api_json("europepmc", request, |_| None, None).await?
        };
        let results = answer.result_list.map(|l| l.result).unwrap_or_default();
        Ok(results
            .into_iter()
            .enumerate()
            .filter_map(|(rank, a)| to_hit(a.into_work(), rank))
            .take(query.limit.max(1))
            .collect())
    }

    async fn fetch(&self, hit: &SearchHit) -> Result<FetchedDoc, ProviderError> {
        let pmcid = hit
            .scholarly
            .as_ref()
            .and_then(|s| s.oa_url.as_deref())
            .and_then(|u| u.rsplit('/').next())
            .filter(|id| id.starts_with("PMC") && self.read_full_text);
        if let Some(pmcid) = pmcid {
            match self.full_text(pmcid).await {
                Ok(text) if text.split_whitespace().count() > hit.snippet.split_whitespace().count() => {
                    return Ok(FetchedDoc {
                        text,
                        title: Some(hit.title.clone()),
                        published: hit.published.clone(),
                        site: hit.site.clone(),
                        final_locator: None,
                    });
                }
                Ok(_) => {}
                Err(e) => tracing::info!(pmcid, error = %e, "full text not read; the abstract stands in"),
            }
        }
        read_work(&self.web, "europepmc", hit, None, None).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jats_sections_become_headings_and_figures_are_left_out() {
        let xml = r#"<article><front><article-meta><title-group><article-title>T</article-title></title-group></article-meta></front>
            <body><sec><title>Introduction</title><p>Aspirin <italic>reduces</italic> fever.</p>
            <fig><caption><p>A figure.</p></caption></fig>
            <sec><title>Dose</title><p>500 mg.</p></sec></sec></body></article>"#;
        assert_eq!(jats_text(xml).expect("jats"), "## Introduction\n\nAspirin reduces fever.\n\n### Dose\n\n500 mg.");
    }
}
